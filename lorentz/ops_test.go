package lorentz

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/tensor"
)

// leaf returns a gradient-carrying tensor holding data (float64 → float32).
func leaf(data []float64, shape ...int) *tensor.Tensor {
	t := tensor.Param("leaf", shape...)
	for i, v := range data {
		t.Data[i] = float32(v)
	}
	return t
}

func to64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func flat(rows ...[]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// closeRel reports whether got matches want within rel·max(1, |want|∞).
func closeRel(got []float32, want []float64, rel float64) (float64, bool) {
	var scale, worst float64
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	scale = max(scale, 1)
	for i, w := range want {
		worst = max(worst, math.Abs(float64(got[i])-w)/scale)
	}
	return worst, worst <= rel && !math.IsNaN(worst)
}

func allFinite(xs ...[]float32) bool {
	for _, x := range xs {
		for _, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return false
			}
		}
	}
	return true
}

// TestLorentzTapeMatchesKernels runs every tape op on float32 batches and
// compares outputs and input gradients with the float64 kernels (which the
// finite-difference tests verify) evaluated on the same float32 values.
func TestLorentzTapeMatchesKernels(t *testing.T) {
	const rows = 7
	for _, k := range curvatures {
		for _, n := range dims {
			t.Run(fmt.Sprintf("K=%g/n=%d", k, n), func(t *testing.T) {
				h, g := Hyperboloid{K: k}, newGeo(k)
				rng := rand.New(rand.NewPCG(uint64(n), uint64(k*10)))
				var xd, yd, vd, bd []float64
				for i := 0; i < rows; i++ {
					alpha := []float64{0, 1e-6, 0.5, 2, 4, 0.7, 1.1}[i]
					x := point64(g, randVec(rng, n, alpha*g.sk))
					y := point64(g, randVec(rng, n, 1.5*g.sk))
					if i == 5 {
						y = append([]float64(nil), x...) // coincident
					}
					b := randVec(rng, n, 0.8*g.sk)
					v := make([]float64, n+1)
					transportO(g, x, b, v)
					xd, yd, vd, bd = append(xd, x...), append(yd, y...), append(vd, v...), append(bd, b...)
				}
				c := n + 1
				type opCase struct {
					name string
					run  func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor
					ref  func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64)
				}
				cases := []opCase{
					{"ExpO", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.ExpO(tp, b) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gb = make([]float64, len(b))
							for i := 0; i < rows; i++ {
								yo := make([]float64, c)
								expO(g, b[i*n:(i+1)*n], yo)
								copy(out[i*c:], yo)
								expOBack(g, b[i*n:(i+1)*n], yo, gout[i*c:(i+1)*c], gb[i*n:(i+1)*n])
							}
							return
						}},
					{"LogO", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.LogO(tp, x) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gx = make([]float64, len(x))
							for i := 0; i < rows; i++ {
								logO(g, x[i*c:(i+1)*c], out[i*n:(i+1)*n])
								logOBack(g, x[i*c:(i+1)*c], gout[i*n:(i+1)*n], gx[i*c:(i+1)*c])
							}
							return
						}},
					{"ExpX", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.ExpX(tp, x, v) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gx, gv = make([]float64, len(x)), make([]float64, len(v))
							for i := 0; i < rows; i++ {
								s := func(a []float64) []float64 { return a[i*c : (i+1)*c] }
								expX(g, s(x), s(v), s(out))
								expXBack(g, s(x), s(v), s(out), s(gout), s(gx), s(gv))
							}
							return
						}},
					{"LogX", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.LogX(tp, x, y) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gx, gy = make([]float64, len(x)), make([]float64, len(y))
							for i := 0; i < rows; i++ {
								s := func(a []float64) []float64 { return a[i*c : (i+1)*c] }
								logX(g, s(x), s(y), s(out))
								logXBack(g, s(x), s(y), s(gout), s(gx), s(gy))
							}
							return
						}},
					{"TransportO", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.TransportO(tp, x, b) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gx, gb = make([]float64, len(x)), make([]float64, len(b))
							for i := 0; i < rows; i++ {
								s := func(a []float64) []float64 { return a[i*c : (i+1)*c] }
								transportO(g, s(x), b[i*n:(i+1)*n], s(out))
								transportOBack(g, s(x), b[i*n:(i+1)*n], s(gout), s(gx), gb[i*n:(i+1)*n])
							}
							return
						}},
					{"Transport", func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor { return h.Transport(tp, x, y, v) },
						func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
							gx, gy, gv = make([]float64, len(x)), make([]float64, len(y)), make([]float64, len(v))
							for i := 0; i < rows; i++ {
								s := func(a []float64) []float64 { return a[i*c : (i+1)*c] }
								transport(g, s(x), s(y), s(v), s(out))
								transportBack(g, s(x), s(y), s(v), s(gout), s(gx), s(gy), s(gv))
							}
							return
						}},
				}
				for _, sq := range []bool{false, true} {
					name := "Dist"
					if sq {
						name = "SqDist"
					}
					cases = append(cases, opCase{name, func(tp *tensor.Tape, x, y, v, b *tensor.Tensor) *tensor.Tensor {
						if sq {
							return h.SqDist(tp, x, y)
						}
						return h.Dist(tp, x, y)
					}, func(x, y, v, b, out, gout []float64) (gx, gy, gv, gb []float64) {
						gx, gy = make([]float64, len(x)), make([]float64, len(y))
						for i := 0; i < rows; i++ {
							s := func(a []float64) []float64 { return a[i*c : (i+1)*c] }
							out[i] = distKernel(g, s(x), s(y), sq)
							ax, ay := distKernelBack(g, s(x), s(y), gout[i], sq)
							copy(s(gx), ax)
							copy(s(gy), ay)
						}
						return
					}})
				}
				for _, oc := range cases {
					tp := tensor.NewTape()
					x, y, v, b := leaf(xd, rows, c), leaf(yd, rows, c), leaf(vd, rows, c), leaf(bd, rows, n)
					out := oc.run(tp, x, y, v, b)
					seed := make([]float32, out.Len())
					for i := range seed {
						seed[i] = float32(rng.Float64()*2 - 1)
					}
					tp.BackwardWith(out, seed)
					want := make([]float64, out.Len())
					gx, gy, gv, gb := oc.ref(to64(x.Data), to64(y.Data), to64(v.Data), to64(b.Data), want, to64(seed))
					if w, ok := closeRel(out.Data, want, 2e-6); !ok {
						t.Errorf("%s: output differs from the float64 kernel by %.3g (relative)", oc.name, w)
					}
					for _, p := range []struct {
						name string
						got  *tensor.Tensor
						want []float64
					}{{"x", x, gx}, {"y", y, gy}, {"v", v, gv}, {"b", b, gb}} {
						if p.want == nil {
							if !allZero(p.got.Grad) {
								t.Errorf("%s: unexpected gradient for %s", oc.name, p.name)
							}
							continue
						}
						if w, ok := closeRel(p.got.Grad, p.want, 2e-5); !ok {
							t.Errorf("%s: gradient of %s differs from the float64 kernel by %.3g (relative)", oc.name, p.name, w)
						}
					}
				}
			})
		}
	}
}

