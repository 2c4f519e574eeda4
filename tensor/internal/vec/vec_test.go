package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTanhRational(t *testing.T) {
	for x := -10.0; x <= 10; x += 0.0003 {
		if got, want := float64(TanhRational(float32(x))), math.Tanh(float64(float32(x))); math.Abs(got-want) > 1e-6 {
			t.Fatalf("TanhRational(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestGELUGradRow checks the vectorised GELU row kernel (AVX2 where
// available) against the scalar geluAndGrad32 and the float64 formula, on
// lengths with and without a tail of fewer than 8 elements.
func TestGELUGradRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 7, 8, 9, 64, 1027} {
		x, b := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
			b[i] = float32(rng.NormFloat64())
		}
		x[0] = 20 // clamped region
		if n > 1 {
			x[1] = -20
		}
		y, d := make([]float32, n), make([]float32, n)
		GELUGradRow(y, d, x, b)
		for i := range x {
			v := x[i] + b[i]
			ys, ds := GELUAndGrad(v)
			// FMA and plain rounding differ by a few ulp of t, which the
			// derivative scales by up to about 3|v|.
			if tol := 1e-6 * math.Max(1, math.Abs(float64(v))); math.Abs(float64(y[i]-ys)) > tol || math.Abs(float64(d[i]-ds)) > 3*tol {
				t.Fatalf("n=%d i=%d v=%v: kernel (%v, %v), scalar (%v, %v) (avx2 %v)", n, i, v, y[i], d[i], ys, ds, hasAVX2FMA)
			}
			vf := float64(v)
			u := math.Sqrt(2/math.Pi) * (vf + 0.044715*vf*vf*vf)
			th := math.Tanh(u)
			want := 0.5 * vf * (1 + th)
			wantD := 0.5*(1+th) + 0.5*vf*(1-th*th)*math.Sqrt(2/math.Pi)*(1+3*0.044715*vf*vf)
			// tanhRational's absolute error (≤1e-6) is scaled by |v| in both.
			if tol := 2e-6 * math.Max(1, math.Abs(vf)); math.Abs(float64(y[i])-want) > tol || math.Abs(float64(d[i])-wantD) > tol {
				t.Fatalf("n=%d i=%d v=%v: kernel (%v, %v), float64 (%v, %v)", n, i, v, y[i], d[i], want, wantD)
			}
		}
	}
}

// TestGELURowIsGradRowsY: GELURow writes GELUGradRow's y bit for bit,
// tails and clamped values included.
func TestGELURowIsGradRowsY(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{1, 7, 8, 9, 64, 1027} {
		x, b := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
			b[i] = float32(rng.NormFloat64())
		}
		x[0] = 20
		if n > 1 {
			x[1] = -20
		}
		want, d, got := make([]float32, n), make([]float32, n), make([]float32, n)
		GELUGradRow(want, d, x, b)
		GELURow(got, x, b)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d i=%d: %v, GELUGradRow's %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestExpShiftSum checks the softmax exponential kernel (AVX2 where
// available) against math.Exp in float64, including tails shorter than 8
// and very negative arguments.
func TestExpShiftSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 8, 13, 128, 1001} {
		src, dst := make([]float32, n), make([]float32, n)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * 10)
		}
		src[0] = -200 // far below the range: (near) zero
		shift := float32(3)
		got := ExpShiftSum(dst, src, shift)
		var want float64
		for i, x := range src {
			e := math.Exp(float64(x - shift)) // the kernel subtracts in float32
			want += float64(dst[i])
			if math.Abs(float64(dst[i])-e) > 5e-7*e+1e-37 {
				t.Fatalf("n=%d: exp(%v − %v) = %v, want %v (avx2 %v)", n, x, shift, dst[i], e, hasAVX2FMA)
			}
		}
		if math.Abs(float64(got)-want) > 1e-5*want {
			t.Fatalf("n=%d: sum %v, want %v", n, got, want)
		}
	}
}

