package evaluate_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
)

// QuerySample draws q distinct positions of n, in increasing order, the same
// for the same seed and another for another seed; at or above the cap (or
// with no cap) it samples nothing and means every document.
func TestQuerySample(t *testing.T) {
	tests := []struct {
		name    string
		n, q    int
		seed    uint64
		wantAll bool
	}{
		{"a tenth", 100, 10, 1, false},
		{"one", 1000, 1, 2, false},
		{"all but one", 50, 49, 3, false},
		{"cap at the test set", 5, 5, 1, true},
		{"cap above the test set", 5, 7, 1, true},
		{"no cap (0)", 5, 0, 1, true},
		{"no cap (AllQueries)", 5, evaluate.AllQueries, 1, true},
		{"no test documents", 0, 10, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := evaluate.QuerySample(tc.n, tc.q, tc.seed)
			if tc.wantAll {
				if got != nil {
					t.Fatalf("QuerySample(%d, %d) = %v, want nil (every document)", tc.n, tc.q, got)
				}
				return
			}
			if len(got) != tc.q {
				t.Fatalf("%d positions, want %d", len(got), tc.q)
			}
			for i, p := range got {
				if p < 0 || p >= tc.n || (i > 0 && p <= got[i-1]) {
					t.Fatalf("positions %v: not increasing within [0, %d), or repeated", got, tc.n)
				}
			}
			if again := evaluate.QuerySample(tc.n, tc.q, tc.seed); !slices.Equal(again, got) {
				t.Errorf("same seed, another sample: %v, then %v", got, again)
			}
			if tc.q > 1 && tc.q < tc.n-1 {
				if other := evaluate.QuerySample(tc.n, tc.q, tc.seed+1); slices.Equal(other, got) {
					t.Errorf("seeds %d and %d draw the same sample %v", tc.seed, tc.seed+1, got)
				}
			}
		})
	}
}

// Every position is drawn about equally often: over 4000 seeds, 5 of 20
// positions each, each position's count is 1000 give or take 5 standard
// deviations (√(4000·¼·¾) ≈ 27).
func TestQuerySampleUniform(t *testing.T) {
	const n, q, draws = 20, 5, 4000
	count := make([]int, n)
	for seed := range uint64(draws) {
		for _, p := range evaluate.QuerySample(n, q, seed) {
			count[p]++
		}
	}
	want := float64(draws) * q / n
	sd := math.Sqrt(float64(draws) * q / n * (1 - float64(q)/n))
	for p, c := range count {
		if math.Abs(float64(c)-want) > 5*sd {
			t.Errorf("position %d drawn %d times in %d samples, want %.0f ± %.0f", p, c, draws, want, 5*sd)
		}
	}
}

// clusterCorpus is n documents of 3 labels (label d mod 3) whose points lie
// around three centres on the hyperboloid (K = 1) with enough noise that
// kNN errs on some and link rankings vary; every document links to two
// others of its label and one at random. Two words per document, one θ row
// for all (3 topics), as handModel expects.
func clusterCorpus(n int, seed uint64) (*corpus.Graph, *model.Embeddings) {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	g := &corpus.Graph{Name: "clusters", DocPtr: []int64{0}, LabelNames: []string{"x", "y", "z"}}
	for w := range 30 {
		g.Vocab = append(g.Vocab, string(rune('a'+w%26))+string(rune('a'+w/26)))
	}
	centre := [3][2]float64{{2, 0}, {-2, 0}, {0, 2}}
	emb := &model.Embeddings{Width: 2, Topics: 3}
	for d := range n {
		y := int32(d % 3)
		g.Labels = append(g.Labels, y)
		g.Tokens = append(g.Tokens, y*10+int32(rng.IntN(10)), int32(rng.IntN(30)))
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
		x0, x1 := centre[y][0]+1.5*rng.NormFloat64(), centre[y][1]+1.5*rng.NormFloat64()
		emb.Points = append(emb.Points, float32(math.Sqrt(1+x0*x0+x1*x1)), float32(x0), float32(x1))
		emb.Theta = append(emb.Theta, 0.5, 0.3, 0.2)
	}
	var links [][2]int32
	for d := range n {
		for range 2 {
			other := 3*rng.IntN(n/3) + d%3 // same label
			links = append(links, [2]int32{int32(d), int32(other)})
		}
		links = append(links, [2]int32{int32(d), int32(rng.IntN(n))})
	}
	g.SetLinks(links)
	return g, emb
}

