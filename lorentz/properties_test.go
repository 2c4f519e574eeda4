package lorentz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// randTangents returns a (rows, n) leaf of tangent vectors at the origin with
// lengths |v|/√K drawn from [lo, hi].
func randTangents(rng *rand.Rand, rows, n int, k, lo, hi float64) *tensor.Tensor {
	t := tensor.Param("v", rows, n)
	for i := 0; i < rows; i++ {
		v := randVec(rng, n, (lo+(hi-lo)*rng.Float64())*math.Sqrt(k))
		for j, x := range v {
			t.Data[i*n+j] = float32(x)
		}
	}
	return t
}

func TestLorentzProperties(t *testing.T) {
	const rows = 64
	for _, k := range curvatures {
		for _, n := range dims {
			t.Run(fmt.Sprintf("K=%g/n=%d", k, n), func(t *testing.T) {
				h := Hyperboloid{K: k}
				rng := rand.New(rand.NewPCG(11, uint64(n)))
				tp := tensor.NewTape()

				// log_o(exp_o(v)) = v up to the cap.
				v := randTangents(rng, rows, n, k, 0, MaxTangentNorm)
				u := h.LogO(tp, h.ExpO(tp, v))
				for i, x := range v.Data {
					if d := math.Abs(float64(u.Data[i] - x)); d > 4e-6*max(1, math.Abs(float64(x))) {
						t.Fatalf("log_o(exp_o(v))[%d] = %g, v = %g", i, u.Data[i], x)
					}
				}

				// ⟨x,x⟩_L = −K within 1e-4 relative for points whose float32
				// time coordinate can carry it (radius ≤ 4√K: x0² ≤ 750K, so
				// the float32 rounding of x0² is ≤ 1e-4·K).
				x := h.ExpO(tp, randTangents(rng, rows, n, k, 0, 4))
				xx := h.Inner(tp, x, x)
				for i, q := range xx.Data {
					if math.Abs(float64(q)+k) > 1e-4*k {
						t.Fatalf("⟨x,x⟩_L = %g for row %d, want %g", q, i, -k)
					}
				}
				// The stored time coordinate is always the one recomputed
				// from the stored spatial part, even at the cap.
				far := h.ExpO(tp, randTangents(rng, rows, n, k, 0, 2*MaxTangentNorm))
				for i := 0; i < rows; i++ {
					r := far.Row(i)
					if want := float32(math.Sqrt(k + sumSq(r[1:]))); r[0] != want {
						t.Fatalf("row %d: x0 = %g, want %g", i, r[0], want)
					}
				}

				// Distances: symmetry, d(x,x) = 0, triangle inequality,
				// d(o, exp_o(v)) = |v|.
				y := h.ExpO(tp, randTangents(rng, rows, n, k, 0, 3))
				z := h.ExpO(tp, randTangents(rng, rows, n, k, 0, 3))
				dxy, dyx := h.Dist(tp, x, y), h.Dist(tp, y, x)
				dxz, dzy := h.Dist(tp, x, z), h.Dist(tp, z, y)
				dxx := h.Dist(tp, x, x)
				for i := 0; i < rows; i++ {
					if dxy.Data[i] != dyx.Data[i] {
						t.Fatalf("d(x,y) = %g, d(y,x) = %g", dxy.Data[i], dyx.Data[i])
					}
					if dxx.Data[i] != 0 {
						t.Fatalf("d(x,x) = %g", dxx.Data[i])
					}
					if dxy.Data[i] > (dxz.Data[i]+dzy.Data[i])*(1+1e-6) {
						t.Fatalf("triangle: d(x,y) = %g > d(x,z) + d(z,y) = %g", dxy.Data[i], dxz.Data[i]+dzy.Data[i])
					}
				}
				vo := randTangents(rng, rows, n, k, 0, MaxTangentNorm)
				do := h.Dist(tp, h.Origin(tp, rows, n), h.ExpO(tp, vo))
				for i := 0; i < rows; i++ {
					want := math.Sqrt(sumSq(vo.Row(i)))
					if math.Abs(float64(do.Data[i])-want) > 2e-6*max(1, want) {
						t.Fatalf("d(o, exp_o(v)) = %g, |v| = %g", do.Data[i], want)
					}
				}
			})
		}
	}
}

