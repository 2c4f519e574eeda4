"""Reads a model folder written by `gtformer train --out DIR`.

Files (all written by the Go program): config.json (architecture, curvature
K), tree.json (the topic tree, topics in breadth-first row order),
topics.json (per topic: top words, share), doc_embeddings.npy (float32
(N, n+1), points on the hyperboloid <x,x>_L = -K), doc_topics.npy (float32
(N, T), θ, columns in tree.json's row order), doc_lengths.npy (int32 (N,),
word counts), meta.jsonl (the documents' fields, the labels among them),
topic_links.json (the link map of every level), metrics.json and
weights.safetensors. The corpus (ids, labels, texts) is not in the folder:
pass data= (the training run's --data) for document_info()."""

import json
import os

import numpy as np

from . import corpus as corpus_mod
from . import facets as facets_mod
from . import frames
from . import safetensors
from .errors import GtformerError
from .tree import Node

# LABEL_WORDS is how many top words make a topic's label in a folder
# written before topics.json had labels.
LABEL_WORDS = 3
# INFO_WORDS is how many top words topic_info lists per topic.
INFO_WORDS = 10


def load(path, data=None):
    """Opens the model folder path (and, optionally, its corpus data: the
    dataset folder or .jsonl file it was trained on). Files are read when
    first needed; config.json, tree.json and topics.json are read and
    checked now, so a folder that is not a model fails here."""
    return Model(path, data)


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise GtformerError(f"{path}: missing (is this a folder written by gtformer train --out?)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise GtformerError(f"{path}: {e}") from e
    except ValueError as e:
        raise GtformerError(f"{path}: not valid JSON: {e}") from e


def _read_npy(path, ncols, what):
    """A 2-D .npy array of ncols columns."""
    try:
        arr = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise GtformerError(f"{path}: missing (gtformer train --out writes it)") from None
    except (OSError, ValueError, EOFError) as e:
        raise GtformerError(f"{path}: not a readable .npy array: {e}") from e
    if arr.ndim != 2 or arr.shape[1] != ncols:
        raise GtformerError(f"{path}: shape {arr.shape}, want (N, {ncols}) ({what})")
    if arr.dtype.kind != "f":
        raise GtformerError(f"{path}: dtype {arr.dtype}, want a float array")
    return arr


def _field(obj, key, kind, where):
    v = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(v, kind) or isinstance(v, bool):
        raise GtformerError(f"{where}: field {key!r} missing or not {kind.__name__ if isinstance(kind, type) else 'a number'}")
    return v


class Model:
    """A trained model folder. See load()."""

    def __init__(self, path, data=None):
        self.path = os.fspath(path)
        if not os.path.isdir(self.path):
            raise GtformerError(f"{self.path}: not a folder (expected a model folder written by gtformer train --out)")
        self.data = None if data is None else os.fspath(data)
        self._config = self._read_config()
        self._rows = self._read_tree()
        self._topics = self._read_topics()
        self._cache = {}

    def _file(self, name):
        return os.path.join(self.path, name)

    # ---- files read at load time ----

    def _read_config(self):
        path = self._file("config.json")
        cfg = _read_json(path)
        if not isinstance(cfg, dict) or cfg.get("format") != "gtformer-model/1":
            got = cfg.get("format") if isinstance(cfg, dict) else None
            raise GtformerError(f'{path}: format {got!r}, want "gtformer-model/1"')
        m = cfg.get("model")
        if not isinstance(m, dict):
            raise GtformerError(f'{path}: field "model" missing or not an object')
        _field(m, "width", int, path)
        if m.get("geometry") not in ("hyperbolic", "euclidean"):
            raise GtformerError(f'{path}: geometry {m.get("geometry")!r}, want "hyperbolic" or "euclidean"')
        k = m.get("curvature")
        if m["geometry"] == "hyperbolic" and (not isinstance(k, (int, float)) or isinstance(k, bool) or not k > 0):
            raise GtformerError(f"{path}: curvature {k!r}, want a positive number")
        return cfg

    def _read_tree(self):
        """tree.json's topics in row order: list of dicts id/parent/level/children."""
        path = self._file("tree.json")
        tj = _read_json(path)
        topics = tj.get("topics") if isinstance(tj, dict) else None
        if not isinstance(topics, list) or not topics:
            raise GtformerError(f'{path}: field "topics" missing or empty')
        ids = set()
        for i, t in enumerate(topics):
            where = f"{path}: topics[{i}]"
            for key in ("id", "parent", "level"):
                _field(t, key, int, where)
            if not isinstance(t.get("children"), list):
                raise GtformerError(f'{where}: field "children" missing or not a list')
            if t["id"] in ids:
                raise GtformerError(f"{where}: duplicate topic id {t['id']}")
            ids.add(t["id"])
        roots = [t["id"] for t in topics if t["parent"] == -1]
        if len(roots) != 1:
            raise GtformerError(f"{path}: {len(roots)} roots (topics with parent -1), want 1")
        for t in topics:
            if t["parent"] != -1 and t["parent"] not in ids:
                raise GtformerError(f"{path}: topic {t['id']}: parent {t['parent']} does not exist")
            for c in t["children"]:
                if c not in ids:
                    raise GtformerError(f"{path}: topic {t['id']}: child {c} does not exist")
        return topics

    def _read_topics(self):
        """topics.json, checked to list tree.json's topics in the same order."""
        path = self._file("topics.json")
        topics = _read_json(path)
        if not isinstance(topics, list):
            raise GtformerError(f"{path}: not a JSON list of topics")
        want = [t["id"] for t in self._rows]
        got = [t.get("id") if isinstance(t, dict) else None for t in topics]
        if got != want:
            raise GtformerError(f"{path}: topic ids {got} do not match tree.json's {want}")
        for i, t in enumerate(topics):
            where = f"{path}: topics[{i}] (id {t['id']})"
            share = t.get("share", 0.0)  # Go omits nothing here, but a 0 share is legal
            if not isinstance(share, (int, float)) or isinstance(share, bool):
                raise GtformerError(f"{where}: share {share!r} is not a number")
            words = t.get("words")
            if not isinstance(words, list) or not all(isinstance(w, dict) and isinstance(w.get("word"), str) for w in words):
                raise GtformerError(f'{where}: field "words" missing or not a list of {{"word", "weight"}}')
        # A topic renamed since topics.json was written (gtformer serve
        # writes the edit log in place) shows its new label.
        for t in topics:
            if t["id"] in self._user_labels():
                t["label"], t["label_source"] = self._user_labels()[t["id"]], "user"
        return topics

    def _user_labels(self):
        """The user's labels by topic id, replayed from edits.json when
        config.json names it (the model's edit log); {} otherwise."""
        if "_labels" in self.__dict__:
            return self._labels
        self._labels = {}
        if "edits.json" in (self._config.get("files") or {}):
            path = self._file("edits.json")
            log = _read_json(path)
            edits = log.get("edits") if isinstance(log, dict) else None
            if not isinstance(edits, list):
                raise GtformerError(f'{path}: field "edits" missing or not a list')
            for e in edits:
                ids = e.get("ids") if isinstance(e, dict) else None
                if not isinstance(ids, list) or not ids:
                    raise GtformerError(f"{path}: an edit without ids: {e!r}")
                if e.get("op") == "label":
                    self._labels[ids[0]] = e.get("label", "")
                elif e.get("op") == "merge" and len(ids) == 2:
                    self._labels.pop(ids[1], None)
                elif e.get("op") == "delete":
                    self._labels.pop(ids[0], None)
        return self._labels

    # ---- plain readers ----

    def config(self):
        """config.json as a dict ("model" holds the architecture)."""
        return self._config

    def metrics(self):
        """metrics.json as a dict."""
        if "metrics" not in self._cache:
            m = _read_json(self._file("metrics.json"))
            if not isinstance(m, dict):
                raise GtformerError(f"{self._file('metrics.json')}: not a JSON object")
            self._cache["metrics"] = m
        return self._cache["metrics"]

    @property
    def topic_ids(self):
        """Topic ids in the column order of doc_topics() (breadth-first)."""
        return [t["id"] for t in self._rows]

    @property
    def curvature(self):
        """K: the hyperboloid is <x,x>_L = -K (None for a euclidean model)."""
        m = self._config["model"]
        return float(m["curvature"]) if m["geometry"] == "hyperbolic" else None

    def doc_topics(self):
        """θ: float32 array (N, T), row i document i, columns in topic_ids order."""
        if "theta" not in self._cache:
            self._cache["theta"] = _read_npy(self._file("doc_topics.npy"), len(self._rows), "one column per topic of tree.json")
            self._check_rows()
        return self._cache["theta"]

    def embeddings(self, space="hyperboloid"):
        """The documents' embeddings, float32 (N, n+1) points on the
        hyperboloid <x,x>_L = -x0² + Σ xk² = -K as training wrote them; with
        space="tangent", (N, n) tangent vectors at the origin o = (√K, 0, …)
        by the logarithmic map log_o(x) = √K·asinh(|x_s|/√K)·x_s/|x_s|
        (x_s = x[:, 1:]), in which Euclidean tools (PCA, k-means) are fair.
        A euclidean model's points are [0 | p]; its tangent vectors are p."""
        if "emb" not in self._cache:
            width = self._config["model"]["width"]
            self._cache["emb"] = _read_npy(self._file("doc_embeddings.npy"), width + 1, "n+1 coordinates, n the config's width")
            self._check_rows()
        x = self._cache["emb"]
        if space == "hyperboloid":
            return x
        if space != "tangent":
            raise ValueError(f'gtformer: space {space!r}: want "hyperboloid" or "tangent"')
        xs = x[:, 1:].astype(np.float64)
        if self.curvature is None:
            return xs.astype(np.float32)
        sk = np.sqrt(self.curvature)
        norm = np.linalg.norm(xs, axis=1, keepdims=True)
        scale = np.divide(sk * np.arcsinh(norm / sk), norm, out=np.ones_like(norm), where=norm > 0)
        return (xs * scale).astype(np.float32)

    def weights(self):
        """weights.safetensors as a dict name -> numpy array."""
        if "weights" not in self._cache:
            self._cache["weights"], self._cache["weights_meta"] = safetensors.read(self._file("weights.safetensors"))
        return self._cache["weights"]

    def _check_rows(self):
        """The two per-document arrays must have the same documents."""
        emb, theta = self._cache.get("emb"), self._cache.get("theta")
        if emb is not None and theta is not None and emb.shape[0] != theta.shape[0]:
            raise GtformerError(
                f"{self.path}: doc_embeddings.npy has {emb.shape[0]} rows but doc_topics.npy {theta.shape[0]}"
            )

    # ---- the tree ----

    def tree(self):
        """The topic tree: the root Node (Node.to_dict() gives nested dicts)."""
        nodes = {}
        for row, t in zip(self._rows, self._topics):
            nodes[row["id"]] = Node(row["id"], row["parent"], row["level"], float(t.get("share", 0.0)), [w["word"] for w in t["words"]])
        root = None
        for row in self._rows:
            n = nodes[row["id"]]
            n.children = [nodes[c] for c in row["children"]]
            if row["parent"] == -1:
                root = n
        return root

    def topic_info(self):
        """One row per topic, breadth-first: id, parent (-1 for the root),
        level, label (the user's, from the model's edit log, or the
        automatic one of topics.json; in a folder written before labels,
        the top three words joined by ", "), label_source ("user" or
        "auto"), share (of the words, from topics.json), n_children, words
        (top 10 by weight, a list). A DataFrame with pandas, else a list of
        dicts."""
        rows = []
        for row, t in zip(self._rows, self._topics):
            words = [w["word"] for w in t["words"]]
            rows.append({
                "id": row["id"],
                "parent": row["parent"],
                "level": row["level"],
                "label": t.get("label") or ", ".join(words[:LABEL_WORDS]),
                "label_source": t.get("label_source") or "auto",
                "share": float(t.get("share", 0.0)),
                "n_children": len(row["children"]),
                "words": words[:INFO_WORDS],
            })
        return frames.table(rows, ["id", "parent", "level", "label", "label_source", "share", "n_children", "words"])

    def levels(self):
        """The number of levels of the tree (the root's is level 0)."""
        return 1 + max(t["level"] for t in self._rows)

    def top_topics(self):
        """int array (N, levels): per document and level, the id of the
        topic of that level with the largest θ."""
        theta = self.doc_topics()
        ids = np.array(self.topic_ids)
        level = np.array([t["level"] for t in self._rows])
        out = np.empty((theta.shape[0], self.levels()), dtype=np.int64)
        for lv in range(out.shape[1]):
            cols = np.flatnonzero(level == lv)
            out[:, lv] = ids[cols[np.argmax(theta[:, cols], axis=1)]]
        return out

    def paths(self):
        """Each document's path (list of topic ids): from the root, each
        step goes to the child whose subtree holds the most θ mass (the
        first such child on ties), down to a leaf, as the server's "path"."""
        theta = self.doc_topics().astype(np.float64)
        col = {t["id"]: r for r, t in enumerate(self._rows)}
        # Subtree mass per topic: rows are breadth-first, so children come
        # after their parent and a reverse pass accumulates bottom-up.
        mass = theta.copy()
        for r in range(len(self._rows) - 1, -1, -1):
            p = self._rows[r]["parent"]
            if p != -1:
                mass[:, col[p]] += mass[:, r]
        root = next(t for t in self._rows if t["parent"] == -1)
        # Step all documents down together: at each depth, the documents at
        # a topic with children move to the child of largest subtree mass
        # (argmax takes the first on ties).
        at = np.full(theta.shape[0], col[root["id"]])
        steps = [at.copy()]
        for _ in range(self.levels() - 1):
            nxt = at.copy()
            for r in np.unique(at):
                children = [col[c] for c in self._rows[r]["children"]]
                if children:
                    docs = np.flatnonzero(at == r)
                    nxt[docs] = np.array(children)[np.argmax(mass[np.ix_(docs, children)], axis=1)]
            if (nxt == at).all():
                break
            at = nxt
            steps.append(at.copy())
        ids = np.array(self.topic_ids)
        rows = np.stack(steps, axis=1)
        out = []
        for i in range(theta.shape[0]):
            path = [int(ids[rows[i, 0]])]
            for k in range(1, rows.shape[1]):
                if rows[i, k] == rows[i, k - 1]:
                    break  # reached a leaf above the deepest level
                path.append(int(ids[rows[i, k]]))
            out.append(path)
        return out

    def corpus(self):
        """The corpus given as data= (a corpus.Corpus), checked to have one
        document per row of the model's arrays."""
        if self.data is None:
            raise GtformerError(
                f"{self.path}: document ids and labels are not in the model folder: "
                "pass the corpus the model was trained on, gtformer.load(path, data=CORPUS) "
                "(the dataset folder or .jsonl file given to gtformer train --data)"
            )
        if "corpus" not in self._cache:
            c = corpus_mod.read(self.data)
            n = self.doc_topics().shape[0]
            if len(c) != n:
                raise GtformerError(f"{self.data}: {len(c)} documents, but the model in {self.path} has {n} (doc_topics.npy rows): not the corpus it was trained on")
            self._cache["corpus"] = c
        return self._cache["corpus"]

    def document_info(self):
        """One row per document: index (row in the arrays), id, level_0 …
        level_{L-1} (the top topic of each level), path (list of topic ids,
        see paths()), label when the corpus has labels, and one column per
        document field kept with the model (fields(); None where a document
        has none). Needs data=. A DataFrame with pandas, else a list of
        dicts."""
        c = self.corpus()
        top = self.top_topics()
        paths = self.paths()
        lv = [f"level_{k}" for k in range(top.shape[1])]
        cols = ["index", "id"] + lv + ["path"] + (["label"] if c.labels is not None else [])
        fields = {}
        if os.path.exists(os.path.join(self.path, "meta.jsonl")):
            fields = {k: v for k, (_, v) in sorted(self.fields().items()) if k != "label"}
        cols += list(fields)
        rows = []
        for i in range(len(c)):
            row = {"index": i, "id": c.ids[i]}
            for k, name in enumerate(lv):
                row[name] = int(top[i, k])
            row["path"] = paths[i]
            if c.labels is not None:
                row["label"] = c.labels[i]
            for k, values in fields.items():
                row[k] = values[i]
            rows.append(row)
        return frames.table(rows, cols)

    # ---- facets and the topic link map ----

    def doc_lengths(self):
        """int32 array (N,): each document's word count (in the vocabulary),
        the weights of the facets' word shares (doc_lengths.npy)."""
        if "lengths" not in self._cache:
            path = self._file("doc_lengths.npy")
            try:
                arr = np.load(path, allow_pickle=False)
            except FileNotFoundError:
                raise GtformerError(f"{path}: missing (gtformer train writes it; retrain a model written before it did)") from None
            except (OSError, ValueError, EOFError) as e:
                raise GtformerError(f"{path}: not a readable .npy array: {e}") from e
            n = self.doc_topics().shape[0]
            if arr.shape != (n,) or arr.dtype.kind not in "iu":
                raise GtformerError(f"{path}: shape {arr.shape} of {arr.dtype}, want ({n},) integers")
            self._cache["lengths"] = arr
        return self._cache["lengths"]

    def fields(self):
        """The documents' fields kept with the model (meta.jsonl; the labels
        as "label"): dict name -> (kind, values), kind "number", "string"
        or "date", values one per document (None where absent)."""
        if "fields" not in self._cache:
            self._cache["fields"] = facets_mod.read_meta(self._file("meta.jsonl"), self.doc_topics().shape[0])
        return self._cache["fields"]

    def facets(self, field, topic=None, bin=None, top=facets_mod.DEFAULT_TOP, quantiles=facets_mod.DEFAULT_QUANTILES):
        """A topic's share per bin of a document field (the root's by
        default), its children stacked, as `gtformer topics facets --csv`:
        one row per bin and series with bin, lo, hi, docs, words, series
        ("total": the topic's subtree, "self": its own θ, "child": a
        child's subtree), topic, word_share (Σ|d|θ/Σ|d| over the bin's
        documents) and doc_share (mean θ). bin: None (by the field),
        "year", "month", "quantile" or "value". A DataFrame with pandas
        (pivot it: rows.pivot_table(index="bin", columns="topic",
        values="word_share")), else a list of dicts."""
        fields = self.fields()
        if field not in fields:
            raise GtformerError(f"{self.path}: no document field {field!r}; the fields are {', '.join(sorted(fields)) or 'none'}")
        kind, values = fields[field]
        mode, bins, of = facets_mod.bin_field(field, kind, values, bin=bin, top=top, quantiles=quantiles)
        ids = self.topic_ids
        if topic is None:
            node = next(r for r, t in enumerate(self._rows) if t["parent"] == -1)
        elif topic in ids:
            node = ids.index(topic)
        else:
            raise GtformerError(f"{self.path}: no topic {topic!r}")
        rows = facets_mod.facet_rows(self.doc_topics(), self.doc_lengths(), self._rows, node, bins, of)
        return frames.table(rows, facets_mod.COLUMNS)

    def link_map(self, level):
        """The topic link map of a level (topic_links.json) as a dict:
        topics, parents, links, share, mass, expected and lift (numpy
        arrays, rows and columns in topics order), inside, across, self,
        siblings (mean lifts) and pairs (the strongest cross-branch)."""
        if "links" not in self._cache:
            maps = _read_json(self._file("topic_links.json"))
            if not isinstance(maps, list) or not all(isinstance(m, dict) and isinstance(m.get("level"), int) for m in maps):
                raise GtformerError(f"{self._file('topic_links.json')}: not a list of link maps")
            self._cache["links"] = {m["level"]: m for m in maps}
        maps = self._cache["links"]
        if level not in maps:
            raise GtformerError(f"{self.path}: no link map of level {level!r}; the tree has levels 1 to {self.levels() - 1} below the root")
        m = dict(maps[level])
        for key in ("share", "mass", "expected", "lift"):
            m[key] = np.asarray(m[key], dtype=np.float64)
        return m

    def topic_links(self, level):
        """The link map of a level as a table, one row per pair of the
        level's topics (a ≤ b in tree order), as `gtformer topics links
        --csv`: a, b, parent_a, parent_b, inside (one branch: the same
        parent, or at level 1 a topic with itself), mass, expected, lift
        (mass / expected). link_map(level) has the matrices and the means."""
        m = self.link_map(level)
        ts, ps = m["topics"], m["parents"]
        rows = []
        for i in range(len(ts)):
            for j in range(i, len(ts)):
                rows.append({"a": ts[i], "b": ts[j], "parent_a": ps[i], "parent_b": ps[j],
                             "inside": i == j or (level > 1 and ps[i] == ps[j]),
                             "mass": float(m["mass"][i, j]), "expected": float(m["expected"][i, j]), "lift": float(m["lift"][i, j])})
        return frames.table(rows, ["a", "b", "parent_a", "parent_b", "inside", "mass", "expected", "lift"])
