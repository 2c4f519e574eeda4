package lorentz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The gradient checks run the float64 instantiation of each kernel: the
// analytic backward is compared with central finite differences of the same
// forward code, coordinate by coordinate, for a random output seed.

// kernelCase is one op instantiated on float64 rows.
type kernelCase struct {
	name string
	ins  [][]float64                     // input rows (modified in place by the checker)
	fwd  func(ins [][]float64) []float64 // output row
	bwd  func(ins [][]float64, gout []float64) [][]float64
	h    float64 // finite-difference step; 0 means 1e-6·max(1, largest |input|)
}

// checkKernel compares analytic and central-difference gradients. The step
// is kc.h or 1e-6·max(1, largest |input|) (far-out points have coordinates
// and outputs of size e^α, so a smaller step drowns in rounding); the error
// is measured relative to the largest analytic gradient entry over all inputs
// (plus 1e-7, for gradients that vanish, e.g. at coincident points).
func checkKernel(t *testing.T, kc kernelCase, tol float64) {
	t.Helper()
	out := kc.fwd(kc.ins)
	rng := rand.New(rand.NewPCG(7, uint64(len(out))))
	seed := make([]float64, len(out))
	for i := range seed {
		seed[i] = rng.Float64()*2 - 1
	}
	an := kc.bwd(kc.ins, seed)
	loss := func() float64 {
		o := kc.fwd(kc.ins)
		var s float64
		for i, v := range o {
			s += seed[i] * v
		}
		return s
	}
	var scale, big float64
	for ii, in := range kc.ins {
		for k, g := range an[ii] {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Fatalf("%s: input %d: analytic gradient not finite: %v", kc.name, ii, an[ii])
			}
			scale = max(scale, math.Abs(g))
			big = max(big, math.Abs(in[k]))
		}
	}
	h := kc.h
	if h == 0 {
		h = 1e-6 * max(1, big)
	}
	for ii, in := range kc.ins {
		for k := range in {
			x := in[k]
			in[k] = x + h
			lp := loss()
			in[k] = x - h
			lm := loss()
			in[k] = x
			fd := (lp - lm) / (2 * h)
			if d := math.Abs(fd - an[ii][k]); d > tol*(scale+1e-7) {
				t.Errorf("%s: input %d coord %d: analytic %.10g, finite difference %.10g (|diff| %.3g, scale %.3g)",
					kc.name, ii, k, an[ii][k], fd, d, scale)
			}
		}
	}
}

// randVec returns n values with Euclidean norm exactly norm (direction
// uniform on the sphere).
func randVec(rng *rand.Rand, n int, norm float64) []float64 {
	v := make([]float64, n)
	var s float64
	for i := range v {
		v[i] = rng.NormFloat64()
		s += v[i] * v[i]
	}
	for i := range v {
		v[i] *= norm / math.Sqrt(s)
	}
	return v
}

func point64(g geo, v []float64) []float64 {
	y := make([]float64, len(v)+1)
	expO(g, v, y)
	return y
}

// perturbPoint returns a point near x: x's spatial part plus a random offset
// of the given size, projected onto the hyperboloid.
func perturbPoint(g geo, rng *rand.Rand, x []float64, size float64) []float64 {
	y := make([]float64, len(x))
	d := randVec(rng, len(x)-1, size)
	for k := 1; k < len(x); k++ {
		y[k] = x[k] + d[k-1]
	}
	writeTime(g, y)
	return y
}

// geometryRegimes lists (name, |v|/√K of the first point, second-point
// relation) combinations covering the numerical limits.
type regime struct {
	name  string
	alpha float64 // |v|/√K of the base point / tangent vector
	near  float64 // >0: second point at this Euclidean offset from the first; 0: independent; <0: identical
}

var regimes = []regime{
	{"random", 1.3, 0},
	{"tiny", 1e-7, 0},
	{"zero", 0, 0},
	{"below-cap", 0.9 * MaxTangentNorm, 0},
	{"beyond-cap", 1.25 * MaxTangentNorm, 0},
	{"far", 6, 0},
	{"near-pair", 1.1, 1e-4},
	{"near-pair-far", 5, 1e-3},
	{"identical", 0.8, -1},
}

var curvatures = []float64{0.5, 1, 2}
var dims = []int{1, 2, 16}