// TestLorentzTransportInvariants checks in float64 that parallel transport
// preserves Minkowski inner products and lands in the target's tangent space,
// for transports from the origin, between points, to the origin, and to a
// nearly identical point.
func TestLorentzTransportInvariants(t *testing.T) {
	minkowski := func(a, b []float64) float64 { return -a[0]*b[0] + dot(a[1:], b[1:]) }
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x, y := pointPair(g, n, r, rng)
		if r.name == "zero" {
			y = make([]float64, n+1)
			writeTime(g, y)
		}
		// Two tangent vectors at x, by transport from the origin; check that
		// step first: ⟨[0|b1],[0|b2]⟩ = b1·b2 must be preserved.
		b1, b2 := randVec(rng, n, 0.7*g.sk), randVec(rng, n, 1.3*g.sk)
		u, w := make([]float64, n+1), make([]float64, n+1)
		transportO(g, x, b1, u)
		transportO(g, x, b2, w)
		scale := math.Sqrt(sumSq(x)) // coordinate size: rounding is relative to it
		tol := 1e-12 * scale * scale
		if d := math.Abs(minkowski(u, w) - dot(b1, b2)); d > tol*max(1, math.Abs(dot(b1, b2))) {
			t.Errorf("PT_o→x changed ⟨b1,b2⟩ = %g to %g", dot(b1, b2), minkowski(u, w))
		}
		if d := math.Abs(minkowski(x, u)); d > tol*math.Sqrt(sumSq(u)+1) {
			t.Errorf("PT_o→x(b) not tangent at x: ⟨x,v⟩_L = %g", d)
		}
		pu, pw := make([]float64, n+1), make([]float64, n+1)
		transport(g, x, y, u, pu)
		transport(g, x, y, w, pw)
		scale = max(scale, math.Sqrt(sumSq(y)))
		tol = 1e-12 * scale * scale
		if d := math.Abs(minkowski(pu, pw) - minkowski(u, w)); d > tol*max(1, math.Abs(minkowski(u, w))) {
			t.Errorf("PT_x→y changed ⟨u,w⟩_L = %g to %g", minkowski(u, w), minkowski(pu, pw))
		}
		if d := math.Abs(minkowski(y, pu)); d > tol*math.Sqrt(sumSq(pu)+1) {
			t.Errorf("PT_x→y(u) not tangent at y: ⟨y,PT u⟩_L = %g", d)
		}
	})
}

