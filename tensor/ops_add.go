package tensor

import "fmt"

// Add returns a + b for tensors of identical shape.
//
//	y = a + b;  dL/da += dL/dy, dL/db += dL/dy
func (tp *Tape) Add(a, b *Tensor) *Tensor {
	if !SameShape(a, b) {
		panic(fmt.Sprintf("tensor: Add: shapes %v and %v differ", a.Shape, b.Shape))
	}
	y := tp.alloc(anyGrad2(a, b), a.Shape...)
	parallelFor(len(y.Data), 4096, 1, func(lo, hi int) {
		yd, ad, bd := y.Data[lo:hi], a.Data[lo:hi], b.Data[lo:hi]
		for i := range yd {
			yd[i] = ad[i] + bd[i]
		}
	})
	if nd := tp.push(y, addBackward); nd != nil {
		nd.a, nd.b = a, b
	}
	return y
}

func addBackward(nd *node) {
	accumulate(nd.a.Grad, nd.out.Grad, 1)
	accumulate(nd.b.Grad, nd.out.Grad, 1)
}

// accumulate adds s·src to dst; nil dst (an input without gradient) is
// skipped.
func accumulate(dst, src []float32, s float32) {
	if dst == nil {
		return
	}
	parallelFor(len(dst), 4096, 1, func(lo, hi int) {
		d, g := dst[lo:hi], src[lo:hi]
		if s == 1 {
			for i, v := range g {
				d[i] += v
			}
			return
		}
		for i, v := range g {
			d[i] += s * v
		}
	})
}