// forAll runs fn for every curvature, dimension and regime with a seeded rng.
func forAll(t *testing.T, fn func(t *testing.T, g geo, n int, r regime, rng *rand.Rand)) {
	for ki, k := range curvatures {
		for _, n := range dims {
			for ri, r := range regimes {
				t.Run(fmt.Sprintf("K=%g/n=%d/%s", k, n, r.name), func(t *testing.T) {
					fn(t, newGeo(k), n, r, rand.New(rand.NewPCG(uint64(ki*100+n), uint64(ri))))
				})
			}
		}
	}
}

// pointPair returns points x, y (width n+1) for a regime: x = exp_o of a
// tangent vector of length alpha·√K (capped for far regimes so that points
// stay precise), y independent, near or identical.
// nearStep is the finite-difference step for a regime: well below the
// separation of a near pair, where d has curvature of order 1/separation.
func nearStep(g geo, r regime, x []float64) float64 {
	if r.near > 0 {
		return 1e-3 * r.near * max(1, math.Sqrt(sumSq(x[1:])))
	}
	return 0
}

func pointPair(g geo, n int, r regime, rng *rand.Rand) (x, y []float64) {
	a := min(r.alpha, 8)
	x = point64(g, randVec(rng, n, a*g.sk))
	switch {
	case r.near > 0:
		y = perturbPoint(g, rng, x, r.near*max(1, math.Sqrt(sumSq(x[1:]))))
	case r.near < 0:
		y = append([]float64(nil), x...)
	default:
		y = point64(g, randVec(rng, n, (0.2+2*rng.Float64())*g.sk))
	}
	return x, y
}

func TestLorentzGradExpO(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		v := randVec(rng, n, r.alpha*g.sk)
		checkKernel(t, kernelCase{
			name: "expO",
			ins:  [][]float64{v},
			fwd: func(in [][]float64) []float64 {
				y := make([]float64, n+1)
				expO(g, in[0], y)
				return y
			},
			bwd: func(in [][]float64, gy []float64) [][]float64 {
				y := make([]float64, n+1)
				expO(g, in[0], y)
				gv := make([]float64, n)
				expOBack(g, in[0], y, gy, gv)
				return [][]float64{gv}
			},
		}, 1e-6)
	})
}

func TestLorentzGradLogO(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x, _ := pointPair(g, n, r, rng)
		checkKernel(t, kernelCase{
			name: "logO",
			ins:  [][]float64{x},
			fwd: func(in [][]float64) []float64 {
				u := make([]float64, n)
				logO(g, in[0], u)
				return u
			},
			bwd: func(in [][]float64, gu []float64) [][]float64 {
				gx := make([]float64, n+1)
				logOBack(g, in[0], gu, gx)
				return [][]float64{gx}
			},
		}, 1e-6)
	})
}

func TestLorentzGradExpX(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x := point64(g, randVec(rng, n, (0.3+2*rng.Float64())*g.sk))
		// A tangent vector at x of Lorentz norm alpha·√K: transport one from
		// the origin (transport preserves the norm).
		v := make([]float64, n+1)
		transportO(g, x, randVec(rng, n, r.alpha*g.sk), v)
		checkKernel(t, kernelCase{
			name: "expX",
			ins:  [][]float64{x, v},
			fwd: func(in [][]float64) []float64 {
				y := make([]float64, n+1)
				expX(g, in[0], in[1], y)
				return y
			},
			bwd: func(in [][]float64, gy []float64) [][]float64 {
				y := make([]float64, n+1)
				expX(g, in[0], in[1], y)
				gx, gv := make([]float64, n+1), make([]float64, n+1)
				expXBack(g, in[0], in[1], y, gy, gx, gv)
				return [][]float64{gx, gv}
			},
		}, 2e-6)
	})
}

func TestLorentzGradLogX(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x, y := pointPair(g, n, r, rng)
		checkKernel(t, kernelCase{
			name: "logX",
			h:    nearStep(g, r, x),
			ins:  [][]float64{x, y},
			fwd: func(in [][]float64) []float64 {
				z := make([]float64, n+1)
				logX(g, in[0], in[1], z)
				return z
			},
			bwd: func(in [][]float64, gz []float64) [][]float64 {
				gx, gy := make([]float64, n+1), make([]float64, n+1)
				logXBack(g, in[0], in[1], gz, gx, gy)
				return [][]float64{gx, gy}
			},
		}, 2e-6)
	})
}

// distKernel evaluates d or d² of two float64 points and its gradient.
func distKernel(g geo, x, y []float64, squared bool) float64 {
	p := newPairGeom(g, x[1:], y[1:])
	d := distFromS(g, p.s)
	if squared {
		return d * d
	}
	return d
}

