#!/usr/bin/env python3
"""Reference check of gtformer's LDA (package lda) against scikit-learn.

Not part of gtformer (which needs no Python): this script checks it from
outside with scikit-learn's LatentDirichletAllocation (Debian:
python3-sklearn). Three modes:

  exact IN.json OUT.json
      Runs scikit-learn's own batch E-step/M-step from the λ given in IN
      (γ started at 1, no random draws), for IN's number of iterations, then
      its transform and score. lda's TestAgainstScikitLearn writes IN, runs
      this, and compares with Go to rounding.

  score DIR
      Re-scores a `gtformer baseline --method lda --export DIR` folder's
      float32 β and θ with this script's numpy definitions of NPMI,
      diversity and perplexity, and checks that they equal the scores
      gtformer wrote into DIR/export.json: the scorer below is gtformer's.

  fit DIR [--seeds 1,2,3,4,5] [--topics 13] [--iter 100]
      Fits scikit-learn's LDA on an export folder's training bags for each
      seed and prints one JSON line of scores per seed (as compare does
      for its scikit-learn rows), so a comparison can be run in parts.

  compare [--gtformer BIN] [--data-root DIR] [--datasets ml,pl,covid]
          [--seeds 1,2,3,4,5] [--topics 13] [--iter 100] [--valid both|no|only]
      For every dataset and scored split (test, and validation with
      --valid), runs `BIN baseline --method lda --seed s --json` for every
      seed (exporting seed 1's inputs), fits scikit-learn's LDA
      (learning_method='batch', random_state = each seed) on the same
      training bags, scores both the same way, and prints a markdown table:
      mean ± sample std over the seeds.

The definitions (docs/design.md, "Evaluation protocol"; package metrics):
NPMI: mean over topics of the mean NPMI over pairs of the topic's top-10
words, p(w) and p(w,w') document frequencies over the fitted (training)
documents, a pair never co-occurring −1, a pair in every document 1.
Diversity: distinct words among the topics' top-25 lists / (25 T).
Log-perplexity: −Σ_d Σ_w n_dw log Σ_t θ_dt β_tw / Σ n_dw over the scored
documents, θ from transform (γ normalised), β = components_ normalised; the
completion form takes θ from each document's observed half and scores the
held-out half (the halves gtformer exported).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.decomposition._lda import _dirichlet_expectation_2d


# ---------------------------------------------------------------- inputs


def read_bags(path, vocab):
    """Reads "word:count ..." lines into a CSR matrix (docs, vocab)."""
    indptr, indices, data = [0], [], []
    with open(path) as f:
        for line in f:
            for pair in line.split():
                w, c = pair.split(":")
                indices.append(int(w))
                data.append(float(c))
            indptr.append(len(indices))
    return sp.csr_matrix(
        (np.array(data), np.array(indices, dtype=np.int64), np.array(indptr)),
        shape=(len(indptr) - 1, vocab),
    )


# ---------------------------------------------------------------- scoring


def top_words(beta, n):
    """Each topic's n most probable word ids; ties by smaller id."""
    return [np.argsort(-row, kind="stable")[:n] for row in beta]


def npmi(topics, ref):
    """Mean NPMI of the topics' word lists over ref (CSR, docs x vocab)."""
    b = (ref > 0).astype(np.float64).tocsc()
    n = ref.shape[0]
    scores = []
    for top in topics:
        cols = b[:, top]
        df = np.asarray(cols.sum(axis=0)).ravel()
        co = (cols.T @ cols).toarray()
        s, pairs = 0.0, 0
        for i in range(len(top)):
            for j in range(i + 1, len(top)):
                pairs += 1
                c = co[i, j]
                if c == 0:
                    s += -1.0
                elif c == n:
                    s += 1.0
                else:
                    pab = c / n
                    s += math.log(pab / ((df[i] / n) * (df[j] / n))) / -math.log(pab)
        scores.append(s / pairs)
    return float(np.mean(scores))


def diversity(topics, n):
    words = [w for top in topics for w in top[:n]]
    return len(set(int(w) for w in words)) / len(words)


