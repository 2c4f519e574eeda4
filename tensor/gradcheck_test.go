package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Gradient checks: every op's backward against central finite differences.
//
// The loss is L = Σ sᵢ·yᵢ with a fixed random seed vector s, summed in
// float64. Each input element is perturbed in float64 by ±h and rounded to
// float32; the difference quotient divides by the perturbation actually
// applied after rounding, so float32 rounding of the input does not bias it.
// With h = 1e-2 the truncation error is O(h²)·|f'''| ≈ 1e-4 and the float32
// rounding of the forward contributes about 1e-7·|L|/h; the tolerance
// |num-ana| ≤ atol + rtol·max(|num|,|ana|) with atol = 2e-3, rtol = 1e-2
// covers both with margin while any real mistake (a missing factor, a wrong
// sign, a dropped term) is far larger.

const (
	gcH    = 1e-2
	gcAtol = 2e-3
	gcRtol = 1e-2
)

type opFunc func(tp *Tape, in []*Tensor) *Tensor

// randParam returns a parameter of the given shape with entries uniform in
// [lo, hi).
func randParam(rng *rand.Rand, lo, hi float32, shape ...int) *Tensor {
	p := Param("p", shape...)
	for i := range p.Data {
		p.Data[i] = lo + (hi-lo)*rng.Float32()
	}
	return p
}

func lossOf(f opFunc, in []*Tensor, seed []float32) float64 {
	tp := &Tape{NoGrad: true}
	y := f(tp, in)
	var l float64
	for i, v := range y.Data {
		l += float64(seed[i]) * float64(v)
	}
	return l
}

// gradCheck compares analytic and numeric gradients of f for every element of
// every input that has a gradient.
func gradCheck(t *testing.T, name string, f opFunc, in []*Tensor, rng *rand.Rand) {
	t.Helper()
	tp := NewTape()
	for _, x := range in {
		x.ZeroGrad()
	}
	y := f(tp, in)
	seed := make([]float32, len(y.Data))
	for i := range seed {
		seed[i] = float32(rng.NormFloat64())
	}
	tp.BackwardWith(y, seed)
	for k, x := range in {
		if x.Grad == nil {
			continue
		}
		ana := append([]float32(nil), x.Grad...)
		for j := range x.Data {
			orig := x.Data[j]
			xp := float32(float64(orig) + gcH)
			xm := float32(float64(orig) - gcH)
			x.Data[j] = xp
			lp := lossOf(f, in, seed)
			x.Data[j] = xm
			lm := lossOf(f, in, seed)
			x.Data[j] = orig
			num := (lp - lm) / (float64(xp) - float64(xm))
			a := float64(ana[j])
			if d := math.Abs(num - a); d > gcAtol+gcRtol*math.Max(math.Abs(num), math.Abs(a)) || math.IsNaN(d) {
				t.Errorf("%s: input %d %v element %d: analytic %.6g, numeric %.6g", name, k, x.Shape, j, a, num)
				return
			}
		}
	}
}

type gradCase struct {
	name   string
	f      opFunc
	shapes [][]int
	lo, hi float32 // input range (e.g. positive for Log, Sqrt)
}

func runGradCases(t *testing.T, cases []gradCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
			lo, hi := c.lo, c.hi
			if lo == 0 && hi == 0 {
				lo, hi = -2, 2
			}
			in := make([]*Tensor, len(c.shapes))
			for i, s := range c.shapes {
				in[i] = randParam(rng, lo, hi, s...)
			}
			gradCheck(t, fmt.Sprint(c.name, c.shapes), c.f, in, rng)
		})
	}
}

