"""A missing or malformed file raises GtformerError naming the file and the
problem; the safetensors parser reads every dtype the model may use."""

import json
import os
import shutil
import struct
import tempfile
import unittest

import numpy as np

import gtformer
from gtformer import safetensors

from tests import fixture


def setUpModule():
    fixture.get()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def safetensors_bytes(tensors, meta=None, header_patch=None):
    """A safetensors file: tensors maps name -> (dtype name, shape, bytes)."""
    header, data = {}, b""
    for name, (dt, shape, raw) in tensors.items():
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if meta is not None:
        header["__metadata__"] = meta
    if header_patch:
        header_patch(header)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


class SafetensorsTest(unittest.TestCase):
    def test_dtypes_round_trip(self):
        cases = [
            ("F32", "<f4", [[1.5, -2.0], [3.25, 0.0]]),
            ("F64", "<f8", [1e-300, -7.0, 2.5]),
            ("I32", "<i4", [[-1], [2], [2147483647]]),
            ("I64", "<i8", [-(2**62), 5]),
        ]
        for name, dt, values in cases:
            with self.subTest(dtype=name):
                a = np.array(values, dtype=dt)
                got, meta = safetensors.parse(safetensors_bytes({"t": (name, list(a.shape), a.tobytes())}, meta={"k": "v"}))
                np.testing.assert_array_equal(got["t"], a)
                self.assertEqual(got["t"].shape, a.shape)
                self.assertEqual(got["t"].dtype, np.dtype(dt).newbyteorder("="))
                self.assertEqual(meta, {"k": "v"})

    def test_malformed(self):
        f32 = np.arange(6, dtype="<f4").tobytes()

        def patch(key, value):
            return lambda h: h["t"].__setitem__(key, value)

        cases = [
            ("short", b"\x01\x02", "too short"),
            ("header past end", struct.pack("<Q", 1000) + b"{}", "runs past"),
            ("header not JSON", struct.pack("<Q", 3) + b"{x}", "not valid JSON"),
            ("header a list", struct.pack("<Q", 2) + b"[]", "not a JSON object"),
            ("unknown dtype", safetensors_bytes({"t": ("BF16", [3], f32[:6])}), "dtype 'BF16'"),
            ("bad shape", safetensors_bytes({"t": ("F32", [2, 3], f32)}, header_patch=patch("shape", [2, -3])), "shape"),
            ("size mismatch", safetensors_bytes({"t": ("F32", [2, 2], f32)}), "want 16"),
            ("offsets outside", safetensors_bytes({"t": ("F32", [6], f32)}, header_patch=patch("data_offsets", [0, 48])), "outside"),
        ]
        for name, raw, msg in cases:
            with self.subTest(case=name):
                with self.assertRaises(gtformer.GtformerError) as cm:
                    safetensors.parse(raw, "w.safetensors")
                self.assertIn("w.safetensors", str(cm.exception))
                self.assertIn(msg, str(cm.exception))