func allZero(x []float32) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// TestLorentzPairwiseMatchesRowwise checks PairDist/PairSqDist (forward and
// backward) against the row-wise ops applied to every pair.
func TestLorentzPairwiseMatchesRowwise(t *testing.T) {
	for _, m := range []Manifold{Hyperboloid{K: 0.5}, Hyperboloid{K: 2}, Euclidean{}} {
		for _, sq := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/squared=%v", m.Name(), sq), func(t *testing.T) {
				const nx, ny, n = 5, 4, 3
				rng := rand.New(rand.NewPCG(3, 4))
				tp := tensor.NewTape()
				vx, vy := tensor.Param("vx", nx, n), tensor.Param("vy", ny, n)
				for i := range vx.Data {
					vx.Data[i] = float32(rng.NormFloat64())
				}
				for i := range vy.Data {
					vy.Data[i] = float32(rng.NormFloat64())
				}
				copy(vy.Data[:n], vx.Data[:n]) // one coincident pair
				px, py := tensor.Param("px", nx, n+1), tensor.Param("py", ny, n+1)
				x, y := m.ExpO(tp, vx), m.ExpO(tp, vy)
				copy(px.Data, x.Data)
				copy(py.Data, y.Data)
				pair := m.PairSqDist
				row := m.SqDist
				if !sq {
					pair, row = m.PairDist, m.Dist
				}
				tp2 := tensor.NewTape()
				out := pair(tp2, px, py)
				seed := make([]float32, nx*ny)
				for i := range seed {
					seed[i] = float32(rng.Float64())
				}
				tp2.BackwardWith(out, seed)
				// Row-wise reference: pair (i,j) as a one-row op.
				gx, gy := make([]float64, len(px.Data)), make([]float64, len(py.Data))
				for i := 0; i < nx; i++ {
					for j := 0; j < ny; j++ {
						tp3 := tensor.NewTape()
						a, b := tensor.Param("a", 1, n+1), tensor.Param("b", 1, n+1)
						copy(a.Data, px.Row(i))
						copy(b.Data, py.Row(j))
						d := row(tp3, a, b)
						if math.Abs(float64(d.Data[0]-out.Data[i*ny+j])) > 1e-6*max(1, float64(d.Data[0])) {
							t.Errorf("pair (%d,%d): %g, row-wise %g", i, j, out.Data[i*ny+j], d.Data[0])
						}
						tp3.BackwardWith(d, []float32{seed[i*ny+j]})
						for k := 0; k <= n; k++ {
							gx[i*(n+1)+k] += float64(a.Grad[k])
							gy[j*(n+1)+k] += float64(b.Grad[k])
						}
					}
				}
				if w, ok := closeRel(px.Grad, gx, 1e-5); !ok {
					t.Errorf("x gradient differs from the row-wise sum by %.3g", w)
				}
				if w, ok := closeRel(py.Grad, gy, 1e-5); !ok {
					t.Errorf("y gradient differs from the row-wise sum by %.3g", w)
				}
			})
		}
	}
}

