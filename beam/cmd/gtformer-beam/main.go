// Command gtformer-beam runs gtformer's embedding pipeline on Apache Beam:
//
//	gtformer-beam embed --input 'PATTERN' --model DIR --out DIR [flags] [Beam flags]
//
// It embeds the new documents of JSON Lines shards (the format of
// gtformer embed --new) with a trained model, on the runner --runner names:
// prism (the default: in this process), flink, spark, dataflow, or any
// portable runner through --endpoint. The model directory must hold the
// corpus states export (gtformer embed --model DIR --data PATH
// --export-states DIR). Every flag of Beam's Go SDK applies (--runner,
// --endpoint, --environment_type, --project, --region, --staging_location,
// --temp_location, ...); `gtformer-beam embed -h` lists them all.
//
// Exit status: 0 when the pipeline ran (records it could not embed are in
// the dead-letter files, and counted), 1 when it could not run, 2 for a
// wrong command line.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/gtformer/gtformer/beam/embedpipe"
)

func main() {
	args := os.Args[1:]
	// A runner starts this binary as a worker with Beam's flags only
	// (--worker, --id, ...): those go straight to beam.Init.
	switch {
	case len(args) > 0 && args[0] == "embed":
		args = args[1:]
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] == '-' && !isHelp(args[0]):
	default:
		fmt.Fprintln(os.Stderr, "usage: gtformer-beam embed --input PATTERN --model DIR --out DIR [flags] (gtformer-beam embed -h lists them)")
		if len(args) > 0 && isHelp(args[0]) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	o := embedpipe.Defaults()
	fs := flag.CommandLine
	fs.StringVar(&o.Input, "input", "", "file `PATTERN` of the JSON Lines shards of new documents ({\"id\", \"text\", \"links\"}, as gtformer embed --new reads); any path Beam's filesystems read")
	fs.StringVar(&o.Model, "model", "", "model `DIR` (gtformer train --out) holding the corpus states export; every worker reads it")
	fs.StringVar(&o.States, "states", "", "`DIR` of the corpus states export if not the model's (gtformer embed --export-states DIR)")
	fs.StringVar(&o.Out, "out", "", "output `DIR`: embeddings-*.jsonl (+ .npy, .ids.jsonl), topic_counts.json, deadletters-*.jsonl")
	fs.IntVar(&o.Rounds, "rounds", o.Rounds, "neighbour rounds: 1 is what gtformer embed --new computes; each more lets a document read one hop further through chains of documents, up to the layers - 1 hops the model can see")
	fs.IntVar(&o.MaxNbrs, "max-nbrs", o.MaxNbrs, "neighbours a document aggregates at most (as gtformer embed --max-nbrs)")
	fs.IntVar(&o.Batch, "batch", o.Batch, "documents per model call inside a worker")
	fs.IntVar(&o.Shards, "shards", o.Shards, "output shards of the embeddings")
	fs.IntVar(&o.DeadShards, "dead-shards", o.DeadShards, "output shards of the dead letters")
	fs.IntVar(&o.TopK, "top-topics", o.TopK, "topics listed per document, the largest θ first")
	fs.IntVar(&o.Waves, "waves", o.Waves, "run the joins over per-link messages (hop features, neighbour states) in this many waves of documents, one after another (1 to 16): Prism holds a running stage's whole input in memory several times over, so its peak memory follows one wave; 1 on a runner that spills to disk (Flink, Dataflow)")
	verbose := fs.Bool("verbose", false, "log the runner's progress (Prism's and the SDK's INFO lines)")
	fs.BoolVar(&o.NPY, "npy", false, "also write the embeddings as .npy shards, float32 (rows, n+1), with one id per row in .ids.jsonl")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (runner and in-process workers) to `FILE`")
	collections := fs.Bool("collections", false, "after the run, list the largest collections the runner reports (elements and estimated bytes): where a runner that holds them in memory, as Prism does, spends it")
	memProfile := fs.String("memprofile", "", "write a heap profile of this process, taken when its heap was largest, to `FILE`")
	if err := fs.Parse(args); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gtformer-beam embed: unexpected argument %q\n", fs.Arg(0))
		os.Exit(2)
	}
	beam.Init() // a worker process runs its bundles here and never returns
	if os.Getenv("GOGC") == "" {
		// Here the job is launched, and on Prism run, in this process:
		// Prism holds every collection between stages in its heap, and
		// the collector's default headroom (a heap twice the live data)
		// doubles that. Half the headroom cost 2,000 new documents on
		// ML a fifth of the peak memory and a fifth more CPU (loaded
		// machine). GOGC set in the environment decides instead.
		debug.SetGCPercent(50)
	}
	// Prism and the SDK log every stage at INFO through the default
	// logger; the command's own lines say what matters.
	if !*verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	if o.Input == "" || o.Model == "" || o.Out == "" {
		fmt.Fprintln(os.Stderr, "gtformer-beam embed: --input, --model and --out are required")
		os.Exit(2)
	}
	stop, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gtformer-beam embed: %v\n", err)
		os.Exit(1)
	}
	code := embed(context.Background(), o, *collections, os.Stdout, os.Stderr)
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "gtformer-beam embed: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "help" }