// TestLorentzNoNaN runs every op forward and backward in float32 through the
// cases reported to produce NaN in public hyperbolic code: n = 1, coincident
// points, points at the origin, zero tangent vectors, transport to the
// origin, and tangent vectors far beyond the cap.
func TestLorentzNoNaN(t *testing.T) {
	for _, m := range []Manifold{Hyperboloid{K: 0.5}, Hyperboloid{K: 1}, Hyperboloid{K: 2}, Euclidean{}} {
		for _, n := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/n=%d", m.Name(), n), func(t *testing.T) {
				tp := tensor.NewTape()
				// Rows: zero, tiny, moderate, 1000× beyond the cap.
				norms := []float32{0, 1e-30, 1e-4, 1, 1e4}
				v := tensor.Param("v", len(norms), n)
				for i, s := range norms {
					v.Data[i*n] = s
				}
				x := m.ExpO(tp, v)
				y := m.ExpO(tp, v) // coincident with x
				o := m.Origin(tp, len(norms), n)
				b := tensor.Param("b", n)
				b.Data[0] = 0.5
				pt := m.TransportO(tp, x, b)
				outs := []*tensor.Tensor{
					x, m.LogO(tp, x), m.LogX(tp, x, y), m.LogX(tp, o, x), m.LogX(tp, x, o),
					m.Dist(tp, x, y), m.SqDist(tp, x, y), m.Dist(tp, o, x),
					m.PairDist(tp, x, y), m.PairSqDist(tp, x, x),
					pt, m.ExpX(tp, x, pt), m.ExpX(tp, x, m.LogX(tp, x, y)),
					m.Transport(tp, x, o, pt), m.Transport(tp, x, y, pt), m.Project(tp, x),
					m.Inner(tp, x, pt),
				}
				for oi, out := range outs {
					if !allFinite(out.Data) {
						t.Fatalf("output %d not finite: %v", oi, out.Data)
					}
				}
				for oi, out := range outs {
					if out.Grad == nil {
						continue
					}
					seed := make([]float32, out.Len())
					for i := range seed {
						seed[i] = 1
					}
					v.ZeroGrad()
					b.ZeroGrad()
					tp.BackwardWith(out, seed)
					if !allFinite(v.Grad, b.Grad) {
						t.Fatalf("output %d: gradient not finite: v %v b %v", oi, v.Grad, b.Grad)
					}
					for _, o2 := range outs {
						o2.ZeroGrad()
					}
					x.ZeroGrad()
					y.ZeroGrad()
					pt.ZeroGrad()
				}
			})
		}
	}
}

// TestLorentzEuclidean checks the ablation geometry: identities and squared
// Euclidean distance, with finite-difference-free closed forms.
func TestLorentzEuclidean(t *testing.T) {
	var m Manifold = Euclidean{}
	tp := tensor.NewTape()
	v := leaf([]float64{1, 2, 3, -1, 0, 2}, 2, 3)
	w := leaf([]float64{0, 2, 1, -1, 0, 2}, 2, 3)
	x, y := m.ExpO(tp, v), m.ExpO(tp, w)
	for i := 0; i < 2; i++ {
		if x.Row(i)[0] != 0 {
			t.Fatalf("Euclidean point row %d = %v, want [0|v]", i, x.Row(i))
		}
	}
	tests := []struct {
		name string
		got  *tensor.Tensor
		want []float64
	}{
		{"LogO", m.LogO(tp, x), []float64{1, 2, 3, -1, 0, 2}},
		{"SqDist", m.SqDist(tp, x, y), []float64{5, 0}},
		{"Dist", m.Dist(tp, x, y), []float64{math.Sqrt(5), 0}},
		{"PairSqDist", m.PairSqDist(tp, x, y), []float64{5, 9, 6, 0}},
		{"LogX", m.LogX(tp, x, y), []float64{0, -1, 0, -2, 0, 0, 0, 0}},
		{"ExpX", m.ExpX(tp, x, y), []float64{0, 1, 4, 4, 0, -2, 0, 4}},
		{"TransportO", m.TransportO(tp, x, leaf([]float64{7, 8, 9}, 3)), []float64{0, 7, 8, 9, 0, 7, 8, 9}},
		{"Inner", m.Inner(tp, x, y), []float64{7, 5}},
	}
	for _, tc := range tests {
		if w, ok := closeRel(tc.got.Data, tc.want, 1e-7); !ok {
			t.Errorf("%s = %v, want %v (%g)", tc.name, tc.got.Data, tc.want, w)
		}
	}
	// d|x−y|²/dx = 2(x−y); the Dist gradient at the coincident row is 0.
	d := m.Dist(tp, x, y)
	tp.BackwardWith(d, []float32{1, 1})
	s5 := 1 / math.Sqrt(5)
	if w, ok := closeRel(v.Grad, []float64{s5, 0, 2 * s5, 0, 0, 0}, 1e-6); !ok {
		t.Errorf("Dist gradient %v (%g)", v.Grad, w)
	}
}
