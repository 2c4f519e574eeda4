"""The client against a real `gtformer serve` of the fixture model, and its
headers against a small recording server."""

import contextlib
import http.server
import io
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

import numpy as np

import gtformer

from tests import fixture


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hyperbolic_distance(x, y, K):
    """√K·arccosh(−<x,y>_L/K) between two points on the hyperboloid."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    inner = -x[0] * y[0] + x[1:] @ y[1:]
    return np.sqrt(K) * np.arccosh(max(-inner / K, 1.0))


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fx = fixture.get()
        cls.fx = fx
        cls.url = f"http://127.0.0.1:{free_port()}"
        cls.log = open(os.path.join(fx.tmp, "serve.log"), "w+")
        cls.proc = subprocess.Popen(
            [fx.binary, "serve", "--model", fx.model, "--data", fx.corpus, "--addr", cls.url[len("http://") :]],
            stdout=cls.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while True:
            if cls.proc.poll() is not None:
                cls.log.seek(0)
                raise RuntimeError(f"gtformer serve exited {cls.proc.returncode}:\n{cls.log.read()}")
            try:
                with urllib.request.urlopen(cls.url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                cls.tearDownClass()
                raise RuntimeError("gtformer serve did not answer /healthz within 120 s")
            time.sleep(0.2)
        cls.client = gtformer.Client(cls.url)
        cls.gt = gtformer.load(fx.model, data=fx.corpus)

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        try:
            cls.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            cls.proc.kill()
            cls.proc.wait()
        cls.log.close()

    def test_info_and_tree(self):
        info = self.client.info()
        health = self.client.health()
        self.assertEqual(health["status"], "ok")
        self.assertLess(health["api_in_flight"], health["api_limit"])
        self.assertEqual(info["documents"], self.gt.doc_topics().shape[0])
        self.assertEqual(info["dim"], self.gt.config()["model"]["width"])
        self.assertEqual(info["topics"], len(self.gt.topic_ids))
        tree = self.client.tree()
        self.assertEqual([t["id"] for t in tree["nodes"]], self.gt.topic_ids)

    def test_facets_and_links_match_model_folder(self):
        # The server's answers and the reader's, over the same model folder.
        f = self.client.facets(0, "year")
        rows = self.gt.facets("year")
        rows = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
        totals = [r["word_share"] for r in rows if r["series"] == "total"]
        self.assertEqual([b["label"] for b in f["bins"]], [r["bin"] for r in rows if r["series"] == "total"])
        for a, b in zip(f["total"]["words"], totals):
            self.assertAlmostEqual(a, b, places=9)
        lm = self.client.topic_links(2, top=3)
        self.assertEqual(lm["topics"], self.gt.link_map(2)["topics"])
        self.assertAlmostEqual(lm["inside"], self.gt.link_map(2)["inside"], places=9)
        self.assertLessEqual(len(lm["pairs"]), 3)
        with self.assertRaises(gtformer.ServerError) as e:
            self.client.facets(0, "venue")
        self.assertEqual(e.exception.status, 404)

    def test_paths_match_server(self):
        paths = self.gt.paths()
        for i in list(range(0, len(paths), 15)) + [len(paths) - 1]:
            with self.subTest(doc=i):
                self.assertEqual(self.client.document(i)["path"], paths[i])

    def test_neighbors_by_id(self):
        K = self.gt.curvature
        x = self.gt.embeddings()
        got = self.client.neighbors(id="3", k=5)
        self.assertEqual(len(got), 5)
        self.assertNotIn("3", [n["id"] for n in got])
        dist = [n["distance"] for n in got]
        self.assertEqual(dist, sorted(dist))
        for n in got:
            self.assertAlmostEqual(n["distance"], hyperbolic_distance(x[3], x[int(n["id"])], K), delta=1e-3 + 1e-3 * n["distance"])

    def test_embed_lands_near_its_document(self):
        # A training document's own text (and links), embedded as new,
        # lands among the nearest of the known documents to it.
        c = self.gt.corpus()
        links = {}
        with open(os.path.join(self.fx.corpus, "links.txt")) as f:
            for line in f:
                a, b = line.split()
                links.setdefault(a, []).append(b)
                links.setdefault(b, []).append(a)
        for i in (5, 250, 1200):
            with self.subTest(doc=i):
                doc = {"id": f"new{i}", "text": c.texts[i], "links": links.get(str(i), [])}
                res = self.client.embed([doc])
                self.assertEqual(res["warnings"], [])
                e = res["docs"][0]
                self.assertEqual(e["id"], f"new{i}")
                self.assertEqual(e["unknown_words"], 0)
                self.assertEqual(len(e["embedding"]), self.gt.config()["model"]["width"] + 1)
                near = [n["id"] for n in self.client.neighbors(embedding=e["embedding"], k=10)]
                self.assertIn(str(i), near)

    def test_embed_strings(self):
        res = self.client.embed([self.gt.corpus().texts[0], "telescope galaxy star"])
        self.assertEqual([d["id"] for d in res["docs"]], ["text-0", "text-1"])
        K = self.gt.curvature
        for d in res["docs"]:
            x = np.array(d["embedding"], np.float64)
            self.assertAlmostEqual(-x[0] ** 2 + x[1:] @ x[1:], -K, delta=1e-3 * K)

    def test_server_errors(self):
        cases = [
            ("unknown document", lambda: self.client.neighbors(id="no-such-doc"), 404, "no-such-doc"),
            ("k too large", lambda: self.client.neighbors(id="0", k=10**9), 400, '"k"'),
            ("no documents", lambda: self.client.embed([]), 400, '"docs"'),
            ("wrong width", lambda: self.client.neighbors(embedding=[1.0, 0.0]), 400, "coordinates"),
            ("unknown topic", lambda: self.client.topic(10**6), 404, "1000000"),
        ]
        for name, call, status, msg in cases:
            with self.subTest(case=name):
                with self.assertRaises(gtformer.ServerError) as cm:
                    call()
                self.assertEqual(cm.exception.status, status)
                self.assertIn(msg, cm.exception.message)
                self.assertNotIn("{", cm.exception.message[:1], "the server's message, not its JSON")

    def test_readme_example(self):
        # The README's example, run as written against this server, in a
        # folder where "out" and "corpus" are the fixture's.
        readme = os.path.join(fixture.REPO, "python", "README.md")
        with open(readme) as f:
            text = f.read()
        code = text.split("```python\n", 1)[1].split("```", 1)[0]
        self.assertLessEqual(len(code.strip().splitlines()), 10)
        code = code.replace("http://127.0.0.1:8080", self.url)
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(self.fx.model, os.path.join(tmp, "out"))
            os.symlink(self.fx.corpus, os.path.join(tmp, "corpus"))
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                scope = {}
                with contextlib.redirect_stdout(io.StringIO()) as out:
                    exec(compile(code, readme, "exec"), scope)
            finally:
                os.chdir(cwd)
        self.assertIn("Node(id=", out.getvalue())
        self.assertEqual(scope["theta"].shape[0], scope["x"].shape[0])
        self.assertEqual(len(scope["client"].neighbors(embedding=scope["new"]["embedding"], k=5)), 5)

    def test_arguments(self):
        with self.assertRaises(ValueError):
            self.client.neighbors()
        with self.assertRaises(ValueError):
            self.client.neighbors(id="0", embedding=[1.0])
        with self.assertRaises(TypeError):
            self.client.embed("one text, not a list")


class Recorder(http.server.BaseHTTPRequestHandler):
    """Records each request's method, path, headers and body; answers with
    the status and body the test set on the server."""

    def _answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.server.seen.append((self.command, self.path, dict(self.headers), self.rfile.read(n)))
        status, body = self.server.reply
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


class HeadersTest(unittest.TestCase):
    def setUp(self):
        self.srv = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
        self.srv.seen, self.srv.reply = [], (200, b'{"neighbors": [], "docs": [], "warnings": []}')
        t = threading.Thread(target=self.srv.serve_forever, daemon=True)
        t.start()
        self.addCleanup(t.join)
        self.addCleanup(self.srv.server_close)
        self.addCleanup(self.srv.shutdown)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/"

    def test_headers(self):
        cases = [
            ("no token", None, lambda c: c.embed(["a"]), "POST", "/v1/embed", {"docs": [{"id": "text-0", "text": "a"}]}),
            ("token embed", "s3cret", lambda c: c.embed([{"id": "x", "text": "b", "links": ["1"]}]), "POST", "/v1/embed",
             {"docs": [{"id": "x", "text": "b", "links": ["1"]}]}),
            ("token neighbors", "s3cret", lambda c: c.neighbors(id=7, k=3), "POST", "/v1/neighbors", {"doc": "7", "k": 3}),
            ("token info", "s3cret", lambda c: c.info(), "GET", "/v1/info", None),
        ]
        for name, token, call, method, path, body in cases:
            with self.subTest(case=name):
                self.srv.seen.clear()
                call(gtformer.Client(self.url, token=token))
                (m, p, headers, raw), = self.srv.seen
                self.assertEqual((m, p), (method, path))
                self.assertEqual(headers.get("Authorization"), None if token is None else f"Bearer {token}")
                if body is None:
                    self.assertEqual(raw, b"")
                else:
                    self.assertEqual(headers.get("Content-Type"), "application/json")
                    self.assertEqual(json.loads(raw), body)

    def test_error_bodies(self):
        cases = [
            ("JSON error", 401, b'{"error": "missing or wrong token"}', "missing or wrong token"),
            ("plain text", 502, b"bad gateway\n", "bad gateway"),
        ]
        for name, status, body, msg in cases:
            with self.subTest(case=name):
                self.srv.reply = (status, body)
                with self.assertRaises(gtformer.ServerError) as cm:
                    gtformer.Client(self.url).info()
                self.assertEqual((cm.exception.status, cm.exception.message), (status, msg))

    def test_unreachable(self):
        with self.assertRaises(gtformer.ServerError) as cm:
            gtformer.Client(f"http://127.0.0.1:{free_port()}", timeout=5).info()
        self.assertEqual(cm.exception.status, 0)
        self.assertIn("cannot reach", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
