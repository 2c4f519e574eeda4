package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

// TestBaselineCommandCOVID runs the cheapest shared dataset through the
// command and checks the JSON against the tf-idf row for COVID of
// docs/design.md, "Baselines" (Micro-F1 82.7, AUC 99.7, ±0.5), and that
// glove-graph is skipped under "all" because COVID ships no word vectors.
func TestBaselineCommandCOVID(t *testing.T) {
	dir := shared.Dataset(t, "covid")
	code, out, errs := runCmd("baseline", "--data", dir, "--method", "tfidf", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep baselineReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if rep.Split.Train != 1200 || rep.Split.Valid != 120 || rep.Split.Test != 300 || rep.Split.TestLinks != 232 || rep.K != 5 {
		t.Errorf("split/k = %+v, k %d", rep.Split, rep.K)
	}
	if len(rep.Results) != 1 || rep.Results[0].Method != "tfidf" {
		t.Fatalf("results = %+v, want one tfidf row", rep.Results)
	}
	r := rep.Results[0]
	if r.MicroF1 == nil || math.Abs(*r.MicroF1-82.7) > 0.5 || r.LinkAUC == nil || math.Abs(*r.LinkAUC-99.7) > 0.5 {
		t.Errorf("tfidf on COVID: %+v, want Micro-F1 82.7, AUC 99.7", r)
	}

	// Explicitly asking for glove-graph on a corpus without vectors fails.
	code, _, errs = runCmd("baseline", "--data", dir, "--method", "glove-graph")
	if code != 1 || !strings.Contains(errs, "no word vectors") {
		t.Errorf("glove-graph on COVID: exit %d, %q; want exit 1 naming the missing vectors", code, errs)
	}
}

// TestBaselineCommandUnlabelled checks the table on a tiny corpus written
// here without labels and with a single held-out link: scores that cannot be
// computed print as "-" (no crash, no NaN), and glove-graph is listed as
// skipped under --method all.
func TestBaselineCommandUnlabelled(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"voc.txt": "graph\nnode\ntopic\nword\n",
		// Ten documents; PaperSplit tests on 8 and 9.
		"contents.txt": "0 1\n0 1 1\n2 3\n2 3 3\n0 1\n2 3\n0 0 1\n2 2 3\n0 1\n2 3\n",
		"links.txt":    "0 1\n2 3\n4 6\n5 7\n8 0\n9 2\n8 9\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCmd("baseline", "--data", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"10 documents", "8 training", "2 test", "1 held-out test links", "tfidf-graph", "skipped glove-graph"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var tfidfLine string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "tfidf ") {
			tfidfLine = l
		}
	}
	// Columns: method, Micro-F1, Macro-F1, AUC cosine, ...; test documents 8
	// (words 0,1) and 9 (words 2,3) share no word, so each ranks the other
	// (its only candidate and a positive) with no negative: no AUC either.
	if f := strings.Fields(tfidfLine); len(f) < 6 || f[1] != "-" || f[2] != "-" || f[3] != "-" || f[5] != "0" {
		t.Errorf("tfidf row = %q, want no F1, no AUC, 0 link documents", tfidfLine)
	}
}

func TestBaselineUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"baseline", "--method", "bm25", "--data", "x"}, "unknown baseline method"},
		{[]string{"baseline", "--k", "0", "--data", "x"}, "--k must be at least 1"},
		{[]string{"baseline", "--data", "x", "extra"}, "unexpected argument"},
		{[]string{"baseline", "--data", "x", "--topics", "0"}, "--topics must be at least 1"},
		{[]string{"baseline", "--data", "x", "--lda-iter", "0"}, "--lda-iter must be at least 1"},
		{[]string{"baseline", "--data", "x", "--method", "tfidf", "--export", "y"}, "give --method lda"},
		{[]string{"baseline", "--data", "x", "--eval-queries", "-1"}, "--eval-queries -1"},
		{[]string{"baseline", "--data", "x", "--lda-fit-docs", "-1"}, "--lda-fit-docs must be"},
		{[]string{"baseline", "--data", "x", "--method", "lda", "--lda-fit-docs", "5", "--export", "y"}, "leave out --lda-fit-docs"},
	} {
		code, _, errs := runCmd(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", tc.args, code, errs, tc.want)
		}
	}
	if code, _, errs := runCmd("baseline", "--data", filepath.Join(t.TempDir(), "missing")); code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("missing data: exit %d, %q; want exit 1 naming the path", code, errs)
	}
}

