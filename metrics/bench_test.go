package metrics

import (
	"math/rand/v2"
	"testing"
)

func randMatrix(rng *rand.Rand, n, dim int) []float32 {
	x := make([]float32, n*dim)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// BenchmarkKNN_3000x256 classifies 600 test rows against 2,400 training rows
// of width 256: the 80/20 split of a 3,000-document corpus.
func BenchmarkKNN_3000x256(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 0))
	const nTr, nTe, dim = 2400, 600, 256
	tr, te := randMatrix(rng, nTr, dim), randMatrix(rng, nTe, dim)
	y := make([]int32, nTr)
	for i := range y {
		y[i] = int32(rng.IntN(7))
	}
	b.ResetTimer()
	for b.Loop() {
		KNN(tr, y, te, dim, DefaultK)
	}
}

// BenchmarkLinkAUC_600x256 ranks 600 test documents against each other with
// about 3 held-out links each, by −squared distance.
func BenchmarkLinkAUC_600x256(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 0))
	const n, dim = 600, 256
	x := randMatrix(rng, n, dim)
	test := make([]int32, n)
	for i := range test {
		test[i] = int32(i)
	}
	links := make([][2]int32, 900)
	for i := range links {
		links[i] = [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))}
	}
	score := NegSqEuclidean(x, dim)
	b.ResetTimer()
	for b.Loop() {
		LinkAUC(test, links, score)
	}
}

// BenchmarkKNNBlocked_20000x129 classifies 4,000 test rows against 16,000
// training rows of width 129 (the default model's points) through the
// blocked matrix-product path that corpora of 100K+ documents take.
func BenchmarkKNNBlocked_20000x129(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 0))
	const nTr, nTe, dim = 16000, 4000, 129
	tr, te := randMatrix(rng, nTr, dim), randMatrix(rng, nTe, dim)
	y := make([]int32, nTr)
	for i := range y {
		y[i] = int32(rng.IntN(7))
	}
	for b.Loop() {
		KNNBlocked(tr, y, te, dim, DefaultK)
	}
}