def log_perplexity(theta, beta, x):
    """−Σ n_dw log (θ β)_dw / Σ n_dw over the nonzeros of x (CSR)."""
    x = x.tocoo()
    p = np.einsum("it,it->i", theta[x.row], beta[:, x.col].T)
    return float(-(x.data * np.log(p)).sum() / x.data.sum())


def scores(beta, theta, theta_c, train, scored, heldout):
    return {
        "npmi": npmi(top_words(beta, 10), train),
        "diversity": diversity(top_words(beta, 25), 25),
        "log_perplexity": log_perplexity(theta, beta, scored),
        "log_perplexity_completion": log_perplexity(theta_c, beta, heldout),
    }


def load_export(d):
    with open(os.path.join(d, "export.json")) as f:
        meta = json.load(f)
    v = meta["vocab_size"]
    bags = {k: read_bags(os.path.join(d, "bags_%s.txt" % k), v) for k in ("train", "scored", "observed", "heldout")}
    return meta, bags


# ---------------------------------------------------------------- modes


def mode_exact(inp, out):
    """scikit-learn's batch EM steps from a given λ, γ started at 1."""
    with open(inp) as f:
        cfg = json.load(f)
    V, T = cfg["vocab"], cfg["topics"]
    x = bags_from_lists(cfg["docs"], V)
    lda = LatentDirichletAllocation(
        n_components=T,
        learning_method="batch",
        doc_topic_prior=cfg["doc_topic_prior"],
        topic_word_prior=cfg["topic_word_prior"],
        max_doc_update_iter=cfg["max_doc_update_iter"],
        mean_change_tol=cfg["mean_change_tol"],
        random_state=0,
    )
    lda._validate_params()
    x = lda._check_non_neg_array(x, reset_n_features=True, whom="exact")
    lda._init_latent_vars(V, dtype=np.float64)
    lda.components_ = np.array(cfg["lambda"], dtype=np.float64).reshape(T, V)
    lda.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(lda.components_))
    for _ in range(cfg["iters"]):
        # _em_step with random_init=False: the E-step starts γ at 1.
        _, sstats = lda._e_step(x, cal_sstats=True, random_init=False)
        lda.components_ = lda.topic_word_prior_ + sstats
        lda.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(lda.components_))
    res = {
        "lambda": lda.components_.ravel().tolist(),
        "theta": lda.transform(x).ravel().tolist(),
        "score": float(lda.score(x)),
        "sklearn": __import__("sklearn").__version__,
    }
    with open(out, "w") as f:
        json.dump(res, f)


def bags_from_lists(docs, V):
    rows, cols, vals = [], [], []
    for d, pairs in enumerate(docs):
        for w, c in pairs:
            rows.append(d)
            cols.append(w)
            vals.append(float(c))
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(docs), V))


def mode_score(d):
    meta, bags = load_export(d)
    beta = np.load(os.path.join(d, "beta.npy")).astype(np.float64)
    theta = np.load(os.path.join(d, "theta.npy")).astype(np.float64)
    theta_c = np.load(os.path.join(d, "theta_completion.npy")).astype(np.float64)
    got = scores(beta, theta, theta_c, bags["train"], bags["scored"], bags["heldout"])
    want = meta["topics"]
    ok = True
    for k, v in got.items():
        tol = 1e-9 if k in ("npmi", "diversity") else 1e-5
        good = want[k] is not None and abs(v - want[k]) <= tol
        ok &= good
        print("%-26s gtformer %.9f  numpy %.9f  %s" % (k, want[k], v, "ok" if good else "DIFFERENT"))
    return 0 if ok else 1


def sklearn_fit(bags, topics, iters, seed):
    lda = LatentDirichletAllocation(
        n_components=topics, learning_method="batch", max_iter=iters, random_state=seed, n_jobs=1
    )
    t0 = time.time()
    lda.fit(bags["train"])
    secs = time.time() - t0
    beta = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    theta = lda.transform(bags["scored"])
    theta_c = lda.transform(bags["observed"])
    s = scores(beta, theta, theta_c, bags["train"], bags["scored"], bags["heldout"])
    s["seconds"] = secs
    return s


