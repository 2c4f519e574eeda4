"""The model folder reader against independent facts about the files the Go
program wrote: θ rows are distributions, points lie on the hyperboloid,
shares are the length-weighted mean of θ, weights have the shapes
config.json implies, labels are the corpus's."""

import csv
import importlib
import io
import math
import json
import os
import tempfile
import unittest
from unittest import mock

import numpy as np

import gtformer
from gtformer import frames

from tests import fixture

FX = None


def setUpModule():
    global FX
    FX = fixture.get()


def contents(path):
    with open(os.path.join(path, "contents.txt")) as f:
        return f.read().splitlines()


def words(path):
    """The whitespace-separated tokens of a text file."""
    with open(path) as f:
        return f.read().split()


def read_json(path):
    with open(path) as f:
        return json.load(f)


class ArraysTest(unittest.TestCase):
    def setUp(self):
        self.gt = gtformer.load(FX.model, data=FX.corpus)
        self.cfg = read_json(os.path.join(FX.model, "config.json"))["model"]

    def test_theta_rows_are_distributions(self):
        th = self.gt.doc_topics()
        self.assertEqual(th.shape, (len(contents(FX.corpus)), len(read_json(os.path.join(FX.model, "topics.json")))))
        self.assertGreaterEqual(th.min(), 0)
        np.testing.assert_allclose(th.sum(axis=1), 1, atol=1e-4)

    def test_points_on_hyperboloid(self):
        x = self.gt.embeddings().astype(np.float64)
        K = self.cfg["curvature"]
        self.assertEqual(x.shape, (len(contents(FX.corpus)), self.cfg["width"] + 1))
        lorentz = -x[:, 0] ** 2 + (x[:, 1:] ** 2).sum(axis=1)
        np.testing.assert_allclose(lorentz, -K, rtol=1e-3)
        self.assertTrue((x[:, 0] > 0).all(), "points on the upper sheet")

    def test_tangent_is_log_at_origin(self):
        # |log_o x| is the geodesic distance from the origin, √K·arccosh(x0/√K),
        # and the direction is the spatial part's.
        x = self.gt.embeddings().astype(np.float64)
        v = self.gt.embeddings(space="tangent").astype(np.float64)
        sk = np.sqrt(self.cfg["curvature"])
        self.assertEqual(v.shape, (x.shape[0], x.shape[1] - 1))
        np.testing.assert_allclose(np.linalg.norm(v, axis=1), sk * np.arccosh(np.maximum(x[:, 0] / sk, 1)), rtol=1e-3, atol=1e-3)
        cos = (v * x[:, 1:]).sum(1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(x[:, 1:], axis=1))
        np.testing.assert_allclose(cos, 1, atol=1e-5)
        with self.assertRaises(ValueError):
            self.gt.embeddings(space="poincare")

    def test_tangent_of_euclidean_model(self):
        # A euclidean model's points are [0 | p]: the tangent vectors are p.
        with tempfile.TemporaryDirectory() as tmp:
            path = fixture.copy_model(tmp)
            cfg = read_json(os.path.join(path, "config.json"))
            cfg["model"]["geometry"] = "euclidean"
            with open(os.path.join(path, "config.json"), "w") as f:
                json.dump(cfg, f)
            gt = gtformer.load(path)
            self.assertIsNone(gt.curvature)
            np.testing.assert_array_equal(gt.embeddings(space="tangent"), gt.embeddings()[:, 1:])

    def test_shares_match_topics_json(self):
        # topics.json's share is Σ_i |d_i| θ_it / Σ_i |d_i| over the documents.
        lengths = np.array([len(line.split()) for line in contents(FX.corpus)], dtype=np.float64)
        share = (lengths[:, None] * self.gt.doc_topics()).sum(0) / lengths.sum()
        want = [t["share"] for t in read_json(os.path.join(FX.model, "topics.json"))]
        np.testing.assert_allclose(share, want, atol=1e-5)
        info = self.gt.topic_info()
        np.testing.assert_allclose(list(info["share"]), want, atol=1e-12)

    def test_weights_shapes_match_config(self):
        w = self.gt.weights()
        c = self.cfg
        n, T = c["width"], len(self.gt.topic_ids)
        want = {
            "embed.tok.table": (c["vocab"] + 1, n),
            "embed.pos.table": (c["max_len"] + 1, n),
            f"layer{c['layers'] - 1}.mlp.fc1.w": (n, c["mlp_hidden"]),
            f"layer{c['layers'] - 1}.mlp.fc2.w": (c["mlp_hidden"], n),
            "tree.decoder.u": (c["vocab"], n),
            "tree.topic_in": (T, n),
            "buffers.idf": (c["vocab"],),
        }
        for name, shape in want.items():
            with self.subTest(tensor=name):
                self.assertIn(name, w)
                self.assertEqual(w[name].shape, shape)
                self.assertEqual(w[name].dtype, np.float32)
                self.assertTrue(np.isfinite(w[name]).all())
        self.assertNotIn(f"layer{c['layers']}.attn.wq.w", w, "no more layers than the config's")

    def test_metrics_and_config(self):
        m = self.gt.metrics()
        self.assertEqual(m["epochs"], 1)
        self.assertEqual(m["topics"]["count"], len(self.gt.topic_ids))
        self.assertEqual(self.gt.config()["corpus"]["documents"]["count"], len(contents(FX.corpus)))


