package main

import (
	"fmt"
	"io"

	"github.com/gtformer/gtformer/explore"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write the topic-tree explorer as one self-contained HTML file",
		run:     runReport,
	})
}

func runReport(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("report", "--model DIR [--data PATH] --out FILE.html", stderr)
	d.registerLoad(fs)
	allow := allowCorpusFlag(fs, "report on")
	dir := modelDirFlag(fs)
	out := fs.String("out", "", "the HTML `FILE` to write (an existing file is replaced only if it is a gtformer report)")
	def := explore.DefaultReportOptions()
	maxDocs := fs.Int("max-docs", def.MaxDocs, "documents the report holds at most (a fixed sample; about 3 KB each)")
	describe(fs, stderr, "--model DIR [--data PATH] --out FILE.html", `
Writes the explorer of gtformer serve as one HTML file with its data and
script inlined: the topic tree, every topic's panel and facet charts, the
link map of every level, the Poincaré disk with a sample of at most
--max-docs documents (the density layer counts them all), their panels and
nearest documents, and word search over the topics' top words. It opens from disk with no server and no network; embedding new text
needs gtformer serve. The file is written atomically.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" || *out == "" {
		return usagef("--model and --out are required")
	}
	if *maxDocs < 1 {
		return usagef("--max-docs must be positive, got %d", *maxDocs)
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
	opt := def
	opt.MaxDocs = *maxDocs
	if err := ix.WriteReport(*out, opt); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d topics, %d of %d documents)\n", *out, ix.Info().Topics, min(*maxDocs, ix.NumDocs()), ix.NumDocs())
	return nil
}
