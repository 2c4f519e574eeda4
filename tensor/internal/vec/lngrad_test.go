package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLNGradRowMatchesScalar checks LNGradRow (eight lanes on AVX2) against
// the scalar expression bit for bit, for every length up to 40 and each
// of its forms: dx alone, dx and dr, dx and dr through a mask.
func TestLNGradRowMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	f := func() float32 { return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))) }
	for n := range 41 {
		for form := range 3 {
			dy, gam, xh, mask := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			dx, dr := make([]float32, n), make([]float32, n)
			for j := range n {
				dy[j], gam[j], xh[j], dx[j], dr[j] = f(), f(), f(), f(), f()
				if rng.IntN(2) == 0 {
					mask[j] = 1.25
				}
			}
			r, sg, sgx := f(), f(), f()
			wx, wr := append([]float32(nil), dx...), append([]float32(nil), dr...)
			for j := range n {
				d := r * (dy[j]*gam[j] - sg - xh[j]*sgx)
				wx[j] += d
				switch form {
				case 1:
					wr[j] += d
				case 2:
					wr[j] += d * mask[j]
				}
			}
			var gr, gm []float32
			if form > 0 {
				gr = dr
			}
			if form == 2 {
				gm = mask
			}
			LNGradRow(dx, gr, dy, gam, xh, gm, r, sg, sgx)
			for j := range n {
				if math.Float32bits(dx[j]) != math.Float32bits(wx[j]) || math.Float32bits(dr[j]) != math.Float32bits(wr[j]) {
					t.Fatalf("n %d form %d element %d: dx %v dr %v, scalar %v %v", n, form, j, dx[j], dr[j], wx[j], wr[j])
				}
			}
		}
	}
}

// TestSoftmaxGradRowMatchesScalar checks SoftmaxGradRow against the scalar
// expression bit for bit for every length up to 40.
func TestSoftmaxGradRowMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for n := range 41 {
		p, d := make([]float32, n), make([]float32, n)
		for j := range n {
			p[j], d[j] = float32(rng.Float64()), float32(rng.NormFloat64())
		}
		a, s := float32(0.17677669), float32(rng.NormFloat64())
		want := make([]float32, n)
		for j := range n {
			want[j] = a * p[j] * (d[j] - s)
		}
		SoftmaxGradRow(p, d, a, s)
		for j := range n {
			if math.Float32bits(p[j]) != math.Float32bits(want[j]) {
				t.Fatalf("n %d element %d: %v, scalar %v", n, j, p[j], want[j])
			}
		}
	}
}

// TestAddScaledMatchesScalar checks AddScaled against the scalar loop bit
// for bit for every length up to 40.
func TestAddScaledMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for n := range 41 {
		y, x := make([]float32, n), make([]float32, n)
		for j := range n {
			y[j], x[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64()*1e3)
		}
		a := float32(rng.NormFloat64() * 1e-2)
		want := append([]float32(nil), y...)
		for j := range n {
			want[j] += a * x[j]
		}
		AddScaled(y, x, a)
		for j := range n {
			if math.Float32bits(y[j]) != math.Float32bits(want[j]) {
				t.Fatalf("n %d element %d: %v, scalar %v", n, j, y[j], want[j])
			}
		}
	}
}

// TestMulAccMatchesScalar checks MulAcc, with and without x, against the
// scalar loop bit for bit for every length up to 40 (values whose product
// a fused multiply-add would round differently).
func TestMulAccMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := range 41 {
		for _, withX := range []bool{false, true} {
			p, x, a, b := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for j := range n {
				p[j], x[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
				a[j], b[j] = float32(rng.NormFloat64()*1e3), float32(rng.NormFloat64()*1e-3)
			}
			wantP, wantX := append([]float32(nil), p...), append([]float32(nil), x...)
			for j := range n {
				d := a[j] * b[j]
				wantP[j] += d
				wantX[j] += d
			}
			if withX {
				MulAcc(p, x, a, b)
			} else {
				MulAcc(p, nil, a, b)
				copy(wantX, x)
			}
			for j := range n {
				if math.Float32bits(p[j]) != math.Float32bits(wantP[j]) || math.Float32bits(x[j]) != math.Float32bits(wantX[j]) {
					t.Fatalf("n %d with x %v element %d: p %v x %v, scalar %v %v", n, withX, j, p[j], x[j], wantP[j], wantX[j])
				}
			}
		}
	}
}
