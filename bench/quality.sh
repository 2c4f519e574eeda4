#!/usr/bin/env bash
# Time to quality for docs/benchmarks.md: generates synthetic corpora with
# leaf labels (gtformer data synth --docs N --links N·1M/445K --labels leaf:
# 445K documents have 1M links), trains each with the default `gtformer
# train` under /usr/bin/time -v, scores tfidf-sign and LDA beside it with
# `gtformer baseline`, and prints, per size: the wall time and peak RSS of
# each command, the test figures beside the baselines', the learning curve
# (minutes since the start against validation kNN, link AUC and planted
# recovery NMI, from the last checkpoint's history) and each phase's peak
# resident set (metrics.json phase_peak_rss_gb).
#
# Usage: bench/quality.sh [SIZE ...]        (default: 10000 100000 445000)
# Environment:
#   WORK=DIR        corpora, runs and logs (default: a new temporary
#                   directory, printed first; kept for a later look)
#   GTFORMER=PATH   binary to run (default: built here)
#   EXTRA="..."     extra flags for gtformer train
#   BASELINES=0     skip the baselines
# One size at a time; run it on an idle machine for figures worth
# recording, and name the build (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib.sh
bench_work quality
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 445000)
for tool in /usr/bin/time python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "quality.sh: $tool is missing (apt-get install time python3)" >&2
    exit 1
  fi
done
bench_bin

for n in "${sizes[@]}"; do
  links=$(synth_links "$n")
  data="$WORK/synth$n"
  if ! [ -f "$data/links.txt" ]; then
    "$bin" data synth --docs "$n" --links "$links" --labels leaf --out "$data" >&2
  fi
  out="$WORK/run$n"
  rm -rf "$out"
  echo "== $n documents, $links links: train" >&2
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$WORK/time$n.txt" "$bin" train --data "$data" --out "$out" ${EXTRA:-} \
    >"$WORK/stdout$n.txt" 2>"$WORK/log$n.txt"
  if [ "${BASELINES:-1}" != 0 ]; then
    for m in tfidf-sign lda; do
      echo "== $n documents: baseline $m" >&2
      fit=()
      [ "$m" = lda ] && fit=(--lda-fit-docs 20000)
      /usr/bin/time -v -o "$WORK/time$n-$m.txt" "$bin" baseline --data "$data" --method "$m" "${fit[@]}" --json \
        >"$WORK/base$n-$m.json" 2>"$WORK/log$n-$m.txt"
    done
  fi
done

python3 - "$WORK" "${sizes[@]}" <<'EOF'
import glob, json, os, re, sys

work, sizes = sys.argv[1], sys.argv[2:]

def timing(path):
    """wall seconds and peak RSS (GB) from /usr/bin/time -v's report."""
    if not os.path.exists(path):
        return None, None
    text = open(path).read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    parts = [float(p) for p in m.group(1).split(":")]
    wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1e6
    return wall, rss

def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"

for n in sizes:
    run = f"{work}/run{n}"
    met = json.load(open(f"{run}/metrics.json"))
    wall, rss = timing(f"{work}/time{n}.txt")
    test = met["test"]
    print(f"\n### {int(n):,} documents\n")
    print("| command | wall (min) | peak RSS (GB) | kNN Micro-F1 (leaf) | link AUC |")
    print("|---|---:|---:|---:|---:|")
    print(f"| gtformer train (default) | {wall/60:.1f} | {rss:.2f} | {fmt(test.get('knn_micro_f1'))} | {fmt(test.get('link_auc'))} |")
    for m in ("tfidf-sign", "lda"):
        w, r = timing(f"{work}/time{n}-{m}.txt")
        if w is None:
            continue
        for row in json.load(open(f"{work}/base{n}-{m}.json"))["results"]:
            print(f"| baseline {row['method']} | {w/60:.1f} | {r:.2f} | {fmt(row.get('micro_f1'))} | {fmt(row.get('link_auc_cosine'))} |")
    rec = met.get("topics", {}).get("recovery_nmi")
    print(f"\nplanted recovery NMI (test run): {fmt(rec, 3)}; training steps: {met.get('epochs')} epochs")
    last = sorted(glob.glob(f"{run}/checkpoint/*/trainer.json"))[-1]
    tj = json.load(open(last))
    spe = tj["options"].get("steps_per_epoch", 0)
    print(f"steps per epoch: {spe or 'one pass'}\n")
    print("| epoch | minutes | valid kNN | valid AUC | valid recovery NMI |")
    print("|---:|---:|---:|---:|---:|")
    for h in tj["history"]:
        print(f"| {h['epoch']} | {h.get('elapsed_seconds', 0)/60:.1f} | {fmt(h.get('valid_knn_micro_f1'))} | "
              f"{fmt(h.get('valid_link_auc'))} | {fmt(h.get('valid_recovery_nmi'), 3)} |")
    peaks = met.get("phase_peak_rss_gb", {})
    secs = met.get("phases", {})
    print("\n| phase | seconds | peak RSS (GB) |")
    print("|---|---:|---:|")
    for ph, s in secs.items():
        print(f"| {ph} | {s:.1f} | {fmt(peaks.get(ph))} |")
EOF
