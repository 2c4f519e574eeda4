package tsne

import (
	"fmt"
	"testing"
)

// BenchmarkGradient measures one exact gradient evaluation, the whole
// per-iteration cost of t-SNE (a run is Iterations of these).
func BenchmarkGradient(b *testing.B) {
	for _, n := range []int{618, 3000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			x, _ := clusters(1, 5, n/5, 50, 3)
			n := len(x) / 50
			P := make([]float64, n*n)
			sqDistances(P, x, n, 50, 0)
			jointAffinities(P, n, 30, 2)
			Y := randn(newRand(2), n*2, 1)
			g := newGradient(n, 2)
			grad := make([]float64, n*2)
			b.ResetTimer()
			for b.Loop() {
				g.compute(grad, P, Y, 1, 2)
			}
		})
	}
}

// BenchmarkEmbed is a complete default run (1000 iterations, perplexity 30)
// on five clusters in 50-D: the ML test split (618) and the whole ML corpus
// size (3000). Run with -benchtime=1x for the large one.
func BenchmarkEmbed(b *testing.B) {
	for _, n := range []int{618, 3000} {
		b.Run(fmt.Sprintf("N=%dxD=50", n), func(b *testing.B) {
			x, _ := clusters(1, 5, n/5, 50, 3)
			n := len(x) / 50
			for b.Loop() {
				if _, err := Embed(x, n, 50, Config{Seed: 1, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
