package baseline

import (
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/metrics"
)

// BenchmarkEvaluateML times the protocol (sparse kNN over 2,469 training
// rows for 618 test rows, link AUC over the test Gram matrix) on ML's
// tf-idf vectors smoothed over two hops, about a fifth full.
func BenchmarkEvaluateML(b *testing.B) {
	g, err := corpus.LoadFolder(shared.Dataset(b, "ml"), corpus.LoadOptions{NoWordVectors: true})
	if err != nil {
		b.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	x := Smooth(TFIDF(g, s), s, Hops)
	b.ResetTimer()
	for b.Loop() {
		Evaluate(g, s, x, metrics.DefaultK)
	}
}

// BenchmarkSmoothML times two hops of averaging of ML's tf-idf vectors.
func BenchmarkSmoothML(b *testing.B) {
	g, err := corpus.LoadFolder(shared.Dataset(b, "ml"), corpus.LoadOptions{NoWordVectors: true})
	if err != nil {
		b.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	x := TFIDF(g, s)
	b.ResetTimer()
	for b.Loop() {
		Smooth(x, s, Hops)
	}
}

// benchRows is a synthetic (n, dim) set of rows about density full, for
// the blocked path's benchmarks (no dataset needed).
func benchRows(n, dim int, density float64) *Vectors {
	rng := rand.New(rand.NewPCG(1, 2))
	v := &Vectors{Dim: dim, Ptr: make([]int64, 1, n+1)}
	for range n {
		for c := range dim {
			if rng.Float64() < density {
				v.Idx = append(v.Idx, int32(c))
				v.Val = append(v.Val, rng.Float32())
			}
		}
		v.Ptr = append(v.Ptr, int64(len(v.Idx)))
	}
	return v
}

// BenchmarkKNNBlocked times the blocked kNN of 1,000 queries against
// 20,000 training rows of 600 columns, two thirds full (tfidf-sign's
// density on the synthetic corpus), and BenchmarkKNNSparse the exact
// sparse loop on the same rows, for comparison.
func BenchmarkKNNBlocked(b *testing.B) { benchKNN(b, true) }

// BenchmarkKNNSparse: see BenchmarkKNNBlocked.
func BenchmarkKNNSparse(b *testing.B) { benchKNN(b, false) }

func benchKNN(b *testing.B, blocked bool) {
	const nTr, nQ = 20000, 1000
	x := benchRows(nTr+nQ, 600, 0.64)
	norms := x.sqNorms()
	train, queries := make([]int32, nTr), make([]int32, nQ)
	y := make([]int32, nTr)
	for i := range train {
		train[i], y[i] = int32(i), int32(i%3)
	}
	for i := range queries {
		queries[i] = int32(nTr + i)
	}
	b.ResetTimer()
	for b.Loop() {
		if blocked {
			knnDense(x, norms, train, y, queries, metrics.DefaultK)
		} else {
			knnSparse(x, norms, train, y, queries, metrics.DefaultK)
		}
	}
}

// BenchmarkLinkBlocked times the blocked link AUCs (cosine and
// −squared distance) of 1,024 anchors, each linked to its successor,
// against 20,000 test rows as above.
func BenchmarkLinkBlocked(b *testing.B) {
	const n, anchors = 20000, 1024
	x := benchRows(n, 600, 0.64)
	test := make([]int32, n)
	for i := range test {
		test[i] = int32(i)
	}
	var links [][2]int32
	for i := range anchors {
		links = append(links, [2]int32{int32(i), int32(i + 1)})
	}
	queries := make([]int, anchors)
	for i := range queries {
		queries[i] = i
	}
	norms := x.sqNorms()
	b.ResetTimer()
	for b.Loop() {
		linkBlocked(x, test, links, queries, norms)
	}
}