// TestBaselineCommandLDA runs --method lda on a small labelled corpus
// written here: the JSON row carries the topic scores, the text shows the
// topics, --export writes the files scripts/lda_sklearn.py reads (and
// refuses a folder that holds something else), --valid scores the
// validation documents.
func TestBaselineCommandLDA(t *testing.T) {
	dir := t.TempDir()
	var contents, labels strings.Builder
	for i := range 40 {
		// Two themes: words 0-3 and 4-7, two documents of each in turn.
		th := (i / 2) % 2
		fmt.Fprintf(&contents, "%d %d %d %d %d\n", 4*th, 4*th+1, 4*th+(i%3), 4*th+3, 4*th+(i%4))
		fmt.Fprintf(&labels, "%d\n", th)
	}
	files := map[string]string{
		"voc.txt":      "graph\nnode\nedge\npath\noven\nflour\nbake\ndough\n",
		"contents.txt": contents.String(),
		"labels.txt":   labels.String(),
		"links.txt":    "0 1\n2 3\n4 5\n6 7\n32 33\n34 35\n36 37\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exp := filepath.Join(t.TempDir(), "export")
	code, out, errs := runCmd("baseline", "--data", dir, "--method", "lda", "--topics", "2", "--lda-iter", "20", "--seed", "4", "--json", "--export", exp)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep baselineReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(rep.Results) != 1 || rep.Results[0].Topics == nil || rep.Scored != "test" {
		t.Fatalf("results %+v, scored %q", rep.Results, rep.Scored)
	}
	r := rep.Results[0]
	tp := r.Topics
	if r.Dim != 2 || tp.Count != 2 || tp.Iter != 20 || tp.Seed != 4 || len(tp.TopWords) != 2 || len(tp.TopWords[0]) != 8 {
		t.Errorf("lda row %+v, topics %+v", r, tp)
	}
	for name, v := range map[string]*float64{"npmi": tp.NPMI, "diversity": tp.Diversity, "log_perplexity": tp.LogPerplexity, "log_perplexity_completion": tp.LogPerplexityCompletion, "micro_f1": r.MicroF1} {
		if v == nil {
			t.Errorf("%s is null", name)
		}
	}
	// The two themes are separable: kNN on θ gets every test document.
	if r.MicroF1 != nil && *r.MicroF1 != 100 {
		t.Errorf("Micro-F1 on θ = %v, want 100", *r.MicroF1)
	}
	var meta ldaExport
	raw, err := os.ReadFile(filepath.Join(exp, ldaExportMarker))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Format != ldaExportFormat || meta.Vocab != 8 || meta.Fitted != 32 || *meta.Topics.NPMI != *tp.NPMI {
		t.Errorf("export.json = %+v (%v)", meta, err)
	}
	train, err := os.ReadFile(filepath.Join(exp, "bags_train.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSuffix(string(train), "\n"), "\n"); len(lines) != 32 || lines[0] != "0:3 1:1 3:1" {
		t.Errorf("bags_train.txt: %d lines, first %q; want 32, \"0:3 1:1 3:1\"", len(lines), lines[0])
	}
	for _, name := range []string{"bags_scored.txt", "bags_observed.txt", "bags_heldout.txt", "beta.npy", "theta.npy", "theta_completion.npy"} {
		if _, err := os.Stat(filepath.Join(exp, name)); err != nil {
			t.Error(err)
		}
	}

	// Text output, again into the same export folder (an earlier export),
	// scoring the validation documents.
	code, out, errs = runCmd("baseline", "--data", dir, "--method", "lda", "--topics", "2", "--lda-iter", "20", "--valid", "--export", exp)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"on the validation documents", "lda as a topic model: 2 topics, 20 iterations, seed 1", "validation log-perplexity", "topic  0 ", "topic  1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A folder holding something else is refused, and left alone.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd("baseline", "--data", dir, "--method", "lda", "--lda-iter", "2", "--export", other)
	if code != 1 || !strings.Contains(errs, "holds no earlier export") {
		t.Errorf("export into a foreign folder: exit %d, %q", code, errs)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Errorf("the foreign folder now holds %d entries", len(entries))
	}
}

// TestBaselineCommandSampled: --eval-queries below the test set scores
// the sample the model's evaluation draws from --seed (the JSON says how
// many, with standard errors; the table shows them as ±), and another
// seed draws other documents.
func TestBaselineCommandSampled(t *testing.T) {
	scores := func(seed string) baselineRow {
		code, out, errs := runCmd("baseline", "--method", "tfidf", "--eval-queries", "60", "--seed", seed, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var rep baselineReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if len(rep.Results) != 1 || fmt.Sprint(rep.Seed) != seed {
			t.Fatalf("results %+v, seed %d", rep.Results, rep.Seed)
		}
		return rep.Results[0]
	}
	a, b := scores("1"), scores("2")
	for _, r := range []baselineRow{a, b} {
		if r.EvalQueries != 60 || !r.EvalSampled || r.MicroF1SE == nil || r.LinkAUCSE == nil || r.LinkAUCSqDistSE == nil {
			t.Errorf("sampled row %+v: want 60 queries with standard errors", r)
		}
	}
	if *a.LinkAUC == *b.LinkAUC && a.LinkDocs == b.LinkDocs {
		t.Errorf("seeds 1 and 2 scored the same link AUC %.4f over %d documents: the same sample?", *a.LinkAUC, a.LinkDocs)
	}
	code, out, errs := runCmd("baseline", "--method", "tfidf", "--eval-queries", "60")
	if code != 0 || !strings.Contains(out, "±") || !strings.Contains(out, "over 60 of the test documents") {
		t.Errorf("table: exit %d, %s\n%s", code, errs, out)
	}
}

// TestBaselineCommandLDAFitDocs: --lda-fit-docs fits on that many training
// documents (the JSON says so) and changes the topics; without it the fit
// reads every training document.
func TestBaselineCommandLDAFitDocs(t *testing.T) {
	fit := func(args ...string) *topicRow {
		code, out, errs := runCmd(append([]string{"baseline", "--method", "lda", "--lda-iter", "3", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var rep baselineReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 1 || rep.Results[0].Topics == nil {
			t.Fatalf("output %v:\n%s", err, out)
		}
		return rep.Results[0].Topics
	}
	all, part := fit(), fit("--lda-fit-docs", "100")
	if all.FitDocs != 1200 || part.FitDocs != 100 {
		t.Errorf("fit_docs %d and %d, want 1200 (every training document) and 100", all.FitDocs, part.FitDocs)
	}
	if *all.NPMI == *part.NPMI && *all.LogPerplexity == *part.LogPerplexity {
		t.Error("a fit on 100 documents scored exactly as the full fit")
	}
}
