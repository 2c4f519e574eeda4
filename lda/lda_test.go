package lda

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// planted draws n documents from T planted topics over V = T·block words:
// topic t puts 90% of its mass evenly on its own block of words and 10% on
// all words; a document mixes one main topic (80%) with the others, and
// holds 30-80 tokens. It returns the bags and the planted β (T,V).
func planted(seed uint64, n, T, block int) (BagList, []float64) {
	V := T * block
	beta := make([]float64, T*V)
	for t := range T {
		for w := range V {
			beta[t*V+w] = 0.1 / float64(V)
			if w/block == t {
				beta[t*V+w] += 0.9 / float64(block)
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	var b BagList
	for range n {
		main := rng.IntN(T)
		counts := make([]float32, V)
		for range 30 + rng.IntN(51) {
			t := main
			if rng.Float64() < 0.2 {
				t = rng.IntN(T)
			}
			// β_t is 0.9 × uniform on block t + 0.1 × uniform on all words.
			w := t*block + rng.IntN(block)
			if rng.Float64() < 0.1 {
				w = rng.IntN(V)
			}
			counts[w]++
		}
		var words []int32
		var cs []float32
		for w, c := range counts {
			if c > 0 {
				words = append(words, int32(w))
				cs = append(cs, c)
			}
		}
		b.Words = append(b.Words, words)
		b.Counts = append(b.Counts, cs)
	}
	return b, beta
}

// TestOneTopicByHand: with one topic every φ is 1, so one iteration gives
// λ_w = η + Σ_d n_dw (up to the normaliser's epsilon) and every θ is 1.
func TestOneTopicByHand(t *testing.T) {
	docs := BagList{
		Words:  [][]int32{{0, 2}, {1}, {0, 1, 3}, {}},
		Counts: [][]float32{{2, 1}, {4}, {1, 1, 5}, {}},
	}
	m, err := Fit(docs, 5, 1, Options{MaxIter: 1, TopicWordPrior: 0.5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5 + 3, 0.5 + 5, 0.5 + 1, 0.5 + 5, 0.5} // word 4 appears nowhere
	for w, l := range m.Lambda {
		if math.Abs(l-want[w]) > 1e-12 {
			t.Errorf("λ[%d] = %.15g, want %g", w, l, want[w])
		}
	}
	beta := m.Beta()
	for w := range want {
		if math.Abs(beta[w]-want[w]/16.5) > 1e-12 {
			t.Errorf("β[%d] = %g, want %g", w, beta[w], want[w]/16.5)
		}
	}
	theta, err := m.Transform(docs)
	if err != nil {
		t.Fatal(err)
	}
	for d, th := range theta {
		if math.Abs(th-1) > 1e-15 {
			t.Errorf("θ[%d] = %g, want 1", d, th)
		}
	}
	// γ = α + Σ_w n_dw exactly (α = 1/T = 1 by default).
	gamma, err := m.Gamma(docs)
	if err != nil {
		t.Fatal(err)
	}
	for d, g := range []float64{4, 5, 8, 1} {
		if math.Abs(gamma[d]-g) > 1e-12 {
			t.Errorf("γ[%d] = %.15g, want %g", d, gamma[d], g)
		}
	}
}

// TestBoundIncreases: batch variational Bayes is coordinate ascent on the
// evidence lower bound, so with E-steps run to convergence the bound of the
// training documents never decreases from one iteration to the next.
func TestBoundIncreases(t *testing.T) {
	docs, _ := planted(1, 120, 4, 8)
	var bounds []float64
	var berr error
	_, err := Fit(docs, 32, 4, Options{
		MaxIter: 25, MaxDocUpdateIter: 2000, MeanChangeTol: 1e-12, Seed: 5,
		Progress: func(p Progress) {
			b, err := p.Model.Bound(docs)
			if err != nil {
				berr = err
			}
			bounds = append(bounds, b)
		},
	})
	if err != nil || berr != nil {
		t.Fatal(err, berr)
	}
	for i := 1; i < len(bounds); i++ {
		if bounds[i] < bounds[i-1]-1e-9*math.Abs(bounds[i-1]) {
			t.Errorf("bound fell at iteration %d: %.10g → %.10g", i+1, bounds[i-1], bounds[i])
		}
	}
	if bounds[len(bounds)-1] <= bounds[0] {
		t.Errorf("bound did not rise: %g → %g", bounds[0], bounds[len(bounds)-1])
	}
}

// TestPlantedTopics: on documents drawn from planted topics, every planted
// topic is recovered by its own fitted topic (cosine ≥ 0.97), and Transform
// gives each document's main topic the largest share for most documents.
func TestPlantedTopics(t *testing.T) {
	const T, block = 4, 10
	docs, want := planted(2, 400, T, block)
	V := T * block
	m, err := Fit(docs, V, T, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	beta := m.Beta()
	match := make([]int, T) // planted topic → fitted topic
	used := map[int]bool{}
	for p := range T {
		best, bestCos := -1, -1.0
		for f := range T {
			if c := cosine(want[p*V:(p+1)*V], beta[f*V:(f+1)*V]); c > bestCos {
				best, bestCos = f, c
			}
		}
		if bestCos < 0.97 || used[best] {
			t.Fatalf("planted topic %d: best fitted topic %d, cosine %.3f (used before: %v)", p, best, bestCos, used[best])
		}
		used[best] = true
		match[p] = best
	}
	theta, err := m.Transform(docs)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for d := range docs.NumDocs() {
		// The planted main topic is the block holding most of the tokens.
		blocks := make([]float32, T)
		words, counts := docs.Row(d)
		for k, w := range words {
			blocks[int(w)/block] += counts[k]
		}
		main := argmax(blocks)
		row := theta[d*T : (d+1)*T]
		if argmax(row) == match[main] {
			right++
		}
	}
	if right < 380 {
		t.Errorf("θ's largest topic is the planted main topic for %d of 400 documents, want ≥ 380", right)
	}
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

func argmax[T float32 | float64](x []T) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TestSameSeedSameNumbers: the same seed gives bit-identical λ and θ for
// any number of workers; another seed gives other numbers.
func TestSameSeedSameNumbers(t *testing.T) {
	docs, _ := planted(3, 300, 3, 6)
	fit := func(seed uint64, workers int) (*Model, []float64) {
		m, err := Fit(docs, 18, 3, Options{MaxIter: 15, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		theta, err := m.Transform(docs)
		if err != nil {
			t.Fatal(err)
		}
		return m, theta
	}
	m1, th1 := fit(9, 1)
	for _, workers := range []int{2, 7} {
		m2, th2 := fit(9, workers)
		if !slices.Equal(m1.Lambda, m2.Lambda) || !slices.Equal(th1, th2) {
			t.Errorf("seed 9 with %d workers differs from 1 worker", workers)
		}
	}
	if m3, _ := fit(10, 2); slices.Equal(m1.Lambda, m3.Lambda) {
		t.Error("seeds 9 and 10 gave the same λ")
	}
}

// TestTransformMatchesFit: after convergence, Transform's θ of a training
// document (E-step from γ = 1) is close to the last iteration's fitted γ,
// normalised (E-step from a random start, with the previous λ).
func TestTransformMatchesFit(t *testing.T) {
	docs, _ := planted(4, 200, 4, 8)
	var last []float64
	m, err := Fit(docs, 32, 4, Options{Seed: 2, Progress: func(p Progress) { last = slices.Clone(p.Gamma) }})
	if err != nil {
		t.Fatal(err)
	}
	theta, err := m.Transform(docs)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for d := range docs.NumDocs() {
		g := last[d*4 : (d+1)*4]
		s := g[0] + g[1] + g[2] + g[3]
		for k := range 4 {
			worst = max(worst, math.Abs(theta[d*4+k]-g[k]/s))
		}
	}
	if worst > 0.01 {
		t.Errorf("Transform's θ and the fitted γ differ by up to %.4f, want ≤ 0.01", worst)
	}
}

// TestEmptyDocument: a document without words gets the uniform mixture.
func TestEmptyDocument(t *testing.T) {
	docs, _ := planted(5, 50, 3, 5)
	m, err := Fit(docs, 15, 3, Options{MaxIter: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	theta, err := m.Transform(BagList{Words: [][]int32{nil}, Counts: [][]float32{nil}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range theta {
		if math.Abs(th-1.0/3) > 1e-12 {
			t.Fatalf("θ of an empty document = %v, want uniform", theta)
		}
	}
}

func TestFitErrors(t *testing.T) {
	good := BagList{Words: [][]int32{{0, 1}}, Counts: [][]float32{{1, 2}}}
	for _, tc := range []struct {
		name string
		docs BagList
		V, T int
		opt  Options
		want string
	}{
		{"no topics", good, 2, 0, Options{}, "number of topics must be at least 1"},
		{"no vocabulary", good, 0, 2, Options{}, "vocabulary must hold at least one word"},
		{"no documents", BagList{}, 2, 2, Options{}, "no documents"},
		{"word outside vocabulary", BagList{Words: [][]int32{{0}, {2}}, Counts: [][]float32{{1}, {1}}}, 2, 2, Options{}, "document 1: word id 2 outside the vocabulary of 2 words"},
		{"negative word", BagList{Words: [][]int32{{-1}}, Counts: [][]float32{{1}}}, 2, 2, Options{}, "word id -1 outside"},
		{"negative count", BagList{Words: [][]int32{{0}}, Counts: [][]float32{{-1}}}, 2, 2, Options{}, "word 0 has count -1"},
		{"NaN count", BagList{Words: [][]int32{{1}}, Counts: [][]float32{{float32(math.NaN())}}}, 2, 2, Options{}, "word 1 has count NaN"},
		{"counts missing", BagList{Words: [][]int32{{0, 1}}, Counts: [][]float32{{1}}}, 2, 2, Options{}, "2 words but 1 counts"},
		{"negative prior", good, 2, 2, Options{DocTopicPrior: -1}, "DocTopicPrior must be positive"},
		{"infinite prior", good, 2, 2, Options{TopicWordPrior: math.Inf(1)}, "TopicWordPrior must be positive"},
		{"negative iterations", good, 2, 2, Options{MaxIter: -1}, "MaxIter must not be negative"},
		{"negative tolerance", good, 2, 2, Options{MeanChangeTol: -1}, "MeanChangeTol must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(tc.docs, tc.V, tc.T, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fit: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	m, err := Fit(good, 2, 2, Options{MaxIter: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Transform(BagList{Words: [][]int32{{5}}, Counts: [][]float32{{1}}}); err == nil || !strings.Contains(err.Error(), "word id 5 outside") {
		t.Errorf("Transform of an unknown word: %v", err)
	}
}

// TestLoadedModel: a Model rebuilt from its exported fields (λ and the
// settings) transforms as the fitted one.
func TestLoadedModel(t *testing.T) {
	docs, _ := planted(6, 80, 3, 5)
	m, err := Fit(docs, 15, 3, Options{MaxIter: 10, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Transform(docs)
	re := &Model{Topics: m.Topics, Vocab: m.Vocab, Lambda: m.Lambda, DocTopicPrior: m.DocTopicPrior,
		TopicWordPrior: m.TopicWordPrior, MaxDocUpdateIter: m.MaxDocUpdateIter, MeanChangeTol: m.MeanChangeTol}
	got, err := re.Transform(docs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("a Model rebuilt from its fields transforms differently")
	}
	for _, tc := range []struct {
		name string
		m    *Model
		want string
	}{
		{"short Lambda", &Model{Topics: 2, Vocab: 3, Lambda: []float64{1}, DocTopicPrior: 1, TopicWordPrior: 1, MaxDocUpdateIter: 1}, "Lambda holds 1 values for 2 topics × 3 words"},
		{"no prior", &Model{Topics: 1, Vocab: 1, Lambda: []float64{1}, TopicWordPrior: 1, MaxDocUpdateIter: 1}, "priors must be positive"},
		{"zero Lambda", &Model{Topics: 1, Vocab: 2, Lambda: []float64{1, 0}, DocTopicPrior: 1, TopicWordPrior: 1, MaxDocUpdateIter: 1}, "Lambda[1] = 0"},
		{"no updates", &Model{Topics: 1, Vocab: 1, Lambda: []float64{1}, DocTopicPrior: 1, TopicWordPrior: 1}, "MaxDocUpdateIter 0"},
	} {
		if _, err := tc.m.Transform(BagList{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Transform: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