// lorentzVectors is the layout of testvectors/lorentz.json.
type lorentzVectors struct {
	Cases []struct {
		K                 float64
		N                 int
		V                 []float64   `json:"v"`
		W                 []float64   `json:"w"`
		Mat               [][]float64 `json:"W"` // exact-case match keeps it apart from w
		Bias              []float64   `json:"bias"`
		Exp0V             []float64   `json:"exp0_v"`
		Exp0W             []float64   `json:"exp0_w"`
		Log0Exp0V         []float64   `json:"log0_exp0_v"`
		Dist, SqDist      float64
		LogXY             []float64 `json:"logx_y"`
		PT0ToXBias        []float64 `json:"pt0_to_x_bias"`
		ExpXPTBias        []float64 `json:"expx_pt_bias"`
		HypLinearNoBias   []float64 `json:"hyplinear_nobias"`
		HypLinear, HypTan []float64
	}
}

// TestLorentzVectors checks the ops against independent float64 values
// (testvectors/lorentz.json) with x = exp_o(v), y = exp_o(w):
// exp0_v, exp0_w, log0_exp0_v = log_o(x), dist and sqdist = d(x,y)(²),
// logx_y = log_x(y), pt0_to_x_bias = PT_{o→x}([0|bias]) and
// expx_pt_bias = exp_x(PT_{o→x}([0|bias])).
//
// Tolerances, relative to max(1, |want|∞): 1e-9 + 1e-16·cosh(a)cosh(b) for
// the float64 kernels on the float64 inputs (a, b the radii of x, y: the
// reference's own rounding); for the float32 tape ops 2e-6 on maps
// and transports (the float32 rounding of v, about 6e-8, grows by the radius
// α ≤ 11.5 to ≈ 7e-7) and, for distances between far points, the sideways
// float32 resolution of the stored points 2⁻²⁴·(sinh a + sinh b)·√K.
func TestLorentzVectors(t *testing.T) {
	raw, err := os.ReadFile(shared.Path(t, "testvectors/lorentz.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tv lorentzVectors
	if err := json.Unmarshal(raw, &tv); err != nil {
		t.Fatalf("testvectors/lorentz.json: %v", err)
	}
	if len(tv.Cases) == 0 {
		t.Fatal("testvectors/lorentz.json: no cases")
	}
	for ci, cs := range tv.Cases {
		t.Run(fmt.Sprintf("%d/K=%g/n=%d", ci, cs.K, cs.N), func(t *testing.T) {
			g, h, n := newGeo(cs.K), Hyperboloid{K: cs.K}, cs.N
			// float64 kernels.
			x, y := point64(g, cs.V), point64(g, cs.W)
			u := make([]float64, n)
			logO(g, x, u)
			z, pt, ex := make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
			logX(g, x, y, z)
			transportO(g, x, cs.Bias, pt)
			expX(g, x, pt, ex)
			a, b := math.Sqrt(sumSq(cs.V))/g.sk, math.Sqrt(sumSq(cs.W))/g.sk // radii of x, y in units of √K
			// The reference forms Minkowski products x0y0 − x_s·y_s, whose
			// rounding is about 1e-16·cosh(a)cosh(b) relative.
			tol64 := 1e-9 + 1e-16*math.Cosh(a)*math.Cosh(b)
			check64 := func(name string, got, want []float64) {
				var scale, worst float64
				for _, w := range want {
					scale = max(scale, math.Abs(w))
				}
				for i := range want {
					worst = max(worst, math.Abs(got[i]-want[i])/max(1, scale))
				}
				if worst > tol64 {
					t.Errorf("float64 %s = %v, want %v (rel %.3g)", name, got, want, worst)
				}
			}
			check64("exp0_v", x, cs.Exp0V)
			check64("exp0_w", y, cs.Exp0W)
			check64("log0_exp0_v", u, cs.Log0Exp0V)
			check64("dist", []float64{distKernel(g, x, y, false)}, []float64{cs.Dist})
			check64("sqdist", []float64{distKernel(g, x, y, true)}, []float64{cs.SqDist})
			check64("logx_y", z, cs.LogXY)
			check64("pt0_to_x_bias", pt, cs.PT0ToXBias)
			check64("expx_pt_bias", ex, cs.ExpXPTBias)

			// float32 tape ops.
			tp := tensor.NewTape()
			xt, yt := h.ExpO(tp, leaf(cs.V, 1, n)), h.ExpO(tp, leaf(cs.W, 1, n))
			bt := leaf(cs.Bias, n)
			ptt := h.TransportO(tp, xt, bt)
			check32 := func(name string, got []float32, want []float64, rel float64) {
				if w, ok := closeRel(got, want, rel); !ok {
					t.Errorf("float32 %s = %v, want %v (rel %.3g > %.3g)", name, got, want, w, rel)
				}
			}
			check32("exp0_v", xt.Data, cs.Exp0V, 2e-6)
			check32("exp0_w", yt.Data, cs.Exp0W, 2e-6)
			check32("log0_exp0_v", h.LogO(tp, xt).Data, cs.Log0Exp0V, 2e-6)
			check32("logx_y", h.LogX(tp, xt, yt).Data, cs.LogXY, 2e-6)
			check32("pt0_to_x_bias", ptt.Data, cs.PT0ToXBias, 2e-6)
			// The transported bias is stored in float32 at x, whose sideways
			// resolution is 2⁻²⁴·sinh(a) relative (package documentation).
			check32("expx_pt_bias", h.ExpX(tp, xt, ptt).Data, cs.ExpXPTBias, 2e-6+0x1p-24*math.Sinh(a))
			res := 0x1p-24 * (math.Sinh(a) + math.Sinh(b)) * g.sk
			d := float64(h.Dist(tp, xt, yt).Data[0])
			if e := math.Abs(d - cs.Dist); e > 2e-6*max(1, cs.Dist)+res {
				t.Errorf("float32 dist = %.9g, want %.9g (|err| %.3g)", d, cs.Dist, e)
			}
			d2 := float64(h.SqDist(tp, xt, yt).Data[0])
			if e := math.Abs(d2 - cs.SqDist); e > 2e-6*max(1, cs.SqDist)+2*cs.Dist*res {
				t.Errorf("float32 sqdist = %.9g, want %.9g (|err| %.3g)", d2, cs.SqDist, e)
			}
		})
	}
}