func distKernelBack(g geo, x, y []float64, gd float64, squared bool) (gx, gy []float64) {
	p := newPairGeom(g, x[1:], y[1:])
	ds := distDS(g, p.s)
	if squared {
		ds = sqDistDS(g, p.s)
	}
	gx, gy = make([]float64, len(x)), make([]float64, len(y))
	addChordGrad(g, &p, gd*ds, x[1:], y[1:], gx[1:], gy[1:])
	return gx, gy
}

func TestLorentzGradDist(t *testing.T) {
	for _, squared := range []bool{false, true} {
		t.Run(fmt.Sprintf("squared=%v", squared), func(t *testing.T) {
			forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
				x, y := pointPair(g, n, r, rng)
				if r.near < 0 {
					// d is not differentiable at x = y: the gradient must be
					// finite and zero; d² is smooth there and is checked.
					gx, gy := distKernelBack(g, x, y, 1, squared)
					for k := range gx {
						if gx[k] != 0 || gy[k] != 0 {
							t.Fatalf("gradient at coincident points = %v, %v; want 0", gx, gy)
						}
					}
					if !squared {
						return
					}
				}
				checkKernel(t, kernelCase{
					name: "dist",
					h:    nearStep(g, r, x),
					ins:  [][]float64{x, y},
					fwd: func(in [][]float64) []float64 {
						return []float64{distKernel(g, in[0], in[1], squared)}
					},
					bwd: func(in [][]float64, gd []float64) [][]float64 {
						gx, gy := distKernelBack(g, in[0], in[1], gd[0], squared)
						return [][]float64{gx, gy}
					},
				}, 2e-6)
			})
		})
	}
}

func TestLorentzGradTransportO(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x, _ := pointPair(g, n, r, rng)
		b := randVec(rng, n, 0.7*g.sk)
		checkKernel(t, kernelCase{
			name: "transportO",
			ins:  [][]float64{x, b},
			fwd: func(in [][]float64) []float64 {
				v := make([]float64, n+1)
				transportO(g, in[0], in[1], v)
				return v
			},
			bwd: func(in [][]float64, gv []float64) [][]float64 {
				gx, gb := make([]float64, n+1), make([]float64, n)
				transportOBack(g, in[0], in[1], gv, gx, gb)
				return [][]float64{gx, gb}
			},
		}, 1e-6)
	})
}

func TestLorentzGradTransport(t *testing.T) {
	forAll(t, func(t *testing.T, g geo, n int, r regime, rng *rand.Rand) {
		x, y := pointPair(g, n, r, rng)
		if r.name == "zero" {
			y = make([]float64, n+1) // transport to the origin
			writeTime(g, y)
		}
		v := make([]float64, n+1)
		transportO(g, x, randVec(rng, n, 0.9*g.sk), v)
		checkKernel(t, kernelCase{
			name: "transport",
			h:    nearStep(g, r, x),
			ins:  [][]float64{x, y, v},
			fwd: func(in [][]float64) []float64 {
				w := make([]float64, n+1)
				transport(g, in[0], in[1], in[2], w)
				return w
			},
			bwd: func(in [][]float64, gw []float64) [][]float64 {
				gx, gy, gv := make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
				transportBack(g, in[0], in[1], in[2], gw, gx, gy, gv)
				return [][]float64{gx, gy, gv}
			},
		}, 2e-6)
	})
}

// TestLorentzGradSeries checks the series/closed-form switch of each
// derivative ratio: both sides of seriesCut agree, and each ratio matches a
// central difference of its function.
func TestLorentzGradSeries(t *testing.T) {
	fns := []struct {
		name string
		f, r func(float64) float64 // function and derivative ratio f'(a)/a
	}{
		{"sinhc", sinhc, sinhcD},
		{"asinhc", asinhc, asinhcD},
		{"bsinh", bsinh, bsinhD},
	}
	for _, fn := range fns {
		lo, hi := fn.r(seriesCut*(1-1e-9)), fn.r(seriesCut*(1+1e-9))
		if math.Abs(lo-hi) > 1e-10 {
			t.Errorf("%s: ratio jumps at the series cut: %.15g vs %.15g", fn.name, lo, hi)
		}
		// Below the cut a central difference of f (≈ 1 + c·a²) drowns in
		// rounding; the series is checked there by continuity above.
		for _, a := range []float64{0.05, 0.5, 3, 20} {
			h := 1e-5 * a
			fd := (fn.f(a+h) - fn.f(a-h)) / (2 * h) / a
			if d := math.Abs(fd - fn.r(a)); d > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s'(%g)/%g = %.12g, finite difference %.12g", fn.name, a, a, fn.r(a), fd)
			}
		}
	}
}
