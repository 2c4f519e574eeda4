"""Facets: a topic's share of the words (and of the documents) per bin of a
document field, its children stacked, computed from the model folder alone
(doc_topics.npy, doc_lengths.npy, meta.jsonl, tree.json) the way the Go
program's topicmap package does (gtformer topics facets --csv prints the
same rows)."""

import bisect
import json
import math
import re

import numpy as np

from .errors import GtformerError

OTHER = "(other)"
DEFAULT_TOP = 12
DEFAULT_QUANTILES = 10
MAX_BINS = 1200

_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def parse_date(s):
    """(year, month, day) of "YYYY", "YYYY-MM" or "YYYY-MM-DD" (month and day
    0 when absent), or None for a string that is not such a calendar date."""
    m = _DATE.match(s) if isinstance(s, str) else None
    if not m:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)
    if m.group(2) is not None and not 1 <= mo <= 12:
        return None
    if m.group(3) is not None:
        leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
        days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
        if not 1 <= d <= days:
            return None
    return y, mo, d


def read_meta(path, n):
    """meta.jsonl's fields for n documents: dict name -> (kind, values), kind
    "number", "string" or "date", values a list with None where a document
    lacks the field."""
    fields = {}
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise GtformerError(f"{path}: missing: the model's corpus has no document fields or labels "
                            "(gtformer train writes meta.jsonl when it has)") from None
    except OSError as e:
        raise GtformerError(f"{path}: {e}") from e
    with f:
        lines = f.read().splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != n:
        raise GtformerError(f"{path}: {len(lines)} lines for {n} documents (doc_topics.npy rows)")
    for i, line in enumerate(lines):
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise GtformerError(f"{path}:{i + 1}: invalid JSON: {e}") from e
        if not isinstance(obj, dict):
            raise GtformerError(f"{path}:{i + 1}: not a JSON object")
        for name, v in obj.items():
            if v is None or v == "":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise GtformerError(f"{path}:{i + 1}: field {name!r}: {v!r} is not a number or a string")
            kind = "string" if isinstance(v, str) else "number"
            entry = fields.setdefault(name, [kind, [None] * n, i + 1])
            if entry[0] != kind:
                raise GtformerError(f"{path}:{i + 1}: field {name!r} is a {kind} here but a {entry[0]} on line {entry[2]}")
            entry[1][i] = v
    out = {}
    for name, (kind, values, _) in fields.items():
        if kind == "string" and name != "label" and all(v is None or parse_date(v) for v in values):
            kind = "date"
        out[name] = (kind, values)
    return out


def _fmt(x):
    """A quantile bound as the Go program writes it (6 significant digits)."""
    s = f"{x:.6g}"
    if "e" in s:
        mant, exp = s.split("e")
        sign, digits = exp[0], exp[1:].lstrip("0")
        s = f"{mant}e{sign}{digits.rjust(2, '0')}"
    return s


