package baseline

import (
	"math"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/lda"
	"github.com/gtformer/gtformer/metrics"
)

// smallSynth is a built-in-style corpus small enough to fit LDA on in a
// fraction of a second: 3 fields with 3 sub-fields each.
func smallSynth(t *testing.T) *corpus.Graph {
	t.Helper()
	g, _, err := synth.Generate(synth.Config{Docs: 300, Vocab: 240, Depth: 3, Branching: 3, Links: 600, MeanLength: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFitLDA checks the lda baseline against its definition: fitted on the
// training documents' bags only, θ = lda's Transform of every document,
// the scores recomputed here from θ and β with package metrics, the
// completion halves those of metrics.CompletionSeed.
func TestFitLDA(t *testing.T) {
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	opt := LDAOptions{Topics: 5, Iter: 20, Seed: 3}
	r, err := FitLDA(g, s, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The same fit by hand: lda.Fit on the training bags.
	m, err := lda.Fit(bagRows{g.BoW(), s.Train}, len(g.Vocab), 5, lda.Options{MaxIter: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Lambda, r.Model.Lambda) {
		t.Fatal("FitLDA's λ differs from lda.Fit on the training bags")
	}
	if r.Theta.NumRows() != g.NumDocs() || r.Theta.Dim != 5 {
		t.Fatalf("θ is %d×%d, want %d×5", r.Theta.NumRows(), r.Theta.Dim, g.NumDocs())
	}
	for i := range g.NumDocs() {
		_, val := r.Theta.Row(i)
		var sum float64
		for _, v := range val {
			sum += float64(v)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("θ of document %d sums to %g", i, sum)
		}
	}
	sc := r.Scores
	top := metrics.TopWords(r.Beta, 5, 10)
	_, npmi := metrics.NewReference("training documents", metrics.Subset(g, s.Train)).NPMI(top, 10)
	perp := metrics.PerplexityExponent(r.ThetaTest, r.Beta, 5, metrics.Subset(g, s.Test))
	obs, held := metrics.CompletionSplit(metrics.Subset(g, s.Test), metrics.CompletionSeed)
	thHalf, err := m.Transform(bagRows{g.WithDocs(s.Test, obs).BoW(), s.Test})
	if err != nil {
		t.Fatal(err)
	}
	comp := metrics.PerplexityExponent(toFloat32(thHalf), r.Beta, 5, held)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"NPMI", sc.NPMI, npmi},
		{"diversity", sc.Diversity, metrics.TopicDiversity(metrics.TopWords(r.Beta, 5, 25), 25)},
		{"log-perplexity", sc.LogPerplexity, perp},
		{"completion log-perplexity", sc.LogPerplexityCompletion, comp},
	} {
		if math.IsNaN(c.got) || math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Completion scores half the words with less evidence: a higher
	// exponent than the whole-document form on a corpus this clear.
	if !(sc.LogPerplexityCompletion > sc.LogPerplexity) {
		t.Errorf("completion %.3f ≤ whole-document %.3f", sc.LogPerplexityCompletion, sc.LogPerplexity)
	}
	if sc.Topics != 5 || len(sc.Top) != 5 || sc.NPMIRef != "training documents" {
		t.Errorf("scores %+v", sc)
	}

	// Same seed, same numbers.
	r2, err := FitLDA(g, s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Scores.NPMI != sc.NPMI || r2.Scores.LogPerplexity != sc.LogPerplexity || !slices.Equal(r2.Theta.Val, r.Theta.Val) {
		t.Error("the same seed gave other numbers")
	}
}

// TestFitLDAHoldout: on the validation split (Holdout) the model is fitted
// on the training documents outside validation and scores the validation
// documents.
func TestFitLDAHoldout(t *testing.T) {
	g := smallSynth(t)
	full := corpus.PaperSplit(g)
	h := full.Holdout(g)
	r, err := FitLDA(g, h, LDAOptions{Topics: 4, Iter: 10, Seed: DefaultLDASeed})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(r.ThetaTest), 4*len(full.Valid); got != want {
		t.Errorf("%d θ values scored, want %d (the validation documents)", got, want)
	}
	m, err := lda.Fit(bagRows{g.BoW(), h.Train}, len(g.Vocab), 4, lda.Options{MaxIter: 10, Seed: DefaultLDASeed})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Lambda, r.Model.Lambda) {
		t.Error("the Holdout fit did not use exactly the training documents outside validation")
	}
	if len(h.Train) != len(full.Train)-len(full.Valid) {
		t.Fatalf("Holdout trains on %d documents", len(h.Train))
	}
}

// TestRunLDA: Run and Embed reach lda with its defaults; θ is scored as
// the other baselines' vectors.
func TestRunLDA(t *testing.T) {
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	r, err := Run(g, s, LDAMethod)
	if err != nil {
		t.Fatal(err)
	}
	if r.Topics == nil || r.Topics.Topics != DefaultLDATopics || r.Vectors.Dim != DefaultLDATopics {
		t.Fatalf("Run(lda) = %+v", r)
	}
	// The planted fields are the labels; 13 topics over 9 planted leaves
	// separate them well.
	if r.Metrics.MicroF1 < 80 || math.IsNaN(r.Metrics.LinkAUC) {
		t.Errorf("lda on the planted corpus: Micro-F1 %.1f, link AUC %.1f", r.Metrics.MicroF1, r.Metrics.LinkAUC)
	}
	v, err := Embed(g, s, LDAMethod)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Val, r.Vectors.Val) {
		t.Error("Embed(lda) and Run(lda) differ")
	}
	if m, err := ParseMethod("lda"); err != nil || m != LDAMethod {
		t.Errorf("ParseMethod(lda) = %q, %v", m, err)
	}
}

// TestLDASharedML guards the figures on ML (paper split, the defaults: 13
// topics, 100 iterations, seed 1): each lies within three standard
// deviations of LDA's own seed spread (five seeds, docs/design.md,
// "Baselines") of scikit-learn's figure for the same protocol
// (docs/design.md, "Baselines": NPMI 11.0%, diversity 0.59, test log-perplexity 6.56).
func TestLDASharedML(t *testing.T) {
	g, err := corpus.LoadFolder(shared.Dataset(t, "ml"), corpus.LoadOptions{NoWordVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunLDA(g, corpus.PaperSplit(g), DefaultLDAOptions())
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Topics
	for _, c := range []struct {
		name                 string
		got, sklearn, spread float64
	}{
		{"NPMI", sc.NPMI, 0.110, 0.010},
		{"diversity", sc.Diversity, 0.59, 0.026},
		{"log-perplexity", sc.LogPerplexity, 6.56, 0.011},
	} {
		if math.Abs(c.got-c.sklearn) > 3*c.spread {
			t.Errorf("%s = %.4f, scikit-learn %.4f: more than 3 × %.3f apart", c.name, c.got, c.sklearn, c.spread)
		}
	}
	// Completion scores words θ did not see: a higher exponent.
	if !(sc.LogPerplexityCompletion > sc.LogPerplexity) {
		t.Errorf("completion %.3f ≤ whole-document %.3f", sc.LogPerplexityCompletion, sc.LogPerplexity)
	}
	t.Logf("lda on ML: NPMI %.1f%%, diversity %.3f, log-perplexity %.3f (completion %.3f), kNN Micro-F1 %.1f, AUC %.1f, %v",
		100*sc.NPMI, sc.Diversity, sc.LogPerplexity, sc.LogPerplexityCompletion, r.Metrics.MicroF1, r.Metrics.LinkAUC, r.Elapsed)
}

// TestFitSample: no sample (all training documents, the default) unless
// FitDocs is below their number; a sample is sorted, distinct, drawn from
// the training documents, the same for the same seed; and a fit on it
// differs from the full fit while still giving θ for every document.
func TestFitSample(t *testing.T) {
	train := make([]int32, 50)
	for i := range train {
		train[i] = int32(3 * i)
	}
	for _, tc := range []struct {
		name string
		n    int
		want int
	}{
		{"default: all", 0, 50},
		{"as many as there are", 50, 50},
		{"more", 80, 50},
		{"a sample", 20, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FitSample(train, tc.n, 7)
			if len(got) != tc.want || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != tc.want {
				t.Fatalf("FitSample(%d) = %v: want %d sorted distinct documents", tc.n, got, tc.want)
			}
			for _, d := range got {
				if _, ok := slices.BinarySearch(train, d); !ok {
					t.Fatalf("document %d is not a training document", d)
				}
			}
			if again := FitSample(train, tc.n, 7); !slices.Equal(got, again) {
				t.Error("the same seed drew another sample")
			}
		})
	}
	if slices.Equal(FitSample(train, 20, 7), FitSample(train, 20, 8)) {
		t.Error("seeds 7 and 8 drew the same sample")
	}
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	full, err := FitLDA(g, s, LDAOptions{Topics: 4, Iter: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	part, err := FitLDA(g, s, LDAOptions{Topics: 4, Iter: 5, Seed: 1, FitDocs: 60})
	if err != nil {
		t.Fatal(err)
	}
	if part.Theta.NumRows() != g.NumDocs() || slices.Equal(full.Model.Lambda, part.Model.Lambda) {
		t.Errorf("sampled fit: θ for %d of %d documents, λ equal to the full fit's: %v", part.Theta.NumRows(), g.NumDocs(), slices.Equal(full.Model.Lambda, part.Model.Lambda))
	}
}
