package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gtformer/gtformer/corpus"
)

func init() {
	register(&command{
		name:    "data stats",
		summary: "print a corpus's size, degree and length distributions, and split sizes",
		run:     runDataStats,
	})
	register(&command{
		name:    "data validate",
		summary: "check a corpus and report the first problem by file and line",
		run:     runDataValidate,
	})
}

// describe replaces fs's usage with synopsis, a description, and the flags.
func describe(fs *flag.FlagSet, stderr io.Writer, synopsis, text string) {
	fs.Usage = func() { printUsage(stderr, fs, synopsis, text, helpAll(fs)) }
}

func runDataStats(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("data stats", "[--data PATH] [--json]", stderr)
	d.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	describe(fs, stderr, "[--data PATH] [--json]", `
Loads a corpus and prints documents, undirected links, vocabulary size,
tokens, labels, isolated documents, the degree and length distributions, and
the split sizes (training documents include the validation documents).`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (give the corpus with --data)", fs.Arg(0))
	}
	g, err := d.load()
	if err != nil {
		return err
	}
	s := d.makeSplit(g)
	st := corpus.ComputeStats(g, s, d.splitName())
	var kn *knnInfo
	if g.LinksInduced {
		exact, work := d.knnExact(g)
		kn = &knnInfo{K: d.knnK, Exact: exact, Work: work, Budget: d.knnBudget}
	}
	if *asJSON {
		out := struct {
			Data string `json:"data"`
			corpus.Stats
			KNN        *knnInfo `json:"knn,omitempty"`
			LabelNames []string `json:"label_names"`
		}{d.source(), st, kn, g.LabelNames}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return writeStatsText(stdout, d.source(), g, st, kn)
}

// knnInfo describes an induced link graph.
type knnInfo struct {
	K      int   `json:"k"`
	Exact  bool  `json:"exact"`
	Work   int64 `json:"work"`   // Σ df², the work of an exact graph
	Budget int64 `json:"budget"` // --knn-budget
}

func writeStatsText(w io.Writer, source string, g *corpus.Graph, st corpus.Stats, kn *knnInfo) error {
	links := "from the input"
	if kn != nil {
		links = fmt.Sprintf("induced: tf-idf kNN, κ = %d, exact", kn.K)
		if !kn.Exact {
			links = fmt.Sprintf("induced: tf-idf kNN, κ = %d, approximate: an exact graph needs --knn-budget %d, given %d", kn.K, kn.Work, kn.Budget)
		}
	}
	vectors := "none"
	if st.WordDim > 0 {
		vectors = fmt.Sprintf("%d-dimensional", st.WordDim)
	}
	labels := "none"
	if st.Labels > 0 {
		labels = fmt.Sprintf("%d (%s)", st.Labels, strings.Join(g.LabelNames, " | "))
	}
	dist := func(d corpus.Distribution) string {
		return fmt.Sprintf("min %d, p10 %.0f, median %.0f, mean %.2f, p90 %.0f, p99 %.0f, max %d",
			d.Min, d.P10, d.Median, d.Mean, d.P90, d.P99, d.Max)
	}
	rows := [][2]string{
		{"corpus", fmt.Sprintf("%s (%s)", st.Name, source)},
		{"documents", fmt.Sprintf("%d (%d isolated, %d empty)", st.Docs, st.IsolatedDocs, st.EmptyDocs)},
		{"links", fmt.Sprintf("%d undirected (%s)", st.Links, links)},
		{"vocabulary", fmt.Sprintf("%d words (word vectors: %s)", st.Vocab, vectors)},
		{"tokens", fmt.Sprint(st.Tokens)},
		{"labels", labels},
		{"degree", dist(st.Degree)},
		{"length", dist(st.Length)},
		{"split", fmt.Sprintf("%s: %d train (%d of them validation), %d test", st.Split, st.TrainDocs, st.ValidDocs, st.TestDocs)},
		{"split links", fmt.Sprintf("%d train, %d test (held out), %d test-train; %d test documents without a training neighbour",
			st.TrainLinks, st.TestLinks, st.CrossLinks, st.TestIsolated)},
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-12s %s\n", r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

func runDataValidate(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("data validate", "[--data PATH]", stderr)
	d.registerLoad(fs)
	describe(fs, stderr, "[--data PATH]", `
Reads every file of a corpus and checks it: integer tokens, word ids inside
the vocabulary, links between existing documents, one label per document,
a name for every label, word-vector rows of the right width, unique JSON Lines
ids. Prints OK and a one-line summary, or the first problem as FILE:LINE:
PROBLEM and exits with status 1.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (give the corpus with --data)", fs.Arg(0))
	}
	g, err := d.load()
	if err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: %w", d.source(), err)
	}
	if err := d.checkVocab(g); err != nil {
		return err
	}
	induced := ""
	if g.LinksInduced {
		induced = " (induced)"
	}
	_, err = fmt.Fprintf(stdout, "OK %s: %d documents, %d links%s, %d words, %d tokens, %d labels\n",
		d.source(), g.NumDocs(), len(g.Links), induced, len(g.Vocab), g.NumTokens(), g.NumLabels())
	return err
}
