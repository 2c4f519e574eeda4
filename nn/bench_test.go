package nn_test

import (
	"testing"

	"github.com/gtformer/gtformer/bench"
	"github.com/gtformer/gtformer/tensor"
)

// BenchmarkTransformerLayerStep is one forward + backward step of the
// reference layer (batch 64 × 128 tokens, width 256, 4 heads, MLP 1024),
// reporting GFLOP/s by bench.StepFLOPs (matrix products only: 3 × forward,
// 41.9 GFLOP per step).
func BenchmarkTransformerLayerStep(b *testing.B) {
	l := bench.NewLayer(bench.DefaultLayer, 1)
	l.Step()
	b.ReportAllocs()
	for b.Loop() {
		l.Step()
	}
	b.ReportMetric(bench.StepFLOPs(bench.DefaultLayer)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.Logf("blas %s", tensor.BLASName())
}