// ScoreQueries scores each sampled query exactly as Score does (its kNN
// prediction among every training document, its link AUC against every
// test document), so that on a sample its Micro-F1 and AUC are the means
// of the unsampled per-document values over the sample, and they lie
// within a few of its standard errors of the unsampled metrics. Without a
// sample it is Score, with no standard errors. The large corpus has more
// than evaluate.ExactLinkDocs test documents, so it takes the blocked
// paths (float32 matrix products), checked against the exact scores of the
// same queries up to float32 rounding.
func TestScoreQueries(t *testing.T) {
	tests := []struct {
		name    string
		docs, q int
		seeds   []uint64
		full    bool // also compare with the unsampled Score
		// Between the sample's metrics and its exact per-query values:
		// kNN predictions that may differ, and the AUC's tolerance.
		predTol int
		aucTol  float64
	}{
		{"exact paths", 1000, 60, []uint64{1, 2, 3, 4, 5}, true, 0, 0},
		{"blocked paths", 5*evaluate.ExactLinkDocs + 10, 40, []uint64{1}, false, 1, 0.05},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, emb := clusterCorpus(tc.docs, 9)
			s := corpus.PaperSplit(g)
			m := handModel(t, g, "hyperbolic", 1)
			dim := emb.Width + 1
			trainRows := pointRows(emb, s.Train)
			yTrain := labels(g, s.Train)
			var exact evaluate.Test
			if tc.full {
				exact = evaluate.Score(m, g, s, emb, 5)
				all := evaluate.ScoreQueries(m, g, s, emb, 5, nil)
				if !sameTest(all, exact) || all.KNNMicroF1SE != nil || all.LinkAUCSE != nil {
					t.Fatalf("ScoreQueries without a sample %+v, Score %+v", all, exact)
				}
			}
			for _, seed := range tc.seeds {
				sample := evaluate.QuerySample(len(s.Test), tc.q, seed)
				est := evaluate.ScoreQueries(m, g, s, emb, 5, sample)
				if est.KNNMicroF1 == nil || est.KNNMicroF1SE == nil || est.LinkAUC == nil || est.LinkAUCSE == nil {
					t.Fatalf("seed %d: sampled metrics or their standard errors missing: %+v", seed, est)
				}
				// The sample's exact per-query values.
				docs := make([]int32, len(sample))
				for i, p := range sample {
					docs[i] = s.Test[p]
				}
				pred := metrics.KNN(trainRows, yTrain, pointRows(emb, docs), dim, 5)
				wantF1 := metrics.MicroF1(labels(g, docs), pred)
				wantAUC, wantSE, _ := metrics.MeanSE(metrics.LinkAUCDocs(s.Test, s.TestLinks, sample, evaluate.LinkScore(m, emb)))
				for _, c := range []struct {
					name      string
					got, want float64
					tol       float64
				}{
					{"kNN Micro-F1", *est.KNNMicroF1, wantF1, float64(tc.predTol) * 100 / float64(len(sample))},
					{"kNN Micro-F1 SE", *est.KNNMicroF1SE, metrics.MicroF1SE(*est.KNNMicroF1, len(sample)), 0},
					{"link AUC", *est.LinkAUC, wantAUC, tc.aucTol},
					{"link AUC SE", *est.LinkAUCSE, wantSE, tc.aucTol},
				} {
					if math.Abs(c.got-c.want) > c.tol {
						t.Errorf("seed %d: %s %.10g on the sample, exact per-query values give %.10g", seed, c.name, c.got, c.want)
					}
				}
				if est.SupMicroF1 != nil || est.LogPerplexity == nil {
					t.Errorf("seed %d: supervised %v, log-perplexity %v", seed, est.SupMicroF1, est.LogPerplexity)
				}
				if !tc.full {
					continue
				}
				if *est.LogPerplexity != *exact.LogPerplexity {
					t.Errorf("seed %d: log-perplexity %v on a sample, %v unsampled: it must cover every test document", seed, *est.LogPerplexity, *exact.LogPerplexity)
				}
				for _, c := range []struct {
					name          string
					est, se, full float64
				}{
					{"kNN Micro-F1", *est.KNNMicroF1, *est.KNNMicroF1SE, *exact.KNNMicroF1},
					{"link AUC", *est.LinkAUC, *est.LinkAUCSE, *exact.LinkAUC},
				} {
					if c.se <= 0 || math.Abs(c.est-c.full) > 4*c.se {
						t.Errorf("seed %d: %s %.2f ± %.2f on %d queries, %.2f on all %d", seed, c.name, c.est, c.se, len(sample), c.full, len(s.Test))
					}
				}
			}
		})
	}
}

