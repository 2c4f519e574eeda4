package tensor

import (
	"fmt"
	"math"
)

// Element-wise ops. Each forward is one parallel pass writing the output; each
// backward one pass accumulating into the input's gradient. The derivative
// is written next to each op.

func (tp *Tape) binarySame(op string, a, b *Tensor) *Tensor {
	if !SameShape(a, b) {
		panic(fmt.Sprintf("tensor: %s: shapes %v and %v differ", op, a.Shape, b.Shape))
	}
	return tp.alloc(anyGrad2(a, b), a.Shape...)
}

// Sub returns a - b (same shapes).
//
//	y = a - b:  da += dy,  db -= dy
func (tp *Tape) Sub(a, b *Tensor) *Tensor {
	y := tp.binarySame("Sub", a, b)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y.Data[i] = a.Data[i] - b.Data[i]
		}
	})
	if nd := tp.push(y, subBackward); nd != nil {
		nd.a, nd.b = a, b
	}
	return y
}

func subBackward(nd *node) {
	accumulate(nd.a.Grad, nd.out.Grad, 1)
	accumulate(nd.b.Grad, nd.out.Grad, -1)
}

// Mul returns a ⊙ b (same shapes).
//
//	y = a·b:  da += dy·b,  db += dy·a
func (tp *Tape) Mul(a, b *Tensor) *Tensor {
	y := tp.binarySame("Mul", a, b)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y.Data[i] = a.Data[i] * b.Data[i]
		}
	})
	if nd := tp.push(y, mulBackward); nd != nil {
		nd.a, nd.b = a, b
	}
	return y
}

func mulBackward(nd *node) {
	a, b, dy := nd.a, nd.b, nd.out.Grad
	parallelFor(len(dy), 4096, 2, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := dy[i]
			if a.Grad != nil {
				a.Grad[i] += g * b.Data[i]
			}
			if b.Grad != nil {
				b.Grad[i] += g * a.Data[i]
			}
		}
	})
}

// Div returns a / b (same shapes).
//
//	y = a/b:  da += dy/b,  db -= dy·a/b² = dy·y/b
func (tp *Tape) Div(a, b *Tensor) *Tensor {
	y := tp.binarySame("Div", a, b)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y.Data[i] = a.Data[i] / b.Data[i]
		}
	})
	if nd := tp.push(y, divBackward); nd != nil {
		nd.a, nd.b = a, b
	}
	return y
}

func divBackward(nd *node) {
	a, b, y, dy := nd.a, nd.b, nd.out, nd.out.Grad
	parallelFor(len(dy), 4096, 2, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := dy[i] / b.Data[i]
			if a.Grad != nil {
				a.Grad[i] += g
			}
			if b.Grad != nil {
				b.Grad[i] -= g * y.Data[i]
			}
		}
	})
}

// unary allocates the output of an element-wise op on x and fills it with
// f applied in parallel; bw is recorded with the input in nd.a.
func (tp *Tape) unary(x *Tensor, cost int, f func(y, x []float32), bw func(*node)) (*Tensor, *node) {
	y := tp.alloc(x.Grad != nil, x.Shape...)
	parallelFor(len(x.Data), 4096, cost, func(lo, hi int) { f(y.Data[lo:hi], x.Data[lo:hi]) })
	nd := tp.push(y, bw)
	if nd != nil {
		nd.a = x
	}
	return y, nd
}

// unaryBackward runs g(dx, dy, x, y) over parallel ranges when x has a
// gradient; g accumulates into dx.
func unaryBackward(nd *node, cost int, g func(dx, dy, x, y []float32)) {
	x, y := nd.a, nd.out
	if x.Grad == nil {
		return
	}
	parallelFor(len(x.Data), 4096, cost, func(lo, hi int) {
		g(x.Grad[lo:hi], y.Grad[lo:hi], x.Data[lo:hi], y.Data[lo:hi])
	})
}

// Scale returns s·x.
//
//	y = s·x:  dx += s·dy
func (tp *Tape) Scale(x *Tensor, s float32) *Tensor {
	y := tp.alloc(x.Grad != nil, x.Shape...)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y.Data[i] = s * x.Data[i]
		}
	})
	if nd := tp.push(y, scaleBackward); nd != nil {
		nd.a, nd.f[0] = x, s
	}
	return y
}

func scaleBackward(nd *node) { accumulate(nd.a.Grad, nd.out.Grad, nd.f[0]) }

// AddScalar returns x + s.
//
//	y = x + s:  dx += dy
func (tp *Tape) AddScalar(x *Tensor, s float32) *Tensor {
	y := tp.alloc(x.Grad != nil, x.Shape...)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y.Data[i] = x.Data[i] + s
		}
	})
	if nd := tp.push(y, addScalarBackward); nd != nil {
		nd.a = x
	}
	return y
}