// embed checks, builds and runs the pipeline on the runner the flags name,
// and prints its counters; it returns the exit code.
func embed(ctx context.Context, o embedpipe.Options, collections bool, stdout, stderr io.Writer) int {
	plan, err := embedpipe.Prepare(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "gtformer-beam embed: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "%d input files; %d neighbour-state stages", len(plan.Files), plan.Stages)
	if plan.RoundsUsed < o.Rounds {
		fmt.Fprintf(stderr, " (--rounds %d: this model reaches as far after %d)", o.Rounds, plan.RoundsUsed)
	}
	fmt.Fprintln(stderr)
	start := time.Now()
	var res beam.PipelineResult
	for attempt := 1; ; attempt++ {
		p := beam.NewPipeline()
		embedpipe.Build(p.Root(), plan)
		res, err = beamx.RunWithMetrics(ctx, p)
		if err == nil {
			break
		}
		if attempt == maxAttempts || !prismProgressRace(err) {
			fmt.Fprintf(stderr, "gtformer-beam embed: %v\n", err)
			return 1
		}
		// The runner's own failure, not the pipeline's: run the job again
		// into an output emptied of what the failed one wrote.
		fmt.Fprintf(stderr, "gtformer-beam embed: attempt %d failed on Prism's progress race (a runner-side stage asked its nil worker for progress); running the job again\n", attempt)
		if err := removeOutputs(ctx, o.Out); err != nil {
			fmt.Fprintf(stderr, "gtformer-beam embed: %v\n", err)
			return 1
		}
	}
	secs := time.Since(start).Seconds()
	counts := counters(res)
	docs := counts["documents"]
	fmt.Fprintf(stdout, "embedded %d documents into %s in %.1f s (%.0f documents/s)\n", docs, o.Out, secs, float64(docs)/secs)
	// A counter never incremented is never reported: list the four anyway.
	for _, n := range []string{"documents", "unknown_links", "errors", "words_dropped"} {
		counts[n] += 0
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "  %s: %d\n", n, counts[n])
	}
	batches(res, stdout)
	if collections {
		listCollections(res, stderr)
	}
	if counts["errors"] > 0 {
		fmt.Fprintf(stderr, "%d records were not embedded: see %s/%s-*.jsonl\n", counts["errors"], o.Out, embedpipe.DeadLettersPrefix)
	}
	return 0
}

// counters sums the pipeline's gtformer counters over its steps (nil when
// the runner reports none).
func counters(res beam.PipelineResult) map[string]int64 {
	out := map[string]int64{}
	if res == nil {
		return out
	}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "gtformer" {
			out[c.Name()] += c.Result()
		}
	}
	return out
}