// TestMaxNaNAndScale: MaxNaN and Scale give the scalar loops' values bit
// for bit, with and without a tail past the last eight, the maximum in
// any lane and in the tail, a NaN anywhere, ±Inf and −0.
func TestMaxNaNAndScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 61, 97} {
		for trial := range 40 {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 3)
			}
			if n > 0 {
				switch trial % 5 {
				case 1:
					x[rng.IntN(n)] = float32(math.NaN())
				case 2:
					x[rng.IntN(n)] = float32(math.Inf(-1))
				case 3:
					x[rng.IntN(n)] = float32(math.Inf(1))
				case 4:
					for i := range x {
						x[i] = -float32(math.Abs(float64(x[i])))
					}
					x[rng.IntN(n)] = float32(math.Copysign(0, -1))
				}
			}
			want, wantNaN := float32(math.Inf(-1)), false
			for _, v := range x {
				if v > want {
					want = v
				}
				wantNaN = wantNaN || v != v
			}
			got, gotNaN := MaxNaN(x)
			if gotNaN != wantNaN || (!wantNaN && got != want) {
				t.Fatalf("n=%d trial %d: MaxNaN = %v, %v; the loop gives %v, %v (avx2 %v)", n, trial, got, gotNaN, want, wantNaN, hasAVX2FMA)
			}
			s := float32(rng.NormFloat64())
			y := append([]float32(nil), x...)
			Scale(y, s)
			for i, v := range x {
				if w := v * s; math.Float32bits(y[i]) != math.Float32bits(w) && !(w != w && y[i] != y[i]) {
					t.Fatalf("n=%d: Scale entry %d = %v, the loop gives %v", n, i, y[i], w)
				}
			}
		}
	}
}

// TestRowKernels: LayerNormRow and Add give the scalar float32
// expressions' bits (no fused multiply-add), for lengths with and without
// a tail past the last eight.
func TestRowKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	for _, n := range []int{1, 7, 8, 9, 37, 128, 131} {
		x, g, b := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 5)
			g[i] = float32(rng.NormFloat64())
			b[i] = float32(rng.NormFloat64())
		}
		mu, r := float32(rng.NormFloat64()), float32(rng.Float64()*3)
		y := make([]float32, n)
		LayerNormRow(y, x, g, b, mu, r)
		for i := range x {
			if w := (x[i]-mu)*r*g[i] + b[i]; !same(y[i], w) {
				t.Fatalf("n=%d: LayerNormRow entry %d = %v, the scalar expression %v", n, i, y[i], w)
			}
		}
		Add(y, x, b)
		for i := range x {
			if w := x[i] + b[i]; !same(y[i], w) {
				t.Fatalf("n=%d: Add entry %d = %v, want %v", n, i, y[i], w)
			}
		}
	}
}

// TestRowStats8: the eight-row statistics equal the row loop's bit for bit
// (sums in column order, the square rounded before each add), for widths
// of one to several 8×8 blocks and a stride past the row's end.
func TestRowStats8(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, c := range []int{8, 16, 40, 128} {
		stride := c + 3
		x := make([]float32, 7*stride+c)
		for i := range x {
			x[i] = float32(3 + 5*rng.NormFloat64())
		}
		var mu, q [8]float32
		if !RowStats8(x, stride, c, &mu, &q) {
			if hasAVX2FMA {
				t.Fatalf("c=%d: not computed with AVX2", c)
			}
			t.Skip("no AVX2")
		}
		for k := range 8 {
			row := x[k*stride : k*stride+c]
			var s float32
			for _, v := range row {
				s += v
			}
			m := s / float32(c)
			var ss float32
			for _, v := range row {
				d := v - m
				ss += d * d
			}
			if math.Float32bits(mu[k]) != math.Float32bits(m) || math.Float32bits(q[k]) != math.Float32bits(ss) {
				t.Fatalf("c=%d row %d: mean %v, squares %v; the loop gives %v, %v", c, k, mu[k], q[k], m, ss)
			}
		}
	}
	if RowStats8(make([]float32, 8*12), 12, 12, new([8]float32), new([8]float32)) {
		t.Error("a width that is no multiple of 8 was taken")
	}
}
