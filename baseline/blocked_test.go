package baseline

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
)

// forceBlocked sends every set down the blocked path, cut into tiles of
// rows rows (tile edges everywhere), until the returned function restores
// the thresholds.
func forceBlocked(dim, rows int) func() {
	pairs, docs, q, t := exactKNNPairs, exactLinkDocs, queryEntries, tileEntries
	exactKNNPairs, exactLinkDocs = 0, 0
	queryEntries, tileEntries = 3*rows*dim, rows*dim
	return func() { exactKNNPairs, exactLinkDocs, queryEntries, tileEntries = pairs, docs, q, t }
}

// TestBlockedMatchesExact: the dense float32 path scores what the exact
// sparse float64 path scores, for dense-able rows (tf-idf, tfidf-sign,
// LDA's θ), over whole and sampled query sets: each link score within
// float32 rounding, the metrics within a few hundredths of a point.
func TestBlockedMatchesExact(t *testing.T) {
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	ldaRes, err := FitLDA(g, s, LDAOptions{Topics: 5, Iter: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		x       *Vectors
		queries int
	}{
		{"tfidf", TFIDF(g, s), evaluate.AllQueries},
		{"tfidf-sign", SIGN(TFIDF(g, s), s, SIGNHops), evaluate.AllQueries},
		{"tfidf-sign sampled", SIGN(TFIDF(g, s), s, SIGNHops), 17},
		{"lda", ldaRes.Theta, evaluate.AllQueries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !useDense(tc.x) {
				t.Fatalf("density %.3f: the rows would not take the blocked path", tc.x.Density())
			}
			opt := EvalOptions{K: 5, Queries: tc.queries, Seed: 4}
			exact := EvaluateWith(g, s, tc.x, opt)
			restore := forceBlocked(tc.x.Dim, 7)
			blocked := EvaluateWith(g, s, tc.x, opt)
			norms := tc.x.sqNorms()
			n := len(s.Test)
			rows := []int{0, 3, n - 1}
			dots := make([]float64, len(rows)*n)
			linkBlockDots(tc.x, s.Test)(rows, dots)
			restore()
			for _, p := range []struct {
				name         string
				exact, dense float64
			}{
				{"Micro-F1", exact.MicroF1, blocked.MicroF1},
				{"Macro-F1", exact.MacroF1, blocked.MacroF1},
				{"link AUC cosine", exact.LinkAUC, blocked.LinkAUC},
				{"link AUC -sqdist", exact.LinkAUCSqDist, blocked.LinkAUCSqDist},
			} {
				if math.IsNaN(p.exact) || !near(p.exact, p.dense, 0.05) {
					t.Errorf("%s: exact %.4f, blocked %.4f", p.name, p.exact, p.dense)
				}
			}
			if exact.LinkDocs != blocked.LinkDocs || exact.Queries != blocked.Queries {
				t.Errorf("link docs %d/%d, queries %d/%d", exact.LinkDocs, blocked.LinkDocs, exact.Queries, blocked.Queries)
			}
			// Every pair's scores, exact against blocked.
			cosE, sqE := linkScores(tc.x, s.Test, norms)
			for r, p := range rows {
				for q := range n {
					i, j := s.Test[p], s.Test[q]
					cos := cosineScore(norms[i], norms[j], dots[r*n+q])
					sq := negSqScore(norms[i], norms[j], dots[r*n+q])
					if !near(cos, cosE(i, j), 1e-6) || !near(sq, sqE(i, j), 1e-5*(1+math.Abs(sqE(i, j)))) {
						t.Fatalf("pair (%d,%d): blocked cos %v −d² %v, exact %v %v", i, j, cos, sq, cosE(i, j), sqE(i, j))
					}
				}
			}
		})
	}
}

// TestSampledQueries: with at least as many queries as test documents the
// scores are the unsampled ones, bit for bit; with fewer, the queries are
// the model's (evaluate.QuerySample from the same seed) and standard
// errors come with the estimates.
func TestSampledQueries(t *testing.T) {
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	x := Smooth(TFIDF(g, s), s, Hops)
	all := Evaluate(g, s, x, 5)
	if all.Sampled || all.Queries != len(s.Test) || all.QueryPositions != nil || !math.IsNaN(all.MicroF1SE) {
		t.Fatalf("unsampled: %+v", all)
	}
	for _, tc := range []struct {
		name      string
		queries   int
		seed      uint64
		wantCount int
	}{
		{"as many as test documents", len(s.Test), 1, len(s.Test)},
		{"more than test documents", len(s.Test) + 5, 9, len(s.Test)},
		{"a sample", 20, 1, 20},
		{"a sample, another seed", 20, 2, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := EvaluateWith(g, s, x, EvalOptions{K: 5, Queries: tc.queries, Seed: tc.seed})
			if m.Queries != tc.wantCount {
				t.Fatalf("%d queries, want %d", m.Queries, tc.wantCount)
			}
			want := evaluate.QuerySample(len(s.Test), tc.queries, tc.seed)
			if !slices.Equal(m.QueryPositions, want) {
				t.Fatalf("query positions %v, the model's sample %v", m.QueryPositions, want)
			}
			if want == nil {
				if m.MicroF1 != all.MicroF1 || m.MacroF1 != all.MacroF1 || m.LinkAUC != all.LinkAUC ||
					m.LinkAUCSqDist != all.LinkAUCSqDist || m.LinkDocs != all.LinkDocs || m.Sampled {
					t.Errorf("all queries: %+v, unsampled %+v", m, all)
				}
				return
			}
			if !m.Sampled || math.IsNaN(m.MicroF1SE) || math.IsNaN(m.LinkAUCSE) || m.MicroF1SE < 0 {
				t.Errorf("sampled: %+v, want standard errors", m)
			}
			sc := m.Scores()
			if sc.EvalQueries != tc.wantCount || !sc.EvalSampled || sc.MicroF1SE == nil || sc.LinkAUCSE == nil {
				t.Errorf("JSON scores %+v", sc)
			}
		})
	}
}

// TestBlockedSameAtAnyThreads: the blocked path gives the same numbers on
// one thread as on two (each query's neighbours and each link score are
// computed by one goroutine, in a fixed order).
func TestBlockedSameAtAnyThreads(t *testing.T) {
	g := smallSynth(t)
	s := corpus.PaperSplit(g)
	x := SIGN(TFIDF(g, s), s, SIGNHops)
	defer forceBlocked(x.Dim, 7)()
	opt := EvalOptions{K: 5, Queries: 30, Seed: 2}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := EvaluateWith(g, s, x, opt)
	runtime.GOMAXPROCS(2)
	two := EvaluateWith(g, s, x, opt)
	if fmt.Sprintf("%v", one) != fmt.Sprintf("%v", two) {
		t.Errorf("one thread %+v\ntwo threads %+v", one, two)
	}
}
