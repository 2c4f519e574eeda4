package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/serve"
	"github.com/gtformer/gtformer/tensor"
)

func init() {
	register(&command{
		name:    "bench serve",
		summary: "load-test the HTTP API on loopback (bounded): p50/p99 latency and requests/s",
		run:     runBenchServe,
	})
}

func runBenchServe(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("bench serve", "--model DIR [--data PATH] [--requests N] [--duration D] [--concurrency C]", stderr)
	d.registerLoad(fs)
	allow := allowCorpusFlag(fs, "load-test")
	dir := modelDirFlag(fs)
	requests := fs.Int("requests", 2000, "requests per endpoint at most")
	duration := fs.Duration("duration", 30*time.Second, "time per endpoint at most")
	conc := fs.Int("concurrency", 4, "requests in flight")
	batch := fs.Int("embed-batch", 16, "documents per POST /v1/embed")
	describe(fs, stderr, "--model DIR [--data PATH] [--requests N] [--duration D] [--concurrency C]", `
Starts gtformer serve's API in this process on a free port of 127.0.0.1 and
loads GET /v1/tree, GET /v1/documents/{id} and POST /v1/embed (batches of
--embed-batch corpus documents under new ids, linked to their neighbours),
each until --requests requests or --duration, whichever comes first. Prints
p50 and p99 latency and requests per second as a Markdown table, and fails
if any request failed or goroutines outlived the server. Run it on an idle
machine: figures from a busy one are not comparable.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--model is required")
	}
	if *requests < 1 || *duration <= 0 || *conc < 1 || *batch < 1 {
		return usagef("--requests, --duration, --concurrency and --embed-batch must be positive")
	}
	// The documents' embeddings do not depend on the split.
	m, _, g, _, err := loadModelAndCorpus(*dir, &d, *allow, stderr, "split")
	if err != nil {
		return err
	}
	ix, err := explore.Open(*dir, m, g)
	if err != nil {
		return err
	}
	res, leaked, err := serve.Bench(context.Background(), ix, serve.BenchOptions{
		Load:       serve.LoadOptions{Requests: *requests, Duration: *duration, Concurrency: *conc},
		EmbedBatch: *batch,
	})
	if res == nil {
		return err
	}
	fmt.Fprintf(stdout, "%s, %d documents, width %d, %s BLAS, %d in flight, at most %d requests or %v per endpoint\n\n",
		d.source(), ix.NumDocs(), m.Cfg.Width, tensor.BLASName(), *conc, *requests, *duration)
	fmt.Fprintln(stdout, "| endpoint | requests | errors | p50 | p99 | requests/s |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for _, r := range res {
		fmt.Fprintf(stdout, "| %s | %d | %d | %s | %s | %.1f |\n", r.Name, r.Requests, r.Errors, ms(r.P50), ms(r.P99), r.PerSecond)
	}
	if err != nil {
		return err // the runs are printed; the server did not stop cleanly
	}
	fmt.Fprintf(stdout, "\ngoroutines left after shutdown: %d\n", leaked)
	for _, r := range res {
		if r.Errors > 0 {
			return fmt.Errorf("%s: %d of %d requests failed, first: %s", r.Name, r.Errors, r.Requests, r.FirstErr)
		}
	}
	if leaked > 0 {
		return fmt.Errorf("%d goroutines outlived the server", leaked)
	}
	return nil
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
