package tensor

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestParallelForCoversRange(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 1000, 1 << 16, 1<<16 + 7} {
		hits := make([]atomic.Int32, n)
		parallelFor(n, 64, 1<<10, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
		})
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, h)
			}
		}
	}
}

// TestParallelMatchesSerial runs a step large enough for every parallel path
// (element-wise splits, split sgemm, per-head attention, per-worker partial
// sums) with GOMAXPROCS 2 and 1 and compares outputs and gradients; under
// -race it also checks the parallel kernels for data races.
func TestParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const B, T, C, H = 4, 48, 96, 4
	x := randParam(rng, -1, 1, B, T, C)
	w1 := randParam(rng, -0.2, 0.2, C, 4*C)
	b1 := randParam(rng, -0.2, 0.2, 4*C)
	w2 := randParam(rng, -0.2, 0.2, 4*C, C)
	g := randParam(rng, 0.5, 1.5, C)
	mask := make([]bool, B*T)
	for i := range mask {
		mask[i] = i%7 != 3
	}
	params := []*Tensor{x, w1, b1, w2, g}
	run := func(procs int) (out []float32, grads [][]float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		for _, p := range params {
			p.ZeroGrad()
		}
		tp := NewTape()
		a := tp.Attention(x, x, x, H, mask)
		h := tp.AddLayerNorm(x, a, g, nil)
		m := tp.Linear(tp.BiasGELU(tp.Linear(h, w1, nil), b1), w2, nil)
		y := tp.Softmax(tp.Add(tp.Tanh(m), h), nil)
		seed := make([]float32, len(y.Data))
		for i := range seed {
			seed[i] = float32(i%13) - 6
		}
		tp.BackwardWith(y, seed)
		out = append(out, y.Data...)
		for _, p := range params {
			grads = append(grads, append([]float32(nil), p.Grad...))
		}
		return out, grads
	}
	o2, g2 := run(2)
	o1, g1 := run(1)
	near := func(what string, a, b []float32) {
		for i := range a {
			if math.Abs(float64(a[i]-b[i])) > 1e-4*math.Max(1, math.Abs(float64(b[i]))) {
				t.Fatalf("%s[%d]: parallel %v, serial %v", what, i, a[i], b[i])
			}
		}
	}
	near("output", o2, o1)
	for i := range g2 {
		near(params[i].String(), g2[i], g1[i])
	}
}

// ZeroGrad clears every element on one core and on two, below and above
// the size from which the clearing is split over the cores; a tensor
// without gradient is left alone.
func TestZeroGradClearsAll(t *testing.T) {
	for _, procs := range []int{1, 2} {
		for _, n := range []int{1, 1<<16 - 1, 1 << 16, 1<<17 + 3} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				p := Param("p", n)
				for i := range p.Grad {
					p.Grad[i] = float32(i + 1)
				}
				p.ZeroGrad()
				for i, g := range p.Grad {
					if g != 0 {
						t.Fatalf("procs %d, %d values: gradient[%d] = %v after ZeroGrad", procs, n, i, g)
					}
				}
			}()
		}
	}
	New(3).ZeroGrad() // no gradient: nothing to clear, no panic
}