func addScalarBackward(nd *node) { accumulate(nd.a.Grad, nd.out.Grad, 1) }

// Exp returns eˣ.
//
//	y = eˣ:  dx += dy·y
func (tp *Tape) Exp(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 8, expFwd, expBackward)
	return y
}

func expFwd(y, x []float32) {
	for i, v := range x {
		y[i] = exp32(v)
	}
}

func expBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, _, y []float32) {
		for i, g := range dy {
			dx[i] += g * y[i]
		}
	})
}

// Log returns ln x (NaN for x < 0, -Inf at 0, as math.Log).
//
//	y = ln x:  dx += dy/x
func (tp *Tape) Log(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 16, logFwd, logBackward)
	return y
}

func logFwd(y, x []float32) {
	for i, v := range x {
		y[i] = float32(math.Log(float64(v)))
	}
}

func logBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, x, _ []float32) {
		for i, g := range dy {
			dx[i] += g / x[i]
		}
	})
}

// Tanh returns tanh x.
//
//	y = tanh x:  dx += dy·(1 - y²)
func (tp *Tape) Tanh(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 8, tanhFwd, tanhBackward)
	return y
}

func tanhFwd(y, x []float32) {
	for i, v := range x {
		y[i] = tanh32(v)
	}
}

func tanhBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, _, y []float32) {
		for i, g := range dy {
			dx[i] += g * (1 - y[i]*y[i])
		}
	})
}

// Sigmoid returns σ(x) = 1/(1+e⁻ˣ).
//
//	y = σ(x):  dx += dy·y·(1 - y)
func (tp *Tape) Sigmoid(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 8, sigmoidFwd, sigmoidBackward)
	return y
}

func sigmoidFwd(y, x []float32) {
	for i, v := range x {
		y[i] = 1 / (1 + exp32(-v))
	}
}

func sigmoidBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, _, y []float32) {
		for i, g := range dy {
			dx[i] += g * y[i] * (1 - y[i])
		}
	})
}

// GELU returns gelu(x) in its tanh form (see gelu32).
//
//	dx += dy·gelu'(x),  gelu'(x) = ½(1+t) + ½x(1-t²)·√(2/π)(1+3·0.044715x²)
func (tp *Tape) GELU(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 12, geluFwd, geluBackward)
	return y
}

func geluFwd(y, x []float32) {
	for i, v := range x {
		y[i] = gelu32(v)
	}
}

func geluBackward(nd *node) {
	unaryBackward(nd, 12, func(dx, dy, x, _ []float32) {
		for i, g := range dy {
			dx[i] += g * geluGrad32(x[i])
		}
	})
}

// Sqrt returns √x.
//
//	y = √x:  dx += dy/(2y)
func (tp *Tape) Sqrt(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 4, sqrtFwd, sqrtBackward)
	return y
}

func sqrtFwd(y, x []float32) {
	for i, v := range x {
		y[i] = float32(math.Sqrt(float64(v)))
	}
}

func sqrtBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, _, y []float32) {
		for i, g := range dy {
			dx[i] += g / (2 * y[i])
		}
	})
}

// Square returns x².
//
//	y = x²:  dx += 2x·dy
func (tp *Tape) Square(x *Tensor) *Tensor {
	y, _ := tp.unary(x, 1, squareFwd, squareBackward)
	return y
}

func squareFwd(y, x []float32) {
	for i, v := range x {
		y[i] = v * v
	}
}

func squareBackward(nd *node) {
	unaryBackward(nd, 1, func(dx, dy, x, _ []float32) {
		for i, g := range dy {
			dx[i] += 2 * x[i] * g
		}
	})
}

// Clamp returns x limited to [lo, hi].
//
//	y = min(max(x, lo), hi):  dx += dy where lo < x < hi, else 0
//
// (At the bounds themselves the subgradient 0 is used, so a value pinned at
// a bound stays there.)
func (tp *Tape) Clamp(x *Tensor, lo, hi float32) *Tensor {
	if lo > hi {
		panic(fmt.Sprintf("tensor: Clamp: empty range [%v, %v] for %v", lo, hi, x.Shape))
	}
	y := tp.alloc(x.Grad != nil, x.Shape...)
	parallelFor(len(y.Data), 4096, 1, func(a, b int) {
		for i := a; i < b; i++ {
			y.Data[i] = min(max(x.Data[i], lo), hi)
		}
	})
	if nd := tp.push(y, clampBackward); nd != nil {
		nd.a, nd.f = x, [2]float32{lo, hi}
	}
	return y
}

func clampBackward(nd *node) {
	lo, hi := nd.f[0], nd.f[1]
	unaryBackward(nd, 1, func(dx, dy, x, _ []float32) {
		for i, g := range dy {
			if x[i] > lo && x[i] < hi {
				dx[i] += g
			}
		}
	})
}
