package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gtformer/gtformer/bench"
	"github.com/gtformer/gtformer/tensor"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure sgemm and transformer-layer step throughput of every BLAS path, and the whole model's step and embedding rate",
		run:     runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "[--json] [--time 3s] [--runs 3] [--paths all|NAME,…] [--one-core] [--docs 1024]", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object {blas, blas_source, sgemm_gflops, step_gflops, ratio, one_core, paths: [{blas, sgemm_gflops, step_gflops, sgemm_ratio, step_ratio}], model_step_docs_per_s, model_step_gflops, model_step_ratio, embed_docs_per_s}")
	minTime := fs.Duration("time", 3*time.Second, "minimum measuring time per path and benchmark (the best run counts)")
	runs := fs.Int("runs", 3, "minimum number of timed runs per path and benchmark")
	pathList := fs.String("paths", "all", "BLAS paths to measure: all, or a comma-separated list of names (the path in use is always measured)")
	oneCore := fs.Bool("one-core", false, "measure on one core in thread CPU time: figures that hardly depend on other load (Linux)")
	setup := bench.DefaultModelSetup
	fs.IntVar(&setup.Docs, "docs", setup.Docs, "documents of the synthetic corpus the model steps on and embeds")
	describe(fs, stderr, "[--json] [--time 3s] [--runs 3] [--paths all|NAME,…] [--one-core] [--docs 1024]", `
Measures sgemm (1024³) and one transformer layer's training step on the BLAS
path in use and, in the same run, on every other path this machine has
(openblas-runtime when OpenBLAS is installed, go-avx512 / go-avx2 by CPU,
gonum), alternating between them so that other load falls on all alike.
Ratios are to the path in use. Then, on the path in use, the default
model's training step on a synthetic corpus shaped like Cora ML (--docs
documents, two hops) as documents/s and GFLOP/s with its ratio to the
same run's sgemm (model_step_ratio), and the embedding of new documents
into that corpus as embed --new does (embed_docs_per_s). On a busy
machine, --one-core measures one core's throughput in CPU time, which
other load hardly changes.
GTFORMER_BLAS chooses the path in use (auto, go, or a path's name);
GTFORMER_BLAS_LIB names a BLAS library to load.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	if *minTime < 0 {
		return usagef("--time must not be negative, got %v", *minTime)
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, got %d", *runs)
	}
	var names []string
	if *pathList != "all" {
		for _, n := range strings.Split(*pathList, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return usagef("--paths: no path named in %q", *pathList)
		}
		for _, n := range names {
			if !slices.Contains(tensor.BLASPaths(), n) {
				return usagef("--paths: %q is not available here (available: %s)", n, strings.Join(tensor.BLASPaths(), ", "))
			}
		}
	}
	if setup.Docs < 2*setup.BatchLinks {
		return usagef("--docs must be at least %d (the batch's %d links need distinct ends), got %d", 2*setup.BatchLinks, setup.BatchLinks, setup.Docs)
	}
	r, err := bench.Run(bench.Options{Paths: names, MinRuns: *runs, MinTime: *minTime, OneCore: *oneCore, Model: &setup})
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding result: %w", err)
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	c := bench.DefaultLayer
	fmt.Fprintf(stdout, "blas: %s: %s\n", r.BLAS, r.BLASSource)
	if r.OneCore {
		fmt.Fprintf(stdout, "(one core, thread CPU time)\n")
	}
	fmt.Fprintf(stdout, "sgemm 1024³: %.1f GFLOP/s\ntransformer layer step (B=%d T=%d C=%d heads=%d MLP=%d, %.1f GFLOP): %.1f GFLOP/s\nratio step/sgemm: %.2f\n",
		r.SgemmGFLOPS, c.Batch, c.Tokens, c.Width, c.Heads, c.Hidden, bench.StepFLOPs(c)/1e9, r.StepGFLOPS, r.Ratio)
	fmt.Fprintf(stdout, "model training step (default configuration, two hops, %d documents, %d links per step): %.0f docs/s, %.1f GFLOP/s\nratio model step/sgemm: %.2f\nembedding new documents (two hops): %.0f docs/s\n\n",
		setup.Docs, setup.BatchLinks, r.ModelStepDocsPerSec, r.ModelStepGFLOPS, r.ModelStepRatio, r.EmbedDocsPerSec)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "path\tsgemm GFLOP/s\tstep GFLOP/s\tsgemm ratio\tstep ratio\t\n")
	for _, p := range r.Paths {
		mark := ""
		if p.BLAS == r.BLAS {
			mark = " (in use)"
		}
		fmt.Fprintf(tw, "%s%s\t%.1f\t%.1f\t%.2f\t%.2f\t\n", p.BLAS, mark, p.SgemmGFLOPS, p.StepGFLOPS, p.SgemmRatio, p.StepRatio)
	}
	return tw.Flush()
}
