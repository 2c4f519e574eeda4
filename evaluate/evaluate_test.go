package evaluate_test

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// handGraph is 20 documents over 30 words with labels 0 (docs 0-4), 1 (5-9),
// 2 (10-15) for the training documents and 0, 1, 2, 2 for the test
// documents 16-19 (paper split: 16 training documents, doc 15 validates).
// Training links join consecutive documents of a class; the test links are
// 16-17, 16-18 and 18-19, plus links from test to training documents.
func handGraph() *corpus.Graph {
	g := &corpus.Graph{Name: "hand", DocPtr: []int64{0}, LabelNames: []string{"x", "y", "z"}}
	for w := 0; w < 30; w++ {
		g.Vocab = append(g.Vocab, string(rune('a'+w%26))+string(rune('a'+w/26)))
	}
	labels := []int32{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 0, 1, 2, 2}
	for d, y := range labels {
		for j := 0; j < 3+d%4; j++ {
			g.Tokens = append(g.Tokens, int32(int(y)*10+(d*7+j*3)%10))
		}
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	g.Labels = labels
	var links [][2]int32
	for d := 0; d < 15; d++ {
		if labels[d] == labels[d+1] {
			links = append(links, [2]int32{int32(d), int32(d + 1)})
		}
	}
	links = append(links, [2]int32{16, 17}, [2]int32{16, 18}, [2]int32{18, 19}, [2]int32{0, 16}, [2]int32{5, 17}, [2]int32{10, 19})
	g.SetLinks(links)
	return g
}

// handModel is a tiny model for g (3 topics).
func handModel(t *testing.T, g *corpus.Graph, geometry string, K float64) *model.Model {
	t.Helper()
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 2, 2, 1, 4, 8
	cfg.Tree.InitDepth, cfg.Tree.Branching = 2, 2
	cfg.Geometry, cfg.Curvature = model.Geometry(geometry), K
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// spatial are the hand-placed spatial coordinates (n = 2): three clusters
// around (2,0), (−2,0) and (0,2); test document 18 (label 2) sits in the
// cluster of label 0.
var spatial = [][2]float64{
	{2, 0}, {2.1, 0.05}, {1.9, -0.05}, {2, 0.1}, {2.05, -0.1},
	{-2, 0}, {-2.1, 0.05}, {-1.9, -0.05}, {-2, 0.1}, {-2.05, -0.1},
	{0, 2}, {0.05, 2.1}, {-0.05, 1.9}, {0.1, 2}, {-0.1, 2.05}, {0, 1.95},
	{2.05, 0.02}, {-2.05, 0.01}, {1.95, -0.03}, {0.03, 2.02},
}

// handEmbeddings places the documents at the spatial coordinates above with
// the time coordinate of the geometry (√(K+|x|²), or 0 for Euclidean
// points), gives every document the same θ row, and optional supervised
// predictions.
func handEmbeddings(geometry string, K float64, pred []int32) *model.Embeddings {
	e := &model.Embeddings{Width: 2, Topics: 3, Pred: pred}
	for _, p := range spatial {
		x0 := 0.0
		if geometry == "hyperbolic" {
			x0 = math.Sqrt(K + p[0]*p[0] + p[1]*p[1])
		}
		e.Points = append(e.Points, float32(x0), float32(p[0]), float32(p[1]))
		e.Theta = append(e.Theta, 0.5, 0.3, 0.2)
	}
	return e
}

// lorentzSqDist is d(x,y)² on the hyperboloid of curvature −1/K from the
// Minkowski product in 256-bit arithmetic (no cancellation at these
// magnitudes): cosh(d/√K) − 1 = −⟨x,y⟩_L/K − 1 = 2·sinh²(d/(2√K)).
func lorentzSqDist(x, y []float64, K float64) float64 {
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(256).SetFloat64(v) }
	time := func(p []float64) *big.Float {
		t := f(K)
		for _, c := range p {
			t.Add(t, new(big.Float).Mul(f(c), f(c)))
		}
		return t.Sqrt(t)
	}
	inner := new(big.Float).Mul(time(x), time(y)) // −⟨x,y⟩_L = x0y0 − x·y
	for i := range x {
		inner.Sub(inner, new(big.Float).Mul(f(x[i]), f(y[i])))
	}
	inner.Quo(inner, f(K))
	delta, _ := inner.Sub(inner, f(1)).Float64()
	d := 2 * math.Sqrt(K) * math.Asinh(math.Sqrt(math.Max(delta, 0)/2))
	return d * d
}

// TestScoreHandMade checks Score against values worked out by hand: kNN (k =
// 5) predicts 0, 1, 0, 2 for the test documents (true 0, 1, 2, 2): Micro-F1
// 75, Macro-F1 (2/3 + 1 + 2/3)/3; the supervised predictions 1, 1, 2, 2 give
// Micro-F1 75, Macro-F1 (0 + 2/3 + 1)/3; link AUC per test document (others
// ranked by −d²) is 0.5, 0, 1, 1, mean 62.5, in both geometries. The
// log-perplexity equals its definition computed directly from θ and β.
func TestScoreHandMade(t *testing.T) {
	g := handGraph()
	s := corpus.PaperSplit(g)
	if !slices.Equal(s.Test, []int32{16, 17, 18, 19}) || len(s.TestLinks) != 3 {
		t.Fatalf("split: test %v, test links %v", s.Test, s.TestLinks)
	}
	pred := make([]int32, 20)
	copy(pred[16:], []int32{1, 1, 2, 2})
	for _, geometry := range []string{"hyperbolic", "euclidean"} {
		t.Run(geometry, func(t *testing.T) {
			m := handModel(t, g, geometry, 1)
			emb := handEmbeddings(geometry, 1, pred)
			got := evaluate.Score(m, g, s, emb, 5)
			for _, c := range []struct {
				name string
				v    *float64
				want float64
			}{
				{"kNN Micro-F1", got.KNNMicroF1, 75},
				{"kNN Macro-F1", got.KNNMacroF1, 100 * 7.0 / 9},
				{"supervised Micro-F1", got.SupMicroF1, 75},
				{"supervised Macro-F1", got.SupMacroF1, 100 * 5.0 / 9},
				{"link AUC", got.LinkAUC, 62.5},
			} {
				if c.v == nil {
					t.Errorf("%s missing", c.name)
				} else if math.Abs(*c.v-c.want) > 1e-9 {
					t.Errorf("%s = %.10g, want %.10g", c.name, *c.v, c.want)
				}
			}
			// Perplexity exponent: −Σ n_w log Σ_t θ_t β_tw / Σ n_w over
			// the test documents, θ refined by the model's fold-in
			// rounds (metrics.FoldIn, tested on its own).
			beta := m.Beta()
			V := len(g.Vocab)
			var start []float32
			for _, d := range s.Test {
				start = append(start, emb.Theta[int(d)*3:int(d+1)*3]...)
			}
			theta := metrics.FoldIn(start, beta, 3, metrics.Subset(g, s.Test), nil, m.Cfg.FoldIn)
			var nll, words float64
			for i, d := range s.Test {
				for _, w := range g.Doc(int(d)) {
					var p float64
					for k := 0; k < 3; k++ {
						p += float64(theta[i*3+k]) * float64(beta[k*V+int(w)])
					}
					nll -= math.Log(p)
					words++
				}
			}
			if got.LogPerplexity == nil || math.Abs(*got.LogPerplexity-nll/words) > 1e-6 {
				t.Errorf("log-perplexity %v, want %.8g", got.LogPerplexity, nll/words)
			}
		})
	}
}

// TestScoreAbsentMetrics: without labels the F1 keys are absent, without
// supervised predictions the supervised keys, without test links the AUC.
func TestScoreAbsentMetrics(t *testing.T) {
	g := handGraph()
	m := handModel(t, g, "hyperbolic", 1)
	emb := handEmbeddings("hyperbolic", 1, nil)
	s := corpus.PaperSplit(g)
	got := evaluate.Score(m, g, s, emb, 5)
	if got.KNNMicroF1 == nil || got.SupMicroF1 != nil || got.SupMacroF1 != nil {
		t.Errorf("unsupervised: kNN %v, supervised %v %v", got.KNNMicroF1, got.SupMicroF1, got.SupMacroF1)
	}
	unlabelled := *g
	unlabelled.Labels, unlabelled.LabelNames = nil, nil
	got = evaluate.Score(m, &unlabelled, s, emb, 5)
	if got.KNNMicroF1 != nil || got.KNNMacroF1 != nil || got.LinkAUC == nil || got.LogPerplexity == nil {
		t.Errorf("unlabelled: %+v", got)
	}
	noTestLinks := *s
	noTestLinks.TestLinks = nil
	if got := evaluate.Score(m, g, &noTestLinks, emb, 5); got.LinkAUC != nil {
		t.Errorf("no test links, AUC %v", *got.LinkAUC)
	}
}

// TestLinkScore: on the hyperboloid (K = 1 and K = 2) the score is −d² as
// lorentz.PairSqDist computes it (float64 inside, float32 out) and as a
// 256-bit Minkowski product gives it, also for nearby points far from the origin
// (where a Minkowski product loses digits) and for coincident points; for
// the Euclidean ablation it is −‖x−y‖² of the spatial parts.
func TestLinkScore(t *testing.T) {
	g := handGraph()
	// Nearby points at radius ≈ 5 and ≈ 12 (lorentz.MaxTangentNorm), apart
	// across and along the radius: their coordinates are ≈ 74 and ≈ 81,000,
	// so a float64 x0·y0 − x·y cancels 9 digits.
	far := [][2]float64{{60, 40}, {60.001, 40}, {81377, 0}, {81377, 0.0625}, {0, 81377}, {0, 81377.0078125}, {-3, 7}, {-3, 7}}
	for _, K := range []float64{1, 2} {
		m := handModel(t, g, "hyperbolic", K)
		emb := handEmbeddings("hyperbolic", K, nil)
		for _, p := range far {
			emb.Points = append(emb.Points, float32(math.Sqrt(K+p[0]*p[0]+p[1]*p[1])), float32(p[0]), float32(p[1]))
		}
		pts := append(slices.Clone(spatial), far...)
		// Stored time coordinates are ignored: spoil one.
		emb.Points[0] = 123
		score := evaluate.LinkScore(m, emb)
		N := len(pts)
		tp := tensor.NewTape()
		tp.NoGrad = true
		x := tensor.FromData(slices.Clone(emb.Points), N, 3)
		ref := lorentz.Hyperboloid{K: K}.PairSqDist(tp, x, x)
		for i := 0; i < N; i++ {
			for j := 0; j < N; j++ {
				got := score(int32(i), int32(j))
				// The points as float32 stores them.
				xi := []float64{float64(float32(pts[i][0])), float64(float32(pts[i][1]))}
				xj := []float64{float64(float32(pts[j][0])), float64(float32(pts[j][1]))}
				want := -lorentzSqDist(xi, xj, K)
				if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("K=%g (%d,%d): score %.12g, 256-bit Minkowski form %.12g", K, i, j, got, want)
				}
				op := -float64(ref.Data[i*N+j])
				if math.Abs(got-op) > 1e-6*(1+math.Abs(op)) {
					t.Errorf("K=%g (%d,%d): score %.9g, lorentz.PairSqDist %.9g", K, i, j, got, op)
				}
			}
		}
		if s := score(int32(N-2), int32(N-1)); s != 0 {
			t.Errorf("K=%g: coincident points score %g, want 0", K, s)
		}
	}

	m := handModel(t, g, "euclidean", 1)
	emb := handEmbeddings("euclidean", 1, nil)
	score := evaluate.LinkScore(m, emb)
	for i := range spatial {
		for j := range spatial {
			a, b := spatial[i], spatial[j]
			dx := float64(float32(a[0])) - float64(float32(b[0]))
			dy := float64(float32(a[1])) - float64(float32(b[1]))
			if got, want := score(int32(i), int32(j)), -(dx*dx + dy*dy); math.Abs(got-want) > 1e-12 {
				t.Errorf("euclidean (%d,%d): score %.12g, want %.12g", i, j, got, want)
			}
		}
	}
}