class TreeAndTablesTest(unittest.TestCase):
    def setUp(self):
        self.gt = gtformer.load(FX.model, data=FX.corpus)
        self.topics = read_json(os.path.join(FX.model, "topics.json"))

    def test_tree_matches_tree_json(self):
        root = self.gt.tree()
        tj = read_json(os.path.join(FX.model, "tree.json"))["topics"]
        self.assertEqual(root.parent, -1)
        nodes = {n.id: n for n in root.walk()}
        self.assertEqual(sorted(nodes), sorted(t["id"] for t in tj))
        for t in tj:
            with self.subTest(topic=t["id"]):
                n = nodes[t["id"]]
                self.assertEqual([c.id for c in n.children], t["children"])
                self.assertEqual(n.level, t["level"])
                for c in n.children:
                    self.assertEqual(c.parent, n.id)
        d = root.to_dict()
        self.assertEqual(len(d["children"]), len(root.children))
        self.assertAlmostEqual(sum(n.share for n in root.walk()), 1, places=4)

    def test_topic_info(self):
        info = self.gt.topic_info()
        self.assertEqual(list(info["id"]), [t["id"] for t in self.topics])
        for row, t in zip(info.to_dict("records"), self.topics):
            words = [w["word"] for w in t["words"]]
            self.assertEqual(row["label"], t["label"])
            self.assertTrue(row["label"])
            self.assertEqual(row["label_source"], "auto")
            self.assertEqual(row["words"], words[:10])
            self.assertEqual(row["parent"], t["parent"])
            self.assertEqual(row["n_children"], len(t["children"]))

    def test_topic_info_user_labels(self):
        # A label made by `gtformer topics label` (a new folder), then one
        # written in place as gtformer serve writes it (edits.json named in
        # config.json, topics.json left as it was): topic_info shows both.
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "labelled")
            fixture.run([FX.binary, "topics", "label", "--model", FX.model, "--data", FX.corpus, "--out", out, "1", "Named"])
            info = gtformer.load(out).topic_info()
            rows = {r["id"]: r for r in (info.to_dict("records") if frames.have_pandas() else info)}
            self.assertEqual((rows[1]["label"], rows[1]["label_source"]), ("Named", "user"))
            self.assertEqual(rows[0]["label_source"], "auto")
            log = read_json(os.path.join(out, "edits.json"))
            log["edits"].append({"op": "label", "ids": [0], "label": "Everything", "time": "2026-01-01T00:00:00Z"})
            with open(os.path.join(out, "edits.json"), "w") as f:
                json.dump(log, f)
            info = gtformer.load(out).topic_info()
            rows = {r["id"]: r for r in (info.to_dict("records") if frames.have_pandas() else info)}
            self.assertEqual((rows[0]["label"], rows[0]["label_source"]), ("Everything", "user"))
            self.assertEqual(rows[1]["label"], "Named")

    def test_document_info_folder(self):
        doc = self.gt.document_info()
        n = len(contents(FX.corpus))
        self.assertEqual(len(doc), n)
        self.assertEqual(list(doc["id"][:3]), ["0", "1", "2"])
        names = words(os.path.join(FX.corpus, "label_names.txt"))
        labels = [names[int(s)] for s in words(os.path.join(FX.corpus, "labels.txt"))]
        self.assertEqual(list(doc["label"]), labels)
        # The fields kept with the model are columns too (the corpus's
        # meta.jsonl, one object per document).
        with open(os.path.join(FX.corpus, "meta.jsonl")) as f:
            years = [json.loads(line).get("year") for line in f]
        self.assertEqual(list(doc["year"]), years)
        levels = [c for c in doc.columns if c.startswith("level_")]
        self.assertEqual(len(levels), self.gt.levels())
        root = self.gt.tree().id
        self.assertTrue((doc["level_0"] == root).all())
        th, col = self.gt.doc_topics(), {t: r for r, t in enumerate(self.gt.topic_ids)}
        for r in doc.head(50).to_dict("records"):
            path = r["path"]
            self.assertEqual(path[0], root)
            self.assertEqual(len(path), len(set(path)))
            for a, b in zip(path, path[1:]):
                self.assertIn(b, [c.id for c in self.gt.tree().find(a).children])
            # The top topic of a level has the largest θ among that level's topics.
            for k, name in enumerate(levels):
                same = [t for t in self.gt.topic_ids if self.gt.tree().find(t).level == k]
                self.assertEqual(th[r["index"], col[r[name]]], max(th[r["index"], col[t]] for t in same))

    def test_document_info_jsonl(self):
        # The same corpus as JSON Lines, with string ids and labels.
        vocab = words(os.path.join(FX.corpus, "voc.txt"))
        labels = words(os.path.join(FX.corpus, "labels.txt"))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.jsonl")
            with open(path, "w") as f:
                for i, line in enumerate(contents(FX.corpus)):
                    text = " ".join(vocab[int(w)] for w in line.split())
                    f.write(json.dumps({"id": f"d{i}", "text": text, "label": int(labels[i])}) + "\n")
                    if i == 3:
                        f.write("\n")  # blank lines are skipped
            doc = gtformer.load(FX.model, data=path).document_info()
            self.assertEqual(len(doc), len(labels))
            self.assertEqual(list(doc["id"][:2]), ["d0", "d1"])
            self.assertEqual(list(doc["label"]), labels)

    def test_document_info_needs_data(self):
        with self.assertRaisesRegex(gtformer.GtformerError, r"data="):
            gtformer.load(FX.model).document_info()

    def _go_csv(self, *args):
        res = fixture.run([FX.binary, "topics", *args, "--model", FX.model, "--data", FX.corpus, "--csv"])
        return list(csv.DictReader(io.StringIO(res.stdout)))

    def _rows(self, table):
        return table.to_dict("records") if hasattr(table, "to_dict") else table

    def test_facets_match_go(self):
        # The Go program's rows, for each kind of binning.
        for args, kw in [
            (["--field", "year"], {}),
            (["--field", "year", "--bin", "quantile", "--quantiles", "4"], {"bin": "quantile", "quantiles": 4}),
            (["--field", "label", "--topic", "1"], {"topic": 1}),
            (["--field", "label", "--top", "1"], {"top": 1}),
        ]:
            with self.subTest(args=args):
                want = self._go_csv("facets", *args)
                got = self._rows(self.gt.facets(kw.pop("field", args[1]), **kw))
                self.assertEqual(len(got), len(want))
                for g, w in zip(got, want):
                    self.assertEqual((g["bin"], g["series"], int(g["topic"]), int(g["docs"])), (w["bin"], w["series"], int(w["topic"]), int(w["docs"])))
                    for key in ("lo", "hi", "words", "word_share", "doc_share"):
                        self.assertTrue(math.isclose(float(g[key]), float(w[key]), rel_tol=1e-6, abs_tol=1e-9), f"{key}: {g[key]} vs {w[key]}")

    def test_facets_errors(self):
        with self.assertRaisesRegex(gtformer.GtformerError, "no document field 'venue'; the fields are label, year"):
            self.gt.facets("venue")
        with self.assertRaisesRegex(ValueError, "holds strings: bin by value"):
            self.gt.facets("label", bin="year")
        with self.assertRaisesRegex(gtformer.GtformerError, "no topic 999"):
            self.gt.facets("year", topic=999)

    def test_topic_links_match_go(self):
        for level in (1, 2):
            with self.subTest(level=level):
                want = self._go_csv("links", "--level", str(level))
                got = self._rows(self.gt.topic_links(level))
                self.assertEqual(len(got), len(want))
                for g, w in zip(got, want):
                    self.assertEqual((int(g["a"]), int(g["b"]), bool(g["inside"])), (int(w["a"]), int(w["b"]), w["inside"] == "true"))
                    for key in ("mass", "expected", "lift"):
                        # The CSV holds 8 significant digits.
                        self.assertTrue(math.isclose(float(g[key]), float(w[key]), rel_tol=1e-6, abs_tol=1e-9), f"{key}: {g[key]} vs {w[key]}")
        m = self.gt.link_map(1)
        self.assertEqual(m["lift"].shape, (len(m["topics"]), len(m["topics"])))
        # The planted corpus links mostly inside a branch.
        self.assertGreater(m["inside"], m["across"])
        with self.assertRaisesRegex(gtformer.GtformerError, "no link map of level 7"):
            self.gt.link_map(7)


