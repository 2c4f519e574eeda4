# Sourced by bench/scale.sh and bench/quality.sh: the work folder, the
# binary they run, and the links of a synthetic corpus of N documents.

# bench_work NAME: WORK, or a new temporary folder named after NAME,
# created and printed.
bench_work() {
  WORK=${WORK:-$(mktemp -d -t "gtformer-$1.XXXXXX")}
  mkdir -p "$WORK"
  echo "work directory: $WORK" >&2
}

# bench_bin [NOTE]: bin is GTFORMER, or gtformer built into WORK; prints
# the build (commit, Go version, NOTE).
bench_bin() {
  bin=${GTFORMER:-}
  if [ -z "$bin" ]; then
    bin="$WORK/gtformer"
    go build -o "$bin" ./cmd/gtformer
  fi
  echo "build: $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)${1:+, $1}" >&2
}

# synth_links N: the links of an N-document corpus at the 445K / 1M
# density of the paper's Web graph.
synth_links() {
  echo $(( ($1 * 1000000 + 222500) / 445000 ))
}
