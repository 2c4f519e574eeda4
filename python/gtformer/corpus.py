"""Reads what the model folder does not hold about the documents: their
ids, labels and texts, from the corpus the model was trained on (the
`--data` of `gtformer train`), in either of its two formats:

- a dataset folder: contents.txt (one document per line, word ids into
  voc.txt), voc.txt, optional labels.txt (one integer per document) and
  label_names.txt (line k names label k). Documents are numbered from 0 and
  their id is that number as text, as the server names them.
- a JSON Lines file (.jsonl, .ndjson, .json): one {"id", "text", "links",
  "label"} object per line, blank lines skipped.

Only what the reader needs is checked (counts, ids, labels); the Go program
remains the judge of a corpus's validity."""

import json
import os

from .errors import GtformerError

JSONL_EXTS = (".jsonl", ".ndjson", ".json")


class Corpus:
    """The documents of a corpus, row i of the model's arrays being
    document i.

    ids: list of str. labels: list of str (None for an unlabelled
    document), or None when the corpus has no labels. texts: list of str
    (for a folder, the words of contents.txt joined by spaces).
    """

    def __init__(self, path, ids, labels, texts):
        self.path = path
        self.ids = ids
        self.labels = labels
        self.texts = texts

    def __len__(self):
        return len(self.ids)


def read(path):
    """Reads a corpus folder or JSON Lines file; a GtformerError names the
    file and the problem."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return _read_folder(path)
    if not os.path.exists(path):
        raise GtformerError(f"{path}: no such file or folder (expected a dataset folder or a .jsonl file)")
    if not path.lower().endswith(JSONL_EXTS):
        raise GtformerError(f"{path}: not a dataset folder or a JSON Lines file (.jsonl)")
    return _read_jsonl(path)


def _lines(path, required=True):
    """The file's lines (None when it is absent and not required)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        if required:
            raise GtformerError(f"{path}: missing (a dataset folder needs it)") from None
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise GtformerError(f"{path}: {e}") from e
    return text.splitlines()


def _read_folder(path):
    vocab = [w.strip() for w in _lines(os.path.join(path, "voc.txt"))]
    contents_path = os.path.join(path, "contents.txt")
    texts = []
    for ln, line in enumerate(_lines(contents_path), 1):
        words = []
        for tok in line.split():
            try:
                w = int(tok)
            except ValueError:
                raise GtformerError(f"{contents_path}:{ln}: word id {tok!r} is not an integer") from None
            if not 0 <= w < len(vocab):
                raise GtformerError(f"{contents_path}:{ln}: word id {w} outside voc.txt's {len(vocab)} words")
            words.append(vocab[w])
        texts.append(" ".join(words))
    n = len(texts)
    ids = [str(i) for i in range(n)]
    labels = None
    labels_path = os.path.join(path, "labels.txt")
    raw = _lines(labels_path, required=False)
    if raw is not None:
        if len(raw) != n:
            raise GtformerError(f"{labels_path}: {len(raw)} labels for {n} documents (one label per line of contents.txt)")
        nums = []
        for ln, line in enumerate(raw, 1):
            try:
                nums.append(int(line.strip()))
            except ValueError:
                raise GtformerError(f"{labels_path}:{ln}: label {line.strip()!r} is not an integer") from None
            if nums[-1] < 0:
                raise GtformerError(f"{labels_path}:{ln}: label {nums[-1]} is negative (labels are 0, 1, 2, ...)")
        names_path = os.path.join(path, "label_names.txt")
        names = _lines(names_path, required=False)
        names = [s.strip(" \t") for s in names] if names is not None else None
        labels = []
        for ln, k in enumerate(nums, 1):
            if names is None:
                labels.append(str(k))
            elif k < len(names):
                labels.append(names[k])
            else:
                raise GtformerError(f"{labels_path}:{ln}: label {k} has no name in {names_path} ({len(names)} names)")
    return Corpus(path, ids, labels, texts)


def _jsonl_scalar(value, what, path, ln):
    """An id or label as the Go program reads it: a string, or a number's
    literal text."""
    if isinstance(value, str) and value != "":
        return value
    if isinstance(value, _Literal):
        return str(value)
    raise GtformerError(f"{path}:{ln}: {what} {value!r} is not a non-empty string or a number")


class _Literal(str):
    """A JSON number kept as its literal text (the Go program's json.Number)."""


def _read_jsonl(path):
    ids, labels, texts = [], [], []
    seen = {}
    labelled = None
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise GtformerError(f"{path}: {e.strerror or e}") from e
    with f:
        for ln, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line, parse_int=_Literal, parse_float=_Literal)
            except ValueError as e:
                raise GtformerError(f"{path}:{ln}: invalid JSON: {e}") from e
            if not isinstance(doc, dict):
                raise GtformerError(f"{path}:{ln}: not a JSON object")
            if "id" not in doc:
                raise GtformerError(f'{path}:{ln}: missing "id"')
            id_ = _jsonl_scalar(doc["id"], '"id"', path, ln)
            if not isinstance(doc.get("text"), str):
                raise GtformerError(f'{path}:{ln}: document {id_!r}: missing "text"')
            if id_ in seen:
                raise GtformerError(f"{path}:{ln}: duplicate id {id_!r} (first on line {seen[id_]})")
            seen[id_] = ln
            has = doc.get("label") is not None
            if labelled is None:
                labelled = has
            elif has != labelled:
                raise GtformerError(f"{path}:{ln}: either every document has a label or none has")
            ids.append(id_)
            texts.append(doc["text"])
            labels.append(_jsonl_scalar(doc["label"], '"label"', path, ln) if has else None)
    return Corpus(path, ids, labels if labelled else None, texts)
