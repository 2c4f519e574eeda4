package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gtformer/gtformer/bench"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure sgemm and transformer-layer step throughput of this build",
		run:     runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "[--json] [--time 3s] [--runs 3]", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object {blas, sgemm_gflops, step_gflops, ratio}")
	minTime := fs.Duration("time", 3*time.Second, "minimum measuring time per benchmark (the best run counts)")
	runs := fs.Int("runs", 3, "minimum number of timed runs per benchmark")
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
	r := bench.Run(*runs, *minTime)
	if *asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding result: %w", err)
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	c := bench.DefaultLayer
	_, err := fmt.Fprintf(stdout, "blas: %s\nsgemm 1024³: %.1f GFLOP/s\ntransformer layer step (B=%d T=%d C=%d heads=%d MLP=%d, %.1f GFLOP): %.1f GFLOP/s\nratio step/sgemm: %.2f\n",
		r.BLAS, r.SgemmGFLOPS, c.Batch, c.Tokens, c.Width, c.Heads, c.Hidden, bench.StepFLOPs(c)/1e9, r.StepGFLOPS, r.Ratio)
	return err
}