func TestGradElementwise(t *testing.T) {
	un := func(f func(tp *Tape, x *Tensor) *Tensor) opFunc {
		return func(tp *Tape, in []*Tensor) *Tensor { return f(tp, in[0]) }
	}
	bin := func(f func(tp *Tape, a, b *Tensor) *Tensor) opFunc {
		return func(tp *Tape, in []*Tensor) *Tensor { return f(tp, in[0], in[1]) }
	}
	cases := []gradCase{
		{name: "Add", f: bin((*Tape).Add), shapes: [][]int{{3, 4}, {3, 4}}},
		{name: "Sub", f: bin((*Tape).Sub), shapes: [][]int{{2, 3, 2}, {2, 3, 2}}},
		{name: "Mul", f: bin((*Tape).Mul), shapes: [][]int{{5}, {5}}},
		{name: "Div", f: bin((*Tape).Div), shapes: [][]int{{4, 3}, {4, 3}}, lo: 0.5, hi: 2},
		{name: "Scale", f: un(func(tp *Tape, x *Tensor) *Tensor { return tp.Scale(x, -1.7) }), shapes: [][]int{{2, 5}}},
		{name: "AddScalar", f: un(func(tp *Tape, x *Tensor) *Tensor { return tp.AddScalar(x, 0.3) }), shapes: [][]int{{7}}},
		{name: "Exp", f: un((*Tape).Exp), shapes: [][]int{{3, 5}}},
		{name: "Log", f: un((*Tape).Log), shapes: [][]int{{3, 5}}, lo: 0.3, hi: 3},
		{name: "Tanh", f: un((*Tape).Tanh), shapes: [][]int{{4, 6}}},
		{name: "Sigmoid", f: un((*Tape).Sigmoid), shapes: [][]int{{4, 6}}},
		{name: "GELU", f: un((*Tape).GELU), shapes: [][]int{{4, 6}}, lo: -4, hi: 4},
		{name: "Sqrt", f: un((*Tape).Sqrt), shapes: [][]int{{10}}, lo: 0.3, hi: 3},
		{name: "Square", f: un((*Tape).Square), shapes: [][]int{{2, 2, 2, 2}}},
		{name: "Clamp", f: un(func(tp *Tape, x *Tensor) *Tensor { return tp.Clamp(x, -0.5, 0.7) }), shapes: [][]int{{30}}},
	}
	runGradCases(t, cases)
}

func TestGradBroadcast(t *testing.T) {
	ops := []struct {
		name string
		f    func(tp *Tape, x, v *Tensor) *Tensor
		col  bool
	}{
		{"AddRow", (*Tape).AddRow, false}, {"SubRow", (*Tape).SubRow, false},
		{"MulRow", (*Tape).MulRow, false}, {"DivRow", (*Tape).DivRow, false},
		{"AddCol", (*Tape).AddCol, true}, {"SubCol", (*Tape).SubCol, true},
		{"MulCol", (*Tape).MulCol, true}, {"DivCol", (*Tape).DivCol, true},
	}
	// Edge cases: one row, one column, size-1 leading dimensions, rank 3.
	shapes := [][]int{{4, 3}, {1, 5}, {6, 1}, {1, 1}, {2, 1, 3}}
	var cases []gradCase
	for _, op := range ops {
		for _, s := range shapes {
			n := s[len(s)-1]
			if op.col {
				n = 1
				for _, d := range s[:len(s)-1] {
					n *= d
				}
			}
			f := op.f
			c := gradCase{name: op.name, f: func(tp *Tape, in []*Tensor) *Tensor { return f(tp, in[0], in[1]) }, shapes: [][]int{s, {n}}}
			if op.name[:3] == "Div" {
				c.lo, c.hi = 0.5, 2
			}
			cases = append(cases, c)
		}
	}
	runGradCases(t, cases)
}

func TestGradMatMul(t *testing.T) {
	var cases []gradCase
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, d := range [][3]int{{3, 4, 5}, {1, 3, 1}, {4, 1, 2}, {2, 2, 1}} {
				m, k, n := d[0], d[1], d[2]
				sa, sb := []int{m, k}, []int{k, n}
				if tA {
					sa = []int{k, m}
				}
				if tB {
					sb = []int{n, k}
				}
				tA, tB := tA, tB
				cases = append(cases, gradCase{
					name:   fmt.Sprintf("MatMul_tA=%v_tB=%v", tA, tB),
					f:      func(tp *Tape, in []*Tensor) *Tensor { return tp.MatMul(in[0], in[1], tA, tB) },
					shapes: [][]int{sa, sb},
				})
				cases = append(cases, gradCase{
					name:   fmt.Sprintf("BatchedMatMul_tA=%v_tB=%v", tA, tB),
					f:      func(tp *Tape, in []*Tensor) *Tensor { return tp.BatchedMatMul(in[0], in[1], tA, tB) },
					shapes: [][]int{append([]int{3}, sa...), append([]int{3}, sb...)},
				})
			}
		}
	}
	cases = append(cases,
		gradCase{name: "MatMulRank3", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.MatMul(in[0], in[1], false, false) }, shapes: [][]int{{2, 3, 4}, {4, 2}}},
		gradCase{name: "Linear", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Linear(in[0], in[1], in[2]) }, shapes: [][]int{{2, 3, 4}, {4, 5}, {5}}},
		gradCase{name: "LinearNoBias", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Linear(in[0], in[1], nil) }, shapes: [][]int{{1, 4}, {4, 1}}},
	)
	runGradCases(t, cases)
}