def _quantiles(x, q):
    """Bins of near-equal counts over the non-NaN values of x; returns
    (bins, of) with bins [(label, lo, hi)] and of the bin per document."""
    vals = sorted(v for v in x if not math.isnan(v))
    of = [-1] * len(x)
    if not vals:
        return [], of
    cuts = []
    for k in range(1, q):
        c = vals[k * len(vals) // q]
        if c > vals[0] and (not cuts or c > cuts[-1]):
            cuts.append(c)
    lo = [math.inf] * (len(cuts) + 1)
    hi = [-math.inf] * (len(cuts) + 1)
    for i, v in enumerate(x):
        if math.isnan(v):
            continue
        k = bisect.bisect_right(cuts, v)
        of[i] = k
        lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
    bins = [(_fmt(a) if a == b else _fmt(a) + "–" + _fmt(b), a, b) for a, b in zip(lo, hi)]
    return bins, of


def bin_field(name, kind, values, bin=None, top=DEFAULT_TOP, quantiles=DEFAULT_QUANTILES):
    """(mode, bins, of): the binning used, the bins [(label, lo, hi)] and
    each document's bin (-1 without the field), as topicmap.Bins."""
    n = len(values)
    of = [-1] * n
    bin = bin or None
    if kind == "string":
        if bin not in (None, "value"):
            raise ValueError(f"gtformer: field {name!r} holds strings: bin by value, not {bin!r}")
        count = {}
        for v in values:
            if v is not None:
                count[v] = count.get(v, 0) + 1
        order = sorted(count, key=lambda v: (-count[v], v))
        if len(order) == top + 1:
            top += 1
        index = {v: min(k, top) for k, v in enumerate(order)}
        bins = [(v, 0.0, 0.0) for v in order[:top]]
        if len(order) > top:
            bins.append((OTHER, 0.0, 0.0))
        return "value", bins, [-1 if v is None else index[v] for v in values]
    if kind == "date":
        ds = [None if v is None else parse_date(v) for v in values]
        have = [d for d in ds if d]
        if not have:
            return bin or "year", [], of
        lo, hi = min(d[0] for d in have), max(d[0] for d in have)
        months = all(d[1] > 0 for d in have)
        mode = bin or ("month" if months and hi - lo < 3 else "year")
        if mode == "year":
            if hi - lo + 1 > MAX_BINS:
                raise ValueError(f"gtformer: field {name!r} spans {hi - lo + 1} years: bin by quantile")
            bins = [(str(y), float(y), float(y + 1)) for y in range(lo, hi + 1)]
            return mode, bins, [-1 if d is None else d[0] - lo for d in ds]
        if mode == "month":
            if not months:
                raise ValueError(f"gtformer: field {name!r} has dates without a month: bin by year")
            ms = [None if d is None else d[0] * 12 + d[1] - 1 for d in ds]
            first = min(m for m in ms if m is not None)
            last = max(m for m in ms if m is not None)
            if last - first + 1 > MAX_BINS:
                raise ValueError(f"gtformer: field {name!r} spans {last - first + 1} months: bin by year")
            bins = [(f"{m // 12:04d}-{m % 12 + 1:02d}", m / 12, (m + 1) / 12) for m in range(first, last + 1)]
            return mode, bins, [-1 if m is None else m - first for m in ms]
        if mode == "quantile":
            x = [math.nan if d is None else d[0] + (d[1] - 1) / 12 * (d[1] > 0) + (d[2] - 1) / 372 * (d[2] > 0) for d in ds]
            bins, of = _quantiles(x, quantiles)
            return mode, bins, of
        raise ValueError(f"gtformer: field {name!r} holds dates: bin by year, month or quantile, not {bin!r}")
    # numbers
    x = [math.nan if v is None else float(v) for v in values]
    have = [v for v in x if not math.isnan(v)]
    integers = all(v == math.trunc(v) for v in have)
    lo, hi = (min(have), max(have)) if have else (math.inf, -math.inf)
    mode = bin or ("year" if integers and hi - lo < 100 else "quantile")
    if mode == "year":
        if not have:
            return "integer", [], of
        if not integers:
            raise ValueError(f"gtformer: field {name!r} holds numbers that are not integers: bin by quantile")
        if hi - lo + 1 > MAX_BINS:
            raise ValueError(f"gtformer: field {name!r} spans {hi - lo + 1:g} integers: bin by quantile")
        bins = [(str(int(v)), float(v), float(v + 1)) for v in range(int(lo), int(hi) + 1)]
        return "integer", bins, [-1 if math.isnan(v) else int(v - lo) for v in x]
    if mode == "quantile":
        bins, of = _quantiles(x, quantiles)
        return mode, bins, of
    raise ValueError(f"gtformer: field {name!r} holds numbers: bin by year (one bin per integer) or quantile, not {bin!r}")


def facet_rows(theta, lengths, rows, node_row, bins, of):
    """The facet of tree row node_row in long form: one dict per bin and
    series (total: the node's subtree; self: its own θ; child: a child's
    subtree) with bin, lo, hi, docs, words, series, topic, word_share,
    doc_share. rows: tree.json's topics in θ's column order."""
    T = len(rows)
    col = {t["id"]: r for r, t in enumerate(rows)}
    children = [col[c] for c in rows[node_row]["children"]]
    # Each column's series: 0 the node itself, k+1 under its k-th child.
    group = [-1] * T
    group[node_row] = 0
    for k, c in enumerate(children):
        group[c] = k + 1
    for r in range(T):  # breadth-first: a parent's group is set before its children's
        p = rows[r]["parent"]
        if group[r] < 0 and p != -1 and col[p] != node_row and group[col[p]] > 0:
            group[r] = group[col[p]]
    of = np.asarray(of, dtype=np.int64)
    have = of >= 0
    K = len(bins)
    th = np.asarray(theta, dtype=np.float64)[have]
    ln = np.asarray(lengths, dtype=np.float64)[have]
    b = of[have]
    docs = np.bincount(b, minlength=K).astype(np.float64)
    words = np.bincount(b, weights=ln, minlength=K)
    series = []
    for g in range(len(children) + 1):
        cols = [r for r in range(T) if group[r] == g]
        mass = th[:, cols].sum(axis=1)
        w = np.bincount(b, weights=ln * mass, minlength=K)
        d = np.bincount(b, weights=mass, minlength=K)
        series.append((np.divide(w, words, out=np.zeros(K), where=words > 0), np.divide(d, docs, out=np.zeros(K), where=docs > 0)))
    total_w = sum(s[0] for s in series)
    total_d = sum(s[1] for s in series)
    ids = [rows[node_row]["id"]] + [rows[c]["id"] for c in children]
    out = []
    for k, (label, lo, hi) in enumerate(bins):
        base = {"bin": label, "lo": lo, "hi": hi, "docs": int(docs[k]), "words": float(words[k])}
        out.append(dict(base, series="total", topic=ids[0], word_share=float(total_w[k]), doc_share=float(total_d[k])))
        for g, (w, d) in enumerate(series):
            out.append(dict(base, series="self" if g == 0 else "child", topic=ids[g], word_share=float(w[k]), doc_share=float(d[k])))
    return out


COLUMNS = ["bin", "lo", "hi", "docs", "words", "series", "topic", "word_share", "doc_share"]
