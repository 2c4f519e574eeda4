package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/gtformer/gtformer/dataset"
)

func init() {
	register(&command{
		name:    "data download",
		summary: "download the benchmark datasets (ml, pl, covid, ds), SHA-256 checked",
		run:     runDataDownload,
	})
}

func runDataDownload(args []string, stdout, stderr io.Writer) error {
	synopsis := "NAME... [--to DIR] [--base-url URL]"
	fs := newFlagSet("data download", synopsis, stderr)
	to := fs.String("to", "data", "`DIR` to download into; dataset NAME lands in DIR/NAME")
	base := fs.String("base-url", os.Getenv(dataset.BaseURLEnv), "`URL` replacing "+dataset.DefaultBaseURL+" in every address (a mirror; default $"+dataset.BaseURLEnv+")")
	describe(fs, stderr, synopsis, `
Downloads the paper's benchmark datasets from their public addresses:
`+strings.Join(dataset.Names(), ", ")+` (or all). Every file is checked
against its pinned SHA-256 and written atomically (temporary file, then
rename): a mismatch, an HTTP error or a cut-off download leaves nothing
behind. Files already present with the right hash are skipped, so the
command can be re-run after a failure. ml and pl include GloVe word vectors
(word_embeddings_glove_300d.txt) taken from a zip; ds arrives as ds.zip and
is extracted to DIR/ds.`)
	// Flags may come before or after the names.
	var names []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) == 0 {
		return usagef("name a dataset to download: %s or all", strings.Join(dataset.Names(), ", "))
	}
	if len(names) == 1 && names[0] == "all" {
		names = dataset.Names()
	}
	var files []dataset.File
	for _, n := range names {
		fs, err := dataset.Files(n)
		if err != nil {
			return usagef("%v", err)
		}
		files = append(files, fs...)
	}
	if *to == "" {
		return usagef("--to DIR must not be empty")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d := &dataset.Downloader{BaseURL: *base, Progress: stderr, Log: stdout}
	if err := d.Fetch(ctx, *to, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ready in %s\n", strings.Join(names, ", "), *to)
	return nil
}
