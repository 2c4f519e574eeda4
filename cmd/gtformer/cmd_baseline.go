package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/lda"
	"github.com/gtformer/gtformer/metrics"
)

func init() {
	register(&command{
		name:    "baseline",
		summary: "score baselines (tf-idf, tf-idf + graph, GloVe + graph, LDA) by the paper's protocol",
		run:     runBaseline,
	})
}

const baselineSynopsis = "[--data PATH] [--method all|tfidf|tfidf-graph|glove-graph|tfidf-sign|lda[,...]] [--topics T] [--lda-iter N] [--seed N] [--eval-queries N] [--valid] [--k N] [--json]"

func runBaseline(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("baseline", baselineSynopsis, stderr)
	d.register(fs)
	methodFlag := fs.String("method", "all", "baselines to score, comma-separated: tfidf, tfidf-graph, glove-graph, tfidf-sign, lda, or all (glove-graph only where the corpus has word vectors)")
	topics := fs.Int("topics", baseline.DefaultLDATopics, "lda: number of topics T")
	ldaIter := fs.Int("lda-iter", lda.DefaultMaxIter, "lda: EM iterations of batch variational Bayes")
	ldaFitDocs := fs.Int("lda-fit-docs", 0, "lda: fit the topics on a uniform sample of `N` training documents drawn from --seed (θ still for every document; 0: all of them)")
	seed := fs.Uint64("seed", baseline.DefaultLDASeed, "seed of lda's random starts and of the --eval-queries sample: a model trained with the same --seed scores the same sample (same seed, same numbers)")
	export := fs.String("export", "", "lda: write its bags of words, topics, θ and scores into this folder (new, empty, or an earlier export), for checking against another implementation (scripts/lda_sklearn.py)")
	k := fs.Int("k", metrics.DefaultK, "neighbours of the kNN classifier")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	queries := evalQueriesFlag(fs, "--seed")
	threads := threadsFlag(fs)
	onValid := fs.Bool("valid", false, "score the validation documents instead of the test documents, held out as in training: the other training documents are the reference and the only neighbours (the split's Holdout); what defaults are chosen on")
	describe(fs, stderr, baselineSynopsis, `
Scores baseline document representations (training-free ones, and LDA) on
the same split and metrics as a model, so a table shows what the model adds
(all: every one below; glove-graph only where the corpus has word vectors):

  tfidf        tf-idf vectors: idf from the training documents, smoothed
               (ln((1+n)/(1+df))+1), rows L2-normalised (scikit-learn's
               TfidfTransformer defaults)
  tfidf-graph  tf-idf averaged with the neighbours' vectors, itself included,
               two hops over the split's graph (training links; a test
               document uses its links to training documents)
  glove-graph  each document's mean word vector, averaged likewise (needs
               word_embeddings_glove_300d.txt)
  tfidf-sign   the mean of the L2-normalised tf-idf vectors of hops 0..3
  lda          latent Dirichlet allocation (batch variational Bayes as
               scikit-learn's, --topics topics, --lda-iter iterations,
               --seed) fitted on the training documents' bags of words; a
               document's vector is its topic mixture θ, inferred from its
               words. Also scored as a topic model: NPMI of each topic's
               top-10 words over the training documents, diversity of the
               top-25, and the test log-perplexity with θ from each whole
               document and in the document-completion form (θ from a
               random half of each document's words, the same halves as
               gtformer's evaluation, the other half scored)

Metrics: kNN (Euclidean, fitted on the training documents, validation
included) Micro-F1 and Macro-F1 on the test documents; link AUC per test
document with a held-out link, ranking all other test documents by cosine
similarity, and by -squared Euclidean distance, averaged. In percent. With
--valid, the validation documents take the test documents' place.

Above --eval-queries test documents, kNN and link AUC score a uniform sample
of that many, each against every reference document, with standard errors:
the sample a model's evaluation draws (gtformer train and eval) when --seed
is the model's seed, so model and baseline are scored on the same documents.
Large sets of rows at least 1/32 full are scored by float32 matrix products
in bounded tiles, smaller ones exactly in float64.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (give the corpus with --data)", fs.Arg(0))
	}
	if *k < 1 {
		return usagef("--k must be at least 1, got %d", *k)
	}
	if *topics < 1 {
		return usagef("--topics must be at least 1, got %d", *topics)
	}
	if *ldaIter < 1 {
		return usagef("--lda-iter must be at least 1, got %d", *ldaIter)
	}
	if *ldaFitDocs < 0 {
		return usagef("--lda-fit-docs must be at least 1 (0: all training documents), got %d", *ldaFitDocs)
	}
	nq, err := evalQueries(*queries)
	if err != nil {
		return err
	}
	restore, err := useThreads(*threads)
	if err != nil {
		return err
	}
	defer restore()
	methods, all, err := parseMethods(*methodFlag)
	if err != nil {
		return usagef("--method: %v", err)
	}
	if *export != "" {
		if !slices.Contains(methods, baseline.LDAMethod) {
			return usagef("--export writes the lda baseline's files: give --method lda")
		}
		if *ldaFitDocs > 0 {
			return usagef("--export writes every training document's bags for a full fit elsewhere: leave out --lda-fit-docs")
		}
		if err := checkExportDir(*export); err != nil {
			return err
		}
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
		Split:       splitSummary(d.splitName(), s),
		K:           *k,
		Seed:        *seed,
		Scored:      "test",
		Docs:        g.NumDocs(), Links: len(g.Links), Labels: g.NumLabels(),
	}
	if *onValid {
		rep.Scored = "validation"
	}
	for _, m := range methods {
		start := time.Now()
		var v *baseline.Vectors
		var tm *baseline.TopicScores
		var ldaRes *baseline.LDAResult
		if m == baseline.LDAMethod {
			ldaRes, err = baseline.FitLDA(g, s, baseline.LDAOptions{Topics: *topics, Iter: *ldaIter, Seed: *seed, FitDocs: *ldaFitDocs})
			if ldaRes != nil {
				v, tm = ldaRes.Theta, &ldaRes.Scores
			}
		} else {
			v, err = baseline.Embed(g, s, m)
		}
		if errors.Is(err, baseline.ErrNoWordVectors) && all {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", d.source(), m, err)
		}
		met := baseline.EvaluateWith(g, s, v, baseline.EvalOptions{K: *k, Queries: nq, Seed: *seed})
		row := baselineRow{
			Method: string(m), Dim: v.Dim, Density: v.Density(),
			Scores:  met.Scores(),
			Seconds: time.Since(start).Seconds(),
		}
		if tm != nil {
			row.Topics = topicRowOf(tm, g.Vocab, *ldaIter, *seed)
			row.Topics.FitDocs = len(baseline.FitSample(s.Train, *ldaFitDocs, *seed))
		}
		if ldaRes != nil && *export != "" {
			meta := ldaExport{Data: rep.Data, Split: rep.Split, Scored: rep.Scored, Topics: row.Topics}
			if err := writeLDAExport(*export, g, s, ldaRes, meta); err != nil {
				return err
			}
		}
		rep.Results = append(rep.Results, row)
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
// error). "all" includes lda: it takes seconds on ML.
func parseMethods(list string) (ms []baseline.Method, all bool, err error) {
	if strings.TrimSpace(list) == "all" {
		return append(slices.Clone(baseline.Methods), baseline.LDAMethod), true, nil
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
	Data   string    `json:"data"`
	Docs   int       `json:"docs"`
	Links  int       `json:"links"`
	Labels int       `json:"labels"`
	Split  splitInfo `json:"split"`
	K      int       `json:"k"`
	// Seed is --seed: lda's random starts and the sample of queries.
	Seed uint64 `json:"seed"`
	// Scored names the documents scored: "test", or "validation" (--valid).
	Scored  string        `json:"scored"`
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
	Method  string  `json:"method"`
	Dim     int     `json:"dim"`
	Density float64 `json:"density"`
	baseline.Scores
	Seconds float64 `json:"seconds"`
	// Topics holds a topic model's scores (lda only).
	Topics *topicRow `json:"topics,omitempty"`
}

// topicRow is a topic model's scores: NPMI and diversity as fractions,
// log-perplexities in nats per word, null where they cannot be computed (no
// test documents, a word of probability zero).
type topicRow struct {
	Count int    `json:"count"`
	Iter  int    `json:"iter"`
	Seed  uint64 `json:"seed"`
	// FitDocs is the number of training documents the fit read (all of
	// them, or --lda-fit-docs).
	FitDocs int `json:"fit_docs"`
	baseline.TopicRecord
	TopWords [][]string `json:"top_words"` // each topic's top-10 words
}

func topicRowOf(s *baseline.TopicScores, vocab []string, iter int, seed uint64) *topicRow {
	return &topicRow{
		Count: s.Topics, Iter: iter, Seed: seed,
		TopicRecord: s.Record(), TopWords: s.TopWords(vocab),
	}
}

func (r baselineReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "corpus  %s: %d documents, %d links, %d labels\n", r.Data, r.Docs, r.Links, r.Labels)
	sp := r.Split
	fmt.Fprintf(w, "split   %s: %d training (%d of them validation), %d test; %d training links, %d held-out test links\n",
		sp.Name, sp.Train, sp.Valid, sp.Test, sp.TrainLinks, sp.TestLinks)
	fmt.Fprintf(w, "metrics kNN k=%d (Euclidean, fitted on the training documents) on the %s documents; link AUC per %s document, in percent\n\n", r.K, r.Scored, r.Scored)
	const row = "%-12s %13s %9s %15s %15s %10s %6s %8s %8s\n"
	fmt.Fprintf(w, row, "method", "Micro-F1", "Macro-F1", "AUC cosine", "AUC -sqdist", "link docs", "dim", "density", "time")
	sampled := 0
	for _, x := range r.Results {
		fmt.Fprintf(w, row, x.Method, pctSE(x.MicroF1, x.MicroF1SE), pct(x.MacroF1), pctSE(x.LinkAUC, x.LinkAUCSE), pctSE(x.LinkAUCSqDist, x.LinkAUCSqDistSE),
			fmt.Sprint(x.LinkDocs), fmt.Sprint(x.Dim), fmt.Sprintf("%.3f", x.Density), fmt.Sprintf("%.2fs", x.Seconds))
		if x.EvalSampled {
			sampled = x.EvalQueries
		}
	}
	if sampled > 0 {
		fmt.Fprintf(w, "sampled: kNN and link AUC over %d of the %s documents (--eval-queries, drawn from --seed %d as a model's evaluation draws them), ± one standard error\n",
			sampled, r.Scored, r.Seed)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	for _, x := range r.Results {
		if x.Topics == nil {
			continue
		}
		tp := x.Topics
		fmt.Fprintf(w, "\n%s as a topic model: %d topics, %d iterations, seed %d, fitted on %d training documents; NPMI (top 10, %s) %s, diversity (top 25) %s, %s log-perplexity %s, document completion %s\n",
			x.Method, tp.Count, tp.Iter, tp.Seed, tp.FitDocs, tp.NPMIRef, fraction(tp.NPMI, "%.1f%%", 100), fraction(tp.Diversity, "%.3f", 1),
			r.Scored, fraction(tp.LogPerplexity, "%.3f", 1), fraction(tp.LogPerplexityCompletion, "%.3f", 1))
		for t, words := range tp.TopWords {
			fmt.Fprintf(w, "  topic %2d  %s\n", t, strings.Join(words, " "))
		}
	}
	_, err := fmt.Fprintf(w, "\nloading took %.2fs; each method's time covers embedding and evaluation\n", r.LoadSeconds)
	return err
}

// fraction formats x·scale with format, or "-" for nil.
func fraction(x *float64, format string, scale float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf(format, *x*scale)
}

// pctSE is pct with "±se" appended when se is set (a sampled estimate).
func pctSE(x, se *float64) string {
	if x == nil || se == nil {
		return pct(x)
	}
	return fmt.Sprintf("%.2f±%.2f", *x, *se)
}

func pct(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *x)
}
