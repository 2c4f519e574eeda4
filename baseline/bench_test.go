package baseline

import (
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