class WithoutPandasTest(unittest.TestCase):
    """Tables are lists of dicts when pandas does not import."""

    def setUp(self):
        # sys.modules[name] = None makes `import name` raise ImportError.
        patch = mock.patch.dict("sys.modules", {"pandas": None})
        patch.start()
        importlib.reload(frames)
        self.addCleanup(importlib.reload, frames)
        self.addCleanup(patch.stop)

    def test_lists_of_dicts(self):
        self.assertFalse(frames.have_pandas())
        gt = gtformer.load(FX.model, data=FX.corpus)
        info = gt.topic_info()
        self.assertIsInstance(info, list)
        self.assertEqual([r["id"] for r in info], gt.topic_ids)
        self.assertEqual(set(info[0]), {"id", "parent", "level", "label", "label_source", "share", "n_children", "words"})
        doc = gt.document_info()
        self.assertIsInstance(doc, list)
        self.assertEqual(len(doc), gt.doc_topics().shape[0])
        self.assertEqual(doc[5]["index"], 5)
        self.assertIn("label", doc[0])


class PandasTest(unittest.TestCase):
    def test_dataframes(self):
        import pandas as pd

        self.assertTrue(frames.have_pandas())
        gt = gtformer.load(FX.model, data=FX.corpus)
        self.assertIsInstance(gt.topic_info(), pd.DataFrame)
        self.assertIsInstance(gt.document_info(), pd.DataFrame)


if __name__ == "__main__":
    unittest.main()