// TestRun: Run embeds every document, a test document only through its
// links to training documents (adding links among test documents changes
// no embedding), and reports the topics' shape and diversity as computed
// directly from β.
func TestRun(t *testing.T) {
	g := handGraph()
	s := corpus.PaperSplit(g)
	m := handModel(t, g, "hyperbolic", 1)
	if err := m.Prepare(g, s.Train, 1); err != nil {
		t.Fatal(err)
	}
	in := model.NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	res := evaluate.Run(m, g, s, in, evaluate.Options{EmbedBatch: 7})
	if n := len(res.Emb.Points) / (res.Emb.Width + 1); n != g.NumDocs() {
		t.Fatalf("embedded %d documents, want %d", n, g.NumDocs())
	}

	more := *g
	more.SetLinks(append(slices.Clone(g.Links), [2]int32{17, 19}, [2]int32{16, 19}))
	sMore := corpus.PaperSplit(&more)
	resMore := evaluate.Run(m, &more, sMore, in, evaluate.Options{EmbedBatch: 7})
	if !slices.Equal(res.Emb.Points, resMore.Emb.Points) {
		t.Error("links among test documents changed the embeddings")
	}

	tq := res.Topics
	tab := m.Topics.Tables()
	if tq.Count != tab.T || tq.Depth != 2 || !slices.Equal(tq.PerLevel, []int{1, 2}) {
		t.Errorf("topics %d in %d levels %v, want %d in 2 levels [1 2]", tq.Count, tq.Depth, tq.PerLevel, tab.T)
	}
	seen := map[int32]bool{}
	for _, row := range m.TopicWords(25) {
		for _, w := range row {
			seen[w.Word] = true
		}
	}
	if want := float64(len(seen)) / float64(25*tab.T); math.Abs(tq.Diversity-want) > 1e-12 {
		t.Errorf("diversity %g, want %g", tq.Diversity, want)
	}
	if !(tq.NPMI >= -1 && tq.NPMI <= 1) || tq.NPMIRef != "training documents" {
		t.Errorf("NPMI %g against %q", tq.NPMI, tq.NPMIRef)
	}
	// Document completion: the model embeds each test document from the
	// observed half of its words and scores the other half, as a direct
	// computation does.
	obs, held := metrics.CompletionSplit(metrics.Subset(g, s.Test), evaluate.CompletionSeed)
	half := g.WithDocs(s.Test, obs)
	emb := m.Embed(m.Inputs(half, s.TrainNeighbors32), s.Test, s.TrainNeighbors32, 64, 128)
	beta := m.Beta()
	V := len(g.Vocab)
	theta := metrics.FoldIn(emb.Theta, beta, emb.Topics, obs, nil, m.Cfg.FoldIn)
	var nll, words float64
	for i := range s.Test {
		for _, w := range held[i] {
			var p float64
			for k := 0; k < emb.Topics; k++ {
				p += float64(theta[i*emb.Topics+k]) * float64(beta[k*V+int(w)])
			}
			nll -= math.Log(p)
			words++
		}
	}
	if words == 0 {
		t.Fatal("no held-out words: the check proves nothing")
	}
	if c := res.Test.LogPerplexityCompletion; c == nil || math.Abs(*c-nll/words) > 1e-6 {
		t.Errorf("completion log-perplexity %v, want %.8g", c, nll/words)
	}
	// The metrics Run reports are Score's on Run's embeddings.
	if got := evaluate.Score(m, g, s, res.Emb, metrics.DefaultK); *got.LinkAUC != *res.Test.LinkAUC || *got.KNNMicroF1 != *res.Test.KNNMicroF1 {
		t.Error("Run's test metrics differ from Score on its embeddings")
	}
}