class BrokenFolderTest(unittest.TestCase):
    """Each case breaks one file of a copy of the trained model."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.dir = fixture.copy_model(self.tmp)

    def write(self, name, content):
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(content)

    def test_at_load(self):
        cases = [
            ("config.json", None, "missing"),
            ("config.json", b"{", "not valid JSON"),
            ("config.json", b'{"format": "other/1"}', "format"),
            ("tree.json", None, "missing"),
            ("tree.json", b'{"topics": []}', "topics"),
            ("topics.json", None, "missing"),
            ("topics.json", b"[]", "do not match tree.json"),
            ("topics.json", b"{}", "not a JSON list"),
        ]
        for name, content, msg in cases:
            with self.subTest(file=name, problem=msg):
                backup = read_bytes(os.path.join(self.dir, name))
                try:
                    if content is None:
                        os.remove(os.path.join(self.dir, name))
                    else:
                        self.write(name, content)
                    with self.assertRaises(gtformer.GtformerError) as cm:
                        gtformer.load(self.dir)
                    self.assertIn(name, str(cm.exception))
                    self.assertIn(msg, str(cm.exception))
                finally:
                    self.write(name, backup)

    def test_when_read(self):
        gt = gtformer.load(self.dir)
        T = len(gt.topic_ids)
        cases = [
            ("doc_topics.npy", None, "missing", gt.doc_topics),
            ("doc_topics.npy", b"\x93NUMPY garbage", "not a readable", gt.doc_topics),
            ("doc_topics.npy", "wrong columns", f"want (N, {T})", gt.doc_topics),
            ("doc_embeddings.npy", None, "missing", gt.embeddings),
            ("metrics.json", b"[1", "not valid JSON", gt.metrics),
            ("weights.safetensors", None, "weights.safetensors", gt.weights),
            ("weights.safetensors", b"\x00" * 4, "too short", gt.weights),
        ]
        for name, content, msg, call in cases:
            with self.subTest(file=name, problem=msg):
                path = os.path.join(self.dir, name)
                backup = read_bytes(path)
                try:
                    gt._cache.clear()
                    if content is None:
                        os.remove(path)
                    elif content == "wrong columns":
                        np.save(path, np.zeros((3, T + 1), dtype=np.float32))
                    else:
                        self.write(name, content)
                    with self.assertRaises(gtformer.GtformerError) as cm:
                        call()
                    self.assertIn(name, str(cm.exception))
                    self.assertIn(msg, str(cm.exception))
                finally:
                    self.write(name, backup)

    def test_rows_disagree(self):
        gt = gtformer.load(self.dir)
        np.save(os.path.join(self.dir, "doc_topics.npy"), gt.doc_topics()[:-1])
        gt._cache.clear()
        gt.embeddings()
        with self.assertRaisesRegex(gtformer.GtformerError, "doc_embeddings.npy has .* rows but doc_topics.npy"):
            gt.doc_topics()

    def test_not_a_folder(self):
        with self.assertRaisesRegex(gtformer.GtformerError, "not a folder"):
            gtformer.load(os.path.join(self.tmp, "nothing"))


class BrokenCorpusTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.gt = gtformer.load(fixture.get().model, data=None)
        self.n = self.gt.doc_topics().shape[0]

    def corpus(self, name, lines):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def info(self, data):
        return gtformer.load(fixture.get().model, data=data).document_info()

    def test_jsonl(self):
        ok = [json.dumps({"id": i, "text": "a b"}) for i in range(self.n)]
        cases = [
            ("too few", ok[:-1], f"{self.n - 1} documents, but the model"),
            ("bad JSON", ["{"] + ok[1:], ":1: invalid JSON"),
            ("no id", ['{"text": "x"}'] + ok[1:], ':1: missing "id"'),
            ("no text", ['{"id": "x"}'] + ok[1:], ':1: document \'x\': missing "text"'),
            ("duplicate", ok[:-1] + [ok[0]], f":{self.n}: duplicate id '0' (first on line 1)"),
            ("some labels", [json.dumps({"id": "a", "text": "", "label": "x"})] + ok[1:], ":2: either every document has a label"),
        ]
        for name, lines, msg in cases:
            with self.subTest(case=name):
                path = self.corpus("c.jsonl", lines)
                with self.assertRaises(gtformer.GtformerError) as cm:
                    self.info(path)
                self.assertIn("c.jsonl", str(cm.exception))
                self.assertIn(msg, str(cm.exception))
        # Numbers keep their literal text, as the Go program reads them.
        doc = self.info(self.corpus("c.jsonl", ok))
        self.assertEqual(list(doc["id"][:3]), ["0", "1", "2"])
        self.assertNotIn("label", doc.columns)

    def test_folder(self):
        src = fixture.get().corpus
        dst = os.path.join(self.tmp, "corpus")
        shutil.copytree(src, dst)
        with open(os.path.join(dst, "labels.txt"), "a") as f:
            f.write("0\n")
        with self.assertRaisesRegex(gtformer.GtformerError, r"labels\.txt: \d+ labels for \d+ documents"):
            self.info(dst)
        os.remove(os.path.join(dst, "contents.txt"))
        with self.assertRaisesRegex(gtformer.GtformerError, r"contents\.txt: missing"):
            self.info(dst)
        with self.assertRaisesRegex(gtformer.GtformerError, "not a dataset folder or a JSON Lines file"):
            self.info(os.path.join(dst, "voc.txt"))


if __name__ == "__main__":
    unittest.main()
