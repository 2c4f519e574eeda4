package lorentz

import (
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// Benchmarks on 4096 rows of width 256, forward and backward, reporting
// ns per row.
const benchRows, benchDim = 4096, 256

func benchTangents() *tensor.Tensor {
	return randTangents(rand.New(rand.NewPCG(1, 1)), benchRows, benchDim, 1, 0, 4)
}

func runBench(b *testing.B, f func(tp *tensor.Tape) *tensor.Tensor) {
	tp := tensor.NewTape()
	var seed []float32
	b.ResetTimer()
	for b.Loop() {
		tp.Reset()
		out := f(tp)
		if seed == nil {
			seed = make([]float32, out.Len())
			for i := range seed {
				seed[i] = 1
			}
		}
		tp.BackwardWith(out, seed)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

func BenchmarkLorentzExpO(b *testing.B) {
	h, v := Hyperboloid{K: 1}, benchTangents()
	runBench(b, func(tp *tensor.Tape) *tensor.Tensor { return h.ExpO(tp, v) })
}

func BenchmarkLorentzLogO(b *testing.B) {
	h, v := Hyperboloid{K: 1}, benchTangents()
	x := h.ExpO(tensor.NewTape(), v)
	x.Grad = make([]float32, x.Len())
	runBench(b, func(tp *tensor.Tape) *tensor.Tensor { return h.LogO(tp, x) })
}

func BenchmarkLorentzDist(b *testing.B) {
	h := Hyperboloid{K: 1}
	tp0 := tensor.NewTape()
	x, y := h.ExpO(tp0, benchTangents()), h.ExpO(tp0, randTangents(rand.New(rand.NewPCG(2, 2)), benchRows, benchDim, 1, 0, 4))
	x.Grad, y.Grad = make([]float32, x.Len()), make([]float32, y.Len())
	runBench(b, func(tp *tensor.Tape) *tensor.Tensor { return h.SqDist(tp, x, y) })
}
