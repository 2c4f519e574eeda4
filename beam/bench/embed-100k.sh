#!/usr/bin/env bash
# Measures gtformer-beam embed on Prism against gtformer embed --new on the
# same input: a model trained on a synthetic corpus (gtformer data synth),
# then NEW synthetic documents (default 100,000) that link to each other
# and to the trained corpus, embedded both ways. Prints documents/s, wall
# time and peak memory (max RSS) of each. (That the two give the same
# numbers is what beam/embedpipe's tests check, on ML.)
#
#   beam/bench/embed-100k.sh [WORKDIR]       (NEW=100000 TRAIN=20000 by default;
#                                             WORKDIR defaults to a new temporary directory)
#
# Run it on an idle machine: the figures in docs/benchmarks.md come from it.
# Environment: NEW, TRAIN (documents), WIDTH (model width, default 128),
# EPOCHS (default 1), TAGS (build tags for both binaries; the BLAS path is chosen at run time: GTFORMER_BLAS),
# BEAMFLAGS (more flags for gtformer-beam embed, e.g. "--memprofile WORKDIR/beam.mem --collections"
# to see where its memory goes: go tool pprof -sample_index=inuse_space; "--waves 1" to run the
# per-link joins in one wave, as before the waves).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
W=${1:-$(mktemp -d -t gtformer-beam-bench.XXXXXX)}
echo "work directory: $W" >&2
NEW=${NEW:-100000}
TRAIN=${TRAIN:-20000}
WIDTH=${WIDTH:-128}
EPOCHS=${EPOCHS:-1}
TAGS=${TAGS:-}
mkdir -p "$W"
go build ${TAGS:+-tags $TAGS} -o "$W/gtformer" ./cmd/gtformer
(cd beam && go build ${TAGS:+-tags $TAGS} -o "$W/gtformer-beam" ./cmd/gtformer-beam && go build -o "$W/mknewdocs" ./bench/mknewdocs)

# The trained corpus and the new documents: two synthetic corpora with the
# same tree shape and vocabulary, different seeds.
[ -d "$W/train" ] || "$W/gtformer" data synth --out "$W/train" --docs "$TRAIN" --links $((2 * TRAIN)) --vocab 2000 --seed 1
[ -d "$W/newsrc" ] || "$W/gtformer" data synth --out "$W/newsrc" --docs "$NEW" --links $((2 * NEW)) --vocab 2000 --seed 2
[ -f "$W/model/weights.safetensors" ] || "$W/gtformer" train --data "$W/train" --out "$W/model" --width "$WIDTH" --epochs "$EPOCHS" --quiet
"$W/gtformer" embed --model "$W/model" --data "$W/train" --export-states "$W/model"
rm -rf "$W/new" && "$W/mknewdocs" --data "$W/newsrc" --known "$TRAIN" --out "$W/new" --shards 16

measure() { # name, command...: wall seconds, max RSS (kB), user and system CPU seconds into $W/<name>.time
  local name=$1; shift
  /usr/bin/time -f '%e %M %U %S' -o "$W/$name.time" "$@" >"$W/$name.log" 2>&1 || { cat "$W/$name.log"; exit 1; }
}
rm -rf "$W/out"
measure single "$W/gtformer" embed --model "$W/model" --data "$W/train" --new "$W/new/all.jsonl.txt" --out "$W/single.npy"
measure beam "$W/gtformer-beam" embed --input "$W/new/new-*.jsonl" --model "$W/model" --out "$W/out" --runner prism --npy ${BEAMFLAGS:-}

# Both must have embedded every document: a figure over fewer would flatter.
embedded=$(sed -n 's/^embedded \([0-9]*\) documents.*/\1/p' "$W/beam.log")
errors=$(sed -n 's/^  errors: \([0-9]*\)$/\1/p' "$W/beam.log")
rows=$(head -c 256 "$W/single.npy" | grep -ao "'shape': ([0-9]*" | grep -o '[0-9]*$')
if [ "$embedded" != "$NEW" ] || [ "$errors" != 0 ] || [ "$rows" != "$NEW" ]; then
  echo "want $NEW documents embedded by both: gtformer-beam embedded ${embedded:-?} (${errors:-?} dead letters, see $W/out), embed --new wrote ${rows:-?} rows" >&2
  cat "$W/beam.log" >&2
  exit 1
fi

read -r s_secs s_kb s_user s_sys <"$W/single.time"
read -r b_secs b_kb b_user b_sys <"$W/beam.time"
echo "documents: $NEW new, linked to a trained corpus of $TRAIN (width $WIDTH, $(nproc) cores)"
# The rows of docs/benchmarks.md's table (time, documents/s, max RSS), and
# its build line.
awk -v n="$NEW" -v s="$s_secs" -v k="$s_kb" 'BEGIN { printf "| `gtformer embed --new` (one process, whole input in memory) | %.1f s | %.0f | %.0f MB |\n", s, n / s, k / 1024 }'
awk -v n="$NEW" -v s="$b_secs" -v k="$b_kb" 'BEGIN { printf "| `gtformer-beam embed`, Prism runner | %.1f s | %.0f | %.0f MB |\n", s, n / s, k / 1024 }'
# CPU seconds (user + system): on a busy machine the comparable figure, as
# wall time then follows the share of the CPU each run was given.
awk -v n="$NEW" -v su="$s_user" -v ss="$s_sys" -v bu="$b_user" -v bs="$b_sys" 'BEGIN { printf "CPU seconds: embed --new %.1f (%.0f documents per CPU second), gtformer-beam %.1f (%.0f)\n", su + ss, n / (su + ss), bu + bs, n / (bu + bs) }'
echo "Build: commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with local changes)'), $(go version | cut -d' ' -f3), tags: ${TAGS:-none}."
grep -E 'embedded|errors|unknown_links|words_dropped|model calls' "$W/beam.log"
