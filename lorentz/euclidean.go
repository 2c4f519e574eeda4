package lorentz

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor"
)

// Euclidean is flat R^n behind the Manifold interface, for the paper's
// ablation. Points are stored as [0 | p] rows of width n+1 so that shapes
// match Hyperboloid; coordinate 0 is ignored on input and written as 0.
// Maps are identities and SqDist is the squared Euclidean distance.
type Euclidean struct{}

// Name implements Manifold.
func (Euclidean) Name() string { return "euclidean" }

// Origin implements Manifold: zero rows.
func (Euclidean) Origin(tp *tensor.Tape, rows, n int) *tensor.Tensor {
	return tp.Alloc(false, rows, n+1)
}

// ExpO implements Manifold: v (N,n) -> [0|v] (N,n+1).
func (Euclidean) ExpO(tp *tensor.Tape, v *tensor.Tensor) *tensor.Tensor {
	n, rows := v.Cols(), v.Rows()
	shape, r := shapeWithCols(v.Shape, n+1)
	y := tp.Alloc(v.Grad != nil, shape[:r]...)
	for i := 0; i < rows; i++ {
		copy(rowOf(y.Data, i, n+1)[1:], rowOf(v.Data, i, n))
	}
	tp.Record(y, func() {
		for i := 0; i < rows; i++ {
			addInto(rowOf(v.Grad, i, n), rowOf(y.Grad, i, n+1)[1:], 1)
		}
	})
	return y
}

// LogO implements Manifold: [·|p] (N,n+1) -> p (N,n).
func (Euclidean) LogO(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	checkPoints("LogO", x)
	c, rows := x.Cols(), x.Rows()
	shape, r := shapeWithCols(x.Shape, c-1)
	u := tp.Alloc(x.Grad != nil, shape[:r]...)
	for i := 0; i < rows; i++ {
		copy(rowOf(u.Data, i, c-1), rowOf(x.Data, i, c)[1:])
	}
	tp.Record(u, func() {
		for i := 0; i < rows; i++ {
			addInto(rowOf(x.Grad, i, c)[1:], rowOf(u.Grad, i, c-1), 1)
		}
	})
	return u
}

// addInto accumulates s·src into dst (nothing when dst is nil).
func addInto(dst, src []float32, s float32) {
	if dst == nil {
		return
	}
	for k, v := range src {
		dst[k] += s * v
	}
}

// combine returns [0 | a·x_s + b·y_s] row-wise, the form of ExpX (x+v),
// LogX (y−x), Transport (v) and Project (x).
func combine(op string, tp *tensor.Tape, x, y *tensor.Tensor, a, b float32) *tensor.Tensor {
	checkSameRows(op, x, y)
	c, rows := x.Cols(), x.Rows()
	out := tp.Alloc((a != 0 && x.Grad != nil) || (b != 0 && y.Grad != nil), x.Shape...)
	for i := 0; i < rows; i++ {
		o, xi, yi := rowOf(out.Data, i, c), rowOf(x.Data, i, c), rowOf(y.Data, i, c)
		for k := 1; k < c; k++ {
			o[k] = a*xi[k] + b*yi[k]
		}
	}
	tp.Record(out, func() {
		for i := 0; i < rows; i++ {
			g := rowOf(out.Grad, i, c)[1:]
			if a != 0 && x.Grad != nil {
				addInto(rowOf(x.Grad, i, c)[1:], g, a)
			}
			if b != 0 && y.Grad != nil {
				addInto(rowOf(y.Grad, i, c)[1:], g, b)
			}
		}
	})
	return out
}

// ExpX implements Manifold: [0 | x_s + v_s].
func (Euclidean) ExpX(tp *tensor.Tape, x, v *tensor.Tensor) *tensor.Tensor {
	return combine("ExpX", tp, x, v, 1, 1)
}

// LogX implements Manifold: [0 | y_s − x_s].
func (Euclidean) LogX(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return combine("LogX", tp, x, y, -1, 1)
}

// Transport implements Manifold: [0 | v_s] (parallel transport is the identity).
func (Euclidean) Transport(tp *tensor.Tape, x, y, v *tensor.Tensor) *tensor.Tensor {
	checkSameRows("Transport", x, y)
	return combine("Transport", tp, x, v, 0, 1)
}

// Project implements Manifold: [0 | x_s].
func (Euclidean) Project(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	return combine("Project", tp, x, x, 1, 0)
}