// Run scores every test document up to Options.Queries (10,000 by
// default: the hand corpus's 4 are all scored, as with AllQueries, to the
// bit) and a sample of Options.Queries above it, drawn from Options.Seed:
// the metrics ScoreQueries gives on that sample of Run's embeddings.
func TestRunQueries(t *testing.T) {
	g := handGraph()
	s := corpus.PaperSplit(g)
	m := handModel(t, g, "hyperbolic", 1)
	if err := m.Prepare(g, s.Train, 1); err != nil {
		t.Fatal(err)
	}
	in := model.NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	all := evaluate.Run(m, g, s, in, evaluate.Options{EmbedBatch: 7, Queries: evaluate.AllQueries})
	tests := []struct {
		name    string
		queries int
		seed    uint64
		sampled bool
	}{
		{"default", 0, 1, false},
		{"cap at the test set", 4, 1, false},
		{"cap above the test set", 100, 1, false},
		{"sample of 2", 2, 7, true},
		{"sample of 3", 3, 8, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := evaluate.Run(m, g, s, in, evaluate.Options{EmbedBatch: 7, Queries: tc.queries, Seed: tc.seed})
			got := res.Test
			if got.EvalSampled == nil || *got.EvalSampled != tc.sampled {
				t.Fatalf("EvalSampled %v, want %v", got.EvalSampled, tc.sampled)
			}
			if !tc.sampled {
				if got.EvalQueries != len(s.Test) || !sameTest(got, all.Test) || got.KNNMicroF1SE != nil || got.LinkAUCSE != nil {
					t.Errorf("below the cap: %+v, want every test document's metrics %+v", got, all.Test)
				}
				return
			}
			want := evaluate.ScoreQueries(m, g, s, res.Emb, metrics.DefaultK, evaluate.QuerySample(len(s.Test), tc.queries, tc.seed))
			want.LogPerplexityCompletion = all.Test.LogPerplexityCompletion // Run's, not Score's
			if got.EvalQueries != tc.queries || !sameTest(got, want) || !sameValue(got.KNNMicroF1SE, want.KNNMicroF1SE) || !sameValue(got.LinkAUCSE, want.LinkAUCSE) {
				t.Errorf("above the cap: %+v, want %d queries and ScoreQueries' %+v", got, tc.queries, want)
			}
		})
	}
}

// sameTest reports whether two Tests hold the same metrics, to the bit
// (the standard errors and the query count aside).
func sameTest(a, b evaluate.Test) bool {
	return sameValue(a.KNNMicroF1, b.KNNMicroF1) && sameValue(a.KNNMacroF1, b.KNNMacroF1) &&
		sameValue(a.SupMicroF1, b.SupMicroF1) && sameValue(a.SupMacroF1, b.SupMacroF1) &&
		sameValue(a.LinkAUC, b.LinkAUC) && sameValue(a.LogPerplexity, b.LogPerplexity) &&
		sameValue(a.LogPerplexityCompletion, b.LogPerplexityCompletion)
}

func sameValue(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// pointRows gathers the documents' rows of emb.Points.
func pointRows(emb *model.Embeddings, docs []int32) []float32 {
	dim := emb.Width + 1
	var x []float32
	for _, d := range docs {
		x = append(x, emb.Points[int(d)*dim:int(d+1)*dim]...)
	}
	return x
}

func labels(g *corpus.Graph, docs []int32) []int32 {
	y := make([]int32, len(docs))
	for i, d := range docs {
		y[i] = g.Labels[d]
	}
	return y
}
