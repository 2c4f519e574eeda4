package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/metrics"
)

func init() {
	register(&command{
		name:    "baseline",
		summary: "score training-free baselines (tf-idf, tf-idf + graph, GloVe + graph) by the paper's protocol",
		run:     runBaseline,
	})
}

const baselineSynopsis = "[--data PATH] [--method all|tfidf|tfidf-graph|glove-graph[,...]] [--k N] [--json]"

func runBaseline(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("baseline", baselineSynopsis, stderr)
	d.register(fs)
	methodFlag := fs.String("method", "all", "baselines to score, comma-separated: tfidf, tfidf-graph, glove-graph, or all (glove-graph only where the corpus has word vectors)")
	k := fs.Int("k", metrics.DefaultK, "neighbours of the kNN classifier")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	onValid := fs.Bool("valid", false, "score the validation documents instead of the test documents, held out as in training: the other training documents are the reference and the only neighbours (the split's Holdout); what defaults are chosen on")
	describe(fs, stderr, baselineSynopsis, `
Scores training-free document representations on the same split and metrics
as a model, so a table shows what the model adds:

  tfidf        tf-idf vectors: idf from the training documents, smoothed
               (ln((1+n)/(1+df))+1), rows L2-normalised (scikit-learn's
               TfidfTransformer defaults)
  tfidf-graph  tf-idf averaged with the neighbours' vectors, itself included,
               two hops over the split's graph (training links; a test
               document uses its links to training documents)
  glove-graph  each document's mean word vector, averaged likewise (needs
               word_embeddings_glove_300d.txt)

Metrics: kNN (Euclidean, fitted on the training documents, validation
included) Micro-F1 and Macro-F1 on the test documents; link AUC per test
document with a held-out link, ranking all other test documents by cosine
similarity, and by -squared Euclidean distance, averaged. In percent.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (give the corpus with --data)", fs.Arg(0))
	}
	if *k < 1 {
		return usagef("--k must be at least 1, got %d", *k)
	}
	methods, all, err := parseMethods(*methodFlag)
	if err != nil {
		return usagef("--method: %v", err)
	}
	loadStart := time.Now()
	g, err := d.load()
	if err != nil {
		return err
	}
	s := d.makeSplit(g)
	if *onValid {
		s = s.Holdout(g)
	}
	rep := baselineReport{
		LoadSeconds: time.Since(loadStart).Seconds(),
		Data:        d.source(),
		Split:       splitSummary(d.split, s),
		K:           *k,
		Docs:        g.NumDocs(), Links: len(g.Links), Labels: g.NumLabels(),
	}
	for _, m := range methods {
		start := time.Now()
		v, err := baseline.Embed(g, s, m)
		if errors.Is(err, baseline.ErrNoWordVectors) && all {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", d.source(), m, err)
		}
		met := baseline.Evaluate(g, s, v, *k)
		rep.Results = append(rep.Results, baselineRow{
			Method: string(m), Dim: v.Dim, Density: v.Density(),
			MicroF1: num(met.MicroF1), MacroF1: num(met.MacroF1),
			LinkAUC: num(met.LinkAUC), LinkAUCSqDist: num(met.LinkAUCSqDist), LinkDocs: met.LinkDocs,
			Seconds: time.Since(start).Seconds(),
		})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(stdout)
}

// parseMethods reads the --method list; all reports whether "all" asked for
// every method (then a method the corpus cannot support is skipped, not an
// error).
func parseMethods(list string) (ms []baseline.Method, all bool, err error) {
	if strings.TrimSpace(list) == "all" {
		return baseline.Methods, true, nil
	}
	seen := map[baseline.Method]bool{}
	for _, name := range strings.Split(list, ",") {
		m, err := baseline.ParseMethod(strings.TrimSpace(name))
		if err != nil {
			return nil, false, err
		}
		if !seen[m] {
			seen[m] = true
			ms = append(ms, m)
		}
	}
	return ms, false, nil
}

// baselineReport is the --json output (and the table's content).
type baselineReport struct {
	Data    string        `json:"data"`
	Docs    int           `json:"docs"`
	Links   int           `json:"links"`
	Labels  int           `json:"labels"`
	Split   splitInfo     `json:"split"`
	K       int           `json:"k"`
	Results []baselineRow `json:"results"`
	Skipped []string      `json:"skipped,omitempty"`
	// LoadSeconds is the time to read and split the corpus.
	LoadSeconds float64 `json:"load_seconds"`
}

type splitInfo struct {
	Name       string `json:"name"`
	Train      int    `json:"train_docs"` // validation included
	Valid      int    `json:"valid_docs"`
	Test       int    `json:"test_docs"`
	TrainLinks int    `json:"train_links"`
	TestLinks  int    `json:"test_links"`
}

func splitSummary(name string, s *corpus.Split) splitInfo {
	return splitInfo{name, len(s.Train), len(s.Valid), len(s.Test), len(s.TrainLinks), len(s.TestLinks)}
}

// baselineRow holds one method's scores in percent; a score that cannot be
// computed (no labels, no held-out links) is null.
type baselineRow struct {
	Method        string   `json:"method"`
	Dim           int      `json:"dim"`
	Density       float64  `json:"density"`
	MicroF1       *float64 `json:"micro_f1"`
	MacroF1       *float64 `json:"macro_f1"`
	LinkAUC       *float64 `json:"link_auc_cosine"`
	LinkAUCSqDist *float64 `json:"link_auc_neg_sq_dist"`
	LinkDocs      int      `json:"link_docs"`
	Seconds       float64  `json:"seconds"`
}

// num maps NaN to nil, which JSON prints as null.
func num(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

func (r baselineReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "corpus  %s: %d documents, %d links, %d labels\n", r.Data, r.Docs, r.Links, r.Labels)
	sp := r.Split
	fmt.Fprintf(w, "split   %s: %d training (%d of them validation), %d test; %d training links, %d held-out test links\n",
		sp.Name, sp.Train, sp.Valid, sp.Test, sp.TrainLinks, sp.TestLinks)
	fmt.Fprintf(w, "metrics kNN k=%d (Euclidean, fitted on the training documents) on the test documents; link AUC per test document, in percent\n\n", r.K)
	const row = "%-12s %9s %9s %15s %15s %10s %6s %8s %8s\n"
	fmt.Fprintf(w, row, "method", "Micro-F1", "Macro-F1", "AUC cosine", "AUC -sqdist", "link docs", "dim", "density", "time")
	for _, x := range r.Results {
		fmt.Fprintf(w, row, x.Method, pct(x.MicroF1), pct(x.MacroF1), pct(x.LinkAUC), pct(x.LinkAUCSqDist),
			fmt.Sprint(x.LinkDocs), fmt.Sprint(x.Dim), fmt.Sprintf("%.3f", x.Density), fmt.Sprintf("%.2fs", x.Seconds))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	_, err := fmt.Fprintf(w, "\nloading took %.2fs; each method's time covers embedding and evaluation\n", r.LoadSeconds)
	return err
}

func pct(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *x)
}
