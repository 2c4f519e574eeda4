#!/usr/bin/env bash
# Scale table for docs/benchmarks.md: generates synthetic corpora of 10K,
# 50K, 100K and 445K documents (1M links at 445K, the same links per
# document below), trains each with
#   gtformer train --data <corpus> --epochs 2 --steps-per-epoch 300
# under /usr/bin/time -v, and prints a markdown table of every phase's wall
# time (metrics.json "phases") and the peak RSS.
#
# Usage: bench/scale.sh [SIZE ...]        (default: 10000 50000 100000 445000)
# Environment:
#   WORK=DIR        corpora, run folders and logs (default: a new temporary
#                   directory, printed first; kept for a later look)
#   GTFORMER=PATH   binary to run (default: built here; it loads OpenBLAS at
#                   run time when installed, GTFORMER_BLAS picks a path)
#   EXTRA="..."     extra flags for gtformer train
# Runs one size at a time (445K needs about 16 GB); run it on an idle
# machine for figures worth recording, and name the build (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib.sh
bench_work scale
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 50000 100000 445000)

if ! [ -x /usr/bin/time ]; then
  echo "scale.sh: /usr/bin/time is missing (apt-get install time)" >&2
  exit 1
fi
bench_bin "BLAS from the run log below"

for n in "${sizes[@]}"; do
  links=$(synth_links "$n")
  data="$WORK/synth$n"
  if ! [ -f "$data/links.txt" ]; then
    "$bin" data synth --docs "$n" --links "$links" --out "$data" >&2
  fi
  out="$WORK/run$n"
  rm -rf "$out"
  echo "== $n documents, $links links" >&2
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$WORK/time$n.txt" "$bin" train --data "$data" --epochs 2 --steps-per-epoch 300 --out "$out" ${EXTRA:-} \
    >"$WORK/stdout$n.txt" 2>"$WORK/log$n.txt"
  grep -m1 "^training on" "$WORK/log$n.txt" >&2 || true
done

# The table: one row per phase (in the order a run goes through them), one column
# per size; then the total wall time and the peak RSS.
awk -v sizes="${sizes[*]}" -v work="$WORK" '
function readphases(n,   f, line, inph, k, v) {
  f = work "/run" n "/metrics.json"
  inph = 0
  while ((getline line < f) > 0) {
    if (line ~ /"phases": \{/) { inph = 1; continue }
    if (inph && line ~ /^ *\}/) { inph = 0; continue }
    if (inph) {
      k = line; sub(/^ *"/, "", k); sub(/".*/, "", k)
      v = line; sub(/.*: */, "", v); sub(/,$/, "", v)
      secs[n, k] = v
      if (!(k in seen)) { seen[k] = 1; extra[++nx] = k }
    }
  }
  close(f)
  f = work "/time" n ".txt"
  while ((getline line < f) > 0) {
    if (line ~ /Maximum resident set size/) { v = line; sub(/.*: */, "", v); rss[n] = v / 1048576 }
    if (line ~ /Elapsed \(wall clock\)/) { v = line; sub(/.*\): */, "", v); wall[n] = v }
  }
  close(f)
}
BEGIN {
  ns = split(sizes, sz, " ")
  for (i = 1; i <= ns; i++) readphases(sz[i])
  # metrics.json lists the phases by name; the table lists them in the
  # order a run goes through them, then any others.
  np = split("load|split and sampler|tf-idf|features|topic start|cache refresh|steps|validation|growth|final embedding|evaluation|outputs|plots", order, "|")
  for (p = 1; p <= np; p++) known[order[p]] = 1
  for (x = 1; x <= nx; x++) if (!(extra[x] in known)) order[++np] = extra[x]
  hdr = "| phase (s) |"; sep = "|---|"
  for (i = 1; i <= ns; i++) { hdr = hdr sprintf(" %dK |", sz[i] / 1000); sep = sep "---:|" }
  print hdr; print sep
  for (p = 1; p <= np; p++) {
    row = "| " order[p] " |"
    for (i = 1; i <= ns; i++) row = row ((sz[i], order[p]) in secs ? sprintf(" %.1f |", secs[sz[i], order[p]]) : " - |")
    print row
  }
  row = "| wall clock (h:mm:ss) |"
  for (i = 1; i <= ns; i++) row = row " " (sz[i] in wall ? wall[sz[i]] : "-") " |"
  print row
  row = "| peak RSS (GB) |"
  for (i = 1; i <= ns; i++) row = row (sz[i] in rss ? sprintf(" %.2f |", rss[sz[i]]) : " - |")
  print row
}'