def mean_std(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return float("nan"), float("nan")
    m = sum(xs) / len(xs)
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, s


def mode_compare(a):
    seeds = [int(s) for s in a.seeds.split(",")]
    splits = {"both": [False, True], "no": [False], "only": [True]}[a.valid]
    rows = []
    for ds in a.datasets.split(","):
        data = os.path.join(a.data_root, ds)
        for valid in splits:
            split = "validation" if valid else "test"
            go, sk = [], []
            with tempfile.TemporaryDirectory() as tmp:
                exp = os.path.join(tmp, "export")
                for s in seeds:
                    cmd = [a.gtformer, "baseline", "--data", data, "--method", "lda", "--json",
                           "--seed", str(s), "--topics", str(a.topics), "--lda-iter", str(a.iter)]
                    if valid:
                        cmd.append("--valid")
                    if s == seeds[0]:
                        cmd += ["--export", exp]
                    rep = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                    r = rep["results"][0]
                    t = dict(r["topics"])
                    t["micro_f1"] = r["micro_f1"]
                    t["seconds"] = r["seconds"]
                    go.append(t)
                    print("%s %s gtformer seed %d: %s" % (ds, split, s, json.dumps({k: t[k] for k in KEYS})), file=sys.stderr)
                if mode_score(exp) != 0:
                    sys.exit("%s %s: the numpy scorer disagrees with gtformer's on gtformer's own β and θ" % (ds, split))
                _, bags = load_export(exp)
                for s in seeds:
                    r = sklearn_fit(bags, a.topics, a.iter, s)
                    sk.append(r)
                    print("%s %s sklearn seed %d: %s" % (ds, split, s, json.dumps({k: r[k] for k in KEYS})), file=sys.stderr)
            rows.append((ds, split, go, sk))
    print()
    print("| dataset | scored | implementation | NPMI (%) | diversity | log-perplexity | completion | seconds per fit |")
    print("|---|---|---|---|---|---|---|---|")
    for ds, split, go, sk in rows:
        for name, res in (("gtformer lda", go), ("scikit-learn %s" % __import__("sklearn").__version__, sk)):
            cells = []
            for k, scale, fmt in (("npmi", 100, "%.1f ± %.1f"), ("diversity", 1, "%.3f ± %.3f"),
                                  ("log_perplexity", 1, "%.3f ± %.3f"), ("log_perplexity_completion", 1, "%.3f ± %.3f"),
                                  ("seconds", 1, "%.1f ± %.1f")):
                m, s = mean_std([r[k] for r in res])
                cells.append(fmt % (m * scale, s * scale))
            print("| %s | %s | %s | %s |" % (ds.upper(), split, name, " | ".join(cells)))
    go_f1 = {(ds, split): mean_std([r["micro_f1"] for r in go]) for ds, split, go, _ in rows}
    print()
    for (ds, split), (m, s) in go_f1.items():
        print("gtformer lda kNN Micro-F1 on θ, %s %s: %.1f ± %.1f" % (ds.upper(), split, m, s))


KEYS = ("npmi", "diversity", "log_perplexity", "log_perplexity_completion")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("exact")
    e.add_argument("inp")
    e.add_argument("out")
    s = sub.add_parser("score")
    s.add_argument("dir")
    f = sub.add_parser("fit")
    f.add_argument("dir")
    f.add_argument("--seeds", default="1,2,3,4,5")
    f.add_argument("--topics", type=int, default=13)
    f.add_argument("--iter", type=int, default=100)
    c = sub.add_parser("compare")
    c.add_argument("--gtformer", default="gtformer")
    c.add_argument("--data-root", default="../shared/data")
    c.add_argument("--datasets", default="ml,pl,covid")
    c.add_argument("--seeds", default="1,2,3,4,5")
    c.add_argument("--topics", type=int, default=13)
    c.add_argument("--iter", type=int, default=100)
    c.add_argument("--valid", default="both", choices=["both", "no", "only"])
    a = p.parse_args()
    if a.mode == "exact":
        mode_exact(a.inp, a.out)
    elif a.mode == "score":
        sys.exit(mode_score(a.dir))
    elif a.mode == "fit":
        _, bags = load_export(a.dir)
        for seed in (int(x) for x in a.seeds.split(",")):
            r = sklearn_fit(bags, a.topics, a.iter, seed)
            r["seed"] = seed
            print(json.dumps(r), flush=True)
    else:
        mode_compare(a)


if __name__ == "__main__":
    main()
