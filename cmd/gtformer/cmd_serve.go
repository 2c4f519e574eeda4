package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/serve"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve a trained model: HTTP API and the topic-tree explorer page",
		run:     runServe,
	})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("serve", "--model DIR [--data PATH] [--addr 127.0.0.1:8080]", stderr)
	d.registerLoad(fs)
	allow := fs.Bool("allow-different-corpus", false, "serve a corpus other than the one the model was trained on (its vocabulary must still be the model's)")
	dir := fs.String("model", "", "model `DIR` written by gtformer train --out")
	addr := fs.String("addr", "127.0.0.1:8080", "`HOST:PORT` to listen on; the default binds to this machine only (port 0: any free port)")
	def := serve.DefaultOptions()
	maxBody := fs.Int64("max-body", def.MaxBody, "largest request body in bytes (413 beyond)")
	maxDocs := fs.Int("max-docs", def.MaxDocs, "most documents in one POST /v1/embed (413 beyond)")
	maxConc := fs.Int("max-concurrent", def.MaxConcurrent, "API requests in flight at once (429 with Retry-After beyond)")
	maxEmbed := fs.Int("max-embed", def.MaxEmbed, "embed requests in flight at once (429 with Retry-After beyond)")
	grace := fs.Duration("grace", 10*time.Second, "on SIGINT/SIGTERM, how long requests in flight may take to finish")
	describe(fs, stderr, "--model DIR [--data PATH] [--addr 127.0.0.1:8080]", `
Serves a trained model and the corpus it was trained on (--data, as for
train; empty: the built-in corpus) over HTTP: the explorer page at / and the
JSON API under /v1/ (info, tree, topics, documents, words, search, layout,
doc-topic CSV, POST embed and neighbors; see the README). The documents'
embeddings come from the model folder's doc_embeddings.npy and
doc_topics.npy, or are computed at start when those are missing. SIGINT or
SIGTERM stops the server gracefully.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--model is required")
	}
	if *maxBody < 1 || *maxDocs < 1 || *maxConc < 1 || *maxEmbed < 1 {
		return usagef("--max-body, --max-docs, --max-concurrent and --max-embed must be positive")
	}
	// Signals are caught from here on, before the slow load, so that an
	// early Ctrl-C still ends the command through the same path.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The documents' embeddings do not depend on the split.
	m, _, g, _, err := loadModelAndCorpus(*dir, &d, *allow, stderr, "split")
	if err != nil {
		return err
	}
	start := time.Now()
	ix, err := explore.Open(*dir, m, g)
	if err != nil {
		return err
	}
	info := ix.Info()
	fmt.Fprintf(stderr, "indexed %d documents and %d topics in %.1fs (embeddings: %s)\n", info.Documents, info.Topics, time.Since(start).Seconds(), info.Embeddings)
	opt := def
	opt.MaxBody, opt.MaxDocs, opt.MaxConcurrent, opt.MaxEmbed = *maxBody, *maxDocs, *maxConc, *maxEmbed
	err = serve.ListenAndServe(ctx, *addr, serve.New(ix, opt), *grace, func(a net.Addr) {
		fmt.Fprintf(stdout, "serving %s on http://%s/ (Ctrl-C stops)\n", d.source(), a)
	})
	if err == nil {
		fmt.Fprintln(stdout, "stopped")
	}
	return err
}