// TransportO implements Manifold: [0 | b], b (N,n) or (n) shared.
func (Euclidean) TransportO(tp *tensor.Tape, x, b *tensor.Tensor) *tensor.Tensor {
	checkPoints("TransportO", x)
	shared := checkBias("TransportO", x, b)
	c, rows := x.Cols(), x.Rows()
	v := tp.Alloc(b.Grad != nil, x.Shape...)
	for i := 0; i < rows; i++ {
		bi := b.Data
		if !shared {
			bi = rowOf(b.Data, i, c-1)
		}
		copy(rowOf(v.Data, i, c)[1:], bi)
	}
	tp.Record(v, func() {
		for i := 0; i < rows; i++ {
			gb := b.Grad
			if !shared {
				gb = rowOf(b.Grad, i, c-1)
			}
			addInto(gb, rowOf(v.Grad, i, c)[1:], 1)
		}
	})
	return v
}

// Inner implements Manifold: Σ_{k≥1} x_k y_k.
func (Euclidean) Inner(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	checkSameRows("Inner", x, y)
	return innerOp(tp, x, y, 0)
}

// Dist implements Manifold: |x_s − y_s|; zero gradient at coincident points.
func (Euclidean) Dist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return euclidRowDist("Dist", tp, x, y, false)
}

// SqDist implements Manifold: |x_s − y_s|².
func (Euclidean) SqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return euclidRowDist("SqDist", tp, x, y, true)
}

func sqDiff(x, y []float32) float64 {
	var s float64
	for k, v := range x {
		d := float64(v) - float64(y[k])
		s += d * d
	}
	return s
}

// euclidDS returns ∂(d or d²)/∂(d²) = 1/(2d) (0 at d = 0) or 1.
func euclidDS(s float64, squared bool) float64 {
	switch {
	case squared:
		return 1
	case s > 0:
		return 1 / (2 * math.Sqrt(s))
	}
	return 0
}

// euclidRowDist: ∂|x−y|²/∂x = 2(x−y).
func euclidRowDist(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor {
	checkSameRows(op, x, y)
	c, rows := x.Cols(), x.Rows()
	shape, r := shapeWithCols(x.Shape, 1)
	out := tp.Alloc(tensor.AnyGrad(x, y), shape[:r]...)
	for i := 0; i < rows; i++ {
		s := sqDiff(rowOf(x.Data, i, c)[1:], rowOf(y.Data, i, c)[1:])
		if !squared {
			s = math.Sqrt(s)
		}
		out.Data[i] = float32(s)
	}
	tp.Record(out, func() {
		for i := 0; i < rows; i++ {
			xs, ys := rowOf(x.Data, i, c)[1:], rowOf(y.Data, i, c)[1:]
			cf := 2 * float64(out.Grad[i]) * euclidDS(sqDiff(xs, ys), squared)
			euclidAddGrad(cf, xs, ys, x.Grad, y.Grad, i, i, c)
		}
	})
	return out
}

// euclidAddGrad accumulates cf·(x_i − y_j) into x's row i and its negative
// into y's row j.
func euclidAddGrad(cf float64, xs, ys, gx, gy []float32, i, j, c int) {
	if cf == 0 {
		return
	}
	for k := range xs {
		d := float32(cf * (float64(xs[k]) - float64(ys[k])))
		if gx != nil {
			gx[i*c+1+k] += d
		}
		if gy != nil {
			gy[j*c+1+k] -= d
		}
	}
}

// PairDist implements Manifold: (N,M) Euclidean distances.
func (Euclidean) PairDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return euclidPairDist("PairDist", tp, x, y, false)
}

// PairSqDist implements Manifold: (N,M) squared Euclidean distances, formed
// from differences (not |x|²+|y|²−2x·y, which cancels for nearby points).
func (Euclidean) PairSqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return euclidPairDist("PairSqDist", tp, x, y, true)
}

func euclidPairDist(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor {
	checkPoints(op, x)
	if x.Cols() != y.Cols() {
		panic(fmt.Sprintf("lorentz: %s: point widths %v and %v differ", op, x.Shape, y.Shape))
	}
	c, nx, ny := x.Cols(), x.Rows(), y.Rows()
	out := tp.Alloc(tensor.AnyGrad(x, y), nx, ny)
	for i := 0; i < nx; i++ {
		xs := rowOf(x.Data, i, c)[1:]
		for j := 0; j < ny; j++ {
			s := sqDiff(xs, rowOf(y.Data, j, c)[1:])
			if !squared {
				s = math.Sqrt(s)
			}
			out.Data[i*ny+j] = float32(s)
		}
	}
	tp.Record(out, func() {
		for i := 0; i < nx; i++ {
			xs := rowOf(x.Data, i, c)[1:]
			for j := 0; j < ny; j++ {
				gij := float64(out.Grad[i*ny+j])
				if gij == 0 {
					continue
				}
				ys := rowOf(y.Data, j, c)[1:]
				cf := 2 * gij * euclidDS(sqDiff(xs, ys), squared)
				euclidAddGrad(cf, xs, ys, x.Grad, y.Grad, i, j, c)
			}
		}
	})
	return out
}
