package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdamRowMatchesScalar checks the update kernel (the vector one on
// amd64) against the scalar loop bit for bit: random rows of every length
// up to 37 with gradients, moments and parameters over many magnitudes,
// zeros, infinities and NaNs (any NaN matching any NaN), with and without L2 and decoupled decay.
func TestAdamRowMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e30, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3.4e38}
	val := func() float32 {
		if rng.IntN(10) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-8)))
	}
	for trial := range 400 {
		n := trial % 38
		p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range n {
			p[i], g[i], m[i] = val(), val(), val()
			v[i] = float32(math.Abs(float64(val())))
		}
		l2, shrink := 0.0, 1.0
		switch trial % 3 {
		case 1:
			l2 = 0.01
		case 2:
			shrink = 1 - 1e-3*0.05
		}
		b1, b2 := 0.9, 0.999
		tt := float64(1 + trial%50)
		k := [9]float64{l2, b1, 1 - b1, b2, 1 - b2, shrink, 1e-3 / (1 - math.Pow(b1, tt)), 1 / math.Sqrt(1-math.Pow(b2, tt)), 1e-8}
		p2, m2, v2 := append([]float32(nil), p...), append([]float32(nil), m...), append([]float32(nil), v...)
		adamRow(p, g, m, v, &k)
		adamRowGo(p2, g, m2, v2, &k)
		same := func(a, b float32) bool {
			// NaN payloads may come out differently (which operand's NaN an
			// instruction passes on); any NaN matches any NaN.
			return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
		}
		for i := range n {
			if !same(p[i], p2[i]) || !same(m[i], m2[i]) || !same(v[i], v2[i]) {
				t.Fatalf("trial %d, n %d, element %d: kernel p %v m %v v %v, scalar p %v m %v v %v", trial, n, i, p[i], m[i], v[i], p2[i], m2[i], v2[i])
			}
		}
	}
}

// TestScaleRowMatchesScalar checks the clipping's scaling kernel against
// the scalar loop bit for bit (NaN matching NaN), for every length up to
// 37, with values over many magnitudes and specials.
func TestScaleRowMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-45, 3.4e38, float32(math.Inf(1)), float32(math.NaN())}
	for n := range 38 {
		g := make([]float32, n)
		for i := range g {
			if rng.IntN(8) == 0 {
				g[i] = special[rng.IntN(len(special))]
			} else {
				g[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6)))
			}
		}
		s := rng.Float64()
		want := append([]float32(nil), g...)
		scaleRowGo(want, s)
		scaleRow(g, s)
		for i := range g {
			if math.Float32bits(g[i]) != math.Float32bits(want[i]) && !(g[i] != g[i] && want[i] != want[i]) {
				t.Fatalf("n %d element %d: %v, scalar %v", n, i, g[i], want[i])
			}
		}
	}
}
