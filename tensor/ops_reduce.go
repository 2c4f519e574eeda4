package tensor

import "fmt"

// Sum returns the sum of all elements as a (1) tensor.
//
//	y = Σ x:  dx += dy
func (tp *Tape) Sum(x *Tensor) *Tensor {
	y := tp.alloc(x.Grad != nil, 1)
	var s float64 // float64 accumulation: x may hold millions of elements
	for _, v := range x.Data {
		s += float64(v)
	}
	y.Data[0] = float32(s)
	if nd := tp.push(y, sumBackward); nd != nil {
		nd.a, nd.f[0] = x, 1
	}
	return y
}

// Mean returns the mean of all elements as a (1) tensor.
//
//	y = Σ x / n:  dx += dy / n
func (tp *Tape) Mean(x *Tensor) *Tensor {
	y := tp.alloc(x.Grad != nil, 1)
	var s float64
	for _, v := range x.Data {
		s += float64(v)
	}
	inv := 1 / float32(len(x.Data))
	y.Data[0] = float32(s) * inv
	if nd := tp.push(y, sumBackward); nd != nil {
		nd.a, nd.f[0] = x, inv
	}
	return y
}

func sumBackward(nd *node) {
	x := nd.a
	if x.Grad == nil {
		return
	}
	g := nd.out.Grad[0] * nd.f[0]
	parallelFor(len(x.Grad), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x.Grad[i] += g
		}
	})
}

// SumAxis sums over one axis, removing it ((B,T,C) over axis 1 gives (B,C);
// a rank-1 input gives (1)).
//
//	y[o,i] = Σ_k x[o,k,i]:  dx[o,k,i] += dy[o,i]
func (tp *Tape) SumAxis(x *Tensor, axis int) *Tensor { return tp.reduceAxis("SumAxis", x, axis, 1) }

// MeanAxis averages over one axis, removing it.
//
//	y[o,i] = Σ_k x[o,k,i] / K:  dx[o,k,i] += dy[o,i] / K
func (tp *Tape) MeanAxis(x *Tensor, axis int) *Tensor {
	if axis < 0 || axis >= len(x.Shape) {
		panic(fmt.Sprintf("tensor: MeanAxis: axis %d outside shape %v", axis, x.Shape))
	}
	return tp.reduceAxis("MeanAxis", x, axis, 1/float32(x.Shape[axis]))
}

func (tp *Tape) reduceAxis(op string, x *Tensor, axis int, scale float32) *Tensor {
	r := len(x.Shape)
	if axis < 0 || axis >= r {
		panic(fmt.Sprintf("tensor: %s: axis %d outside shape %v", op, axis, x.Shape))
	}
	var shape [MaxDims]int
	n := copy(shape[:], x.Shape[:axis])
	n += copy(shape[n:], x.Shape[axis+1:])
	if n == 0 {
		shape[0], n = 1, 1
	}
	y := tp.Alloc(x.Grad != nil, shape[:n]...)
	outer, mid, inner := outerInner(x.Shape, axis)
	parallelFor(outer, 1, mid*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			dst := y.Data[o*inner : (o+1)*inner]
			for k := range mid {
				for i, v := range x.Data[(o*mid+k)*inner : (o*mid+k+1)*inner] {
					dst[i] += v
				}
			}
			if scale != 1 {
				for i := range dst {
					dst[i] *= scale
				}
			}
		}
	})
	if nd := tp.push(y, reduceAxisBackward); nd != nil {
		nd.a, nd.i[0], nd.f[0] = x, axis, scale
	}
	return y
}

func reduceAxisBackward(nd *node) {
	x, dy, scale := nd.a, nd.out.Grad, nd.f[0]
	if x.Grad == nil {
		return
	}
	outer, mid, inner := outerInner(x.Shape, nd.i[0])
	parallelFor(outer, 1, mid*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			g := dy[o*inner : (o+1)*inner]
			for k := range mid {
				dx := x.Grad[(o*mid+k)*inner : (o*mid+k+1)*inner]
				for i, v := range g {
					dx[i] += scale * v
				}
			}
		}
	})
}