// batches prints, per model step, how many model calls it made and how
// many documents each took (the model_batch distribution): calls far
// smaller than --batch mean the runner's bundles were too small to batch.
func batches(res beam.PipelineResult, w io.Writer) {
	if res == nil {
		return
	}
	var steps []string
	by := map[string][4]int64{}
	for _, d := range res.Metrics().AllMetrics().Distributions() {
		if d.Namespace() != "gtformer" || d.Name() != "model_batch" {
			continue
		}
		v, step := d.Result(), d.Transform()
		if _, ok := by[step]; !ok {
			steps = append(steps, step)
		}
		by[step] = [4]int64{v.Count, v.Sum, v.Min, v.Max}
	}
	sort.Strings(steps)
	for _, s := range steps {
		v := by[s]
		if v[0] == 0 {
			continue
		}
		fmt.Fprintf(w, "  model calls of %s: %d, %.1f documents each (%d to %d)\n", s, v[0], float64(v[1])/float64(v[0]), v[2], v[3])
	}
}

// listCollections prints the 30 collections of the most estimated bytes
// (elements × their sampled mean size), as the runner reports them.
func listCollections(res beam.PipelineResult, w io.Writer) {
	if res == nil {
		return
	}
	type col struct {
		step         string
		count, bytes int64
	}
	var cols []col
	var total int64
	for _, p := range res.Metrics().AllMetrics().PCols() {
		v := p.Result()
		c := col{step: p.Transform(), count: v.ElementCount}
		if d := v.SampledByteSize; d.Count > 0 {
			c.bytes = v.ElementCount * d.Sum / d.Count
		}
		total += c.bytes
		cols = append(cols, c)
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i].bytes > cols[j].bytes })
	fmt.Fprintf(w, "collections: %d, %.1f MB in all (estimated from sampled sizes)\n", len(cols), float64(total)/(1<<20))
	for _, c := range cols[:min(30, len(cols))] {
		fmt.Fprintf(w, "  %10d elements %9.1f MB  %s\n", c.count, float64(c.bytes)/(1<<20), c.step)
	}
}

// maxAttempts bounds the runs of a job that fails on prismProgressRace.
const maxAttempts = 3

// prismProgressRace reports whether a job failed on a race in Prism
// v2.77.0 itself (runners/prism/internal/stage.go, Execute): a runner-side
// stage (a GroupByKey or Flatten, which has no SDK worker) finishes at
// once, but when its goroutine is descheduled for more than the 100 ms
// progress tick before its select, the tick may be chosen and Progress is
// sent to the nil worker. It shows on a loaded machine, the likelier the
// more stages a pipeline has (the waves add some). The tests of package
// embedpipe rerun such a job the same way.
func prismProgressRace(err error) bool {
	s := err.Error()
	return strings.Contains(s, "panic in stage.Execute") && strings.Contains(s, "nil pointer dereference") &&
		strings.Contains(s, "(*W).sendInstruction(0x0") && strings.Contains(s, "(*B).Progress")
}

// removeOutputs removes the pipeline's files from the output directory
// (Prepare refused to start while it held any), temporary ones too.
func removeOutputs(ctx context.Context, dir string) error {
	for _, name := range []string{embedpipe.EmbeddingsPrefix + "-*", embedpipe.DeadLettersPrefix + "-*", embedpipe.TopicCountsFile + "*"} {
		pattern := strings.TrimSuffix(dir, "/") + "/" + name
		fs, err := filesystem.New(ctx, pattern)
		if err != nil {
			return err
		}
		files, err := fs.List(ctx, pattern)
		if err == nil && len(files) > 0 {
			rm, ok := fs.(filesystem.Remover)
			if !ok {
				err = fmt.Errorf("output %s: cannot remove %s from a failed attempt on this filesystem", dir, files[0])
			}
			for _, f := range files {
				if err == nil {
					err = rm.Remove(ctx, f)
				}
			}
		}
		fs.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
