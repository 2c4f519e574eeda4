package tensor

import "fmt"

// Add returns a + b for tensors of identical shape.
//
//	y = a + b;  dL/da += dL/dy, dL/db += dL/dy
func (tp *Tape) Add(a, b *Tensor) *Tensor {
	if !SameShape(a, b) {
		panic(fmt.Sprintf("tensor: Add: shapes %v and %v differ", a.Shape, b.Shape))
	}
	y := tp.Alloc(AnyGrad(a, b), a.Shape...)
	for i := range y.Data {
		y.Data[i] = a.Data[i] + b.Data[i]
	}
	tp.Record(y, func() {
		if a.Grad != nil {
			for i, g := range y.Grad {
				a.Grad[i] += g
			}
		}
		if b.Grad != nil {
			for i, g := range y.Grad {
				b.Grad[i] += g
			}
		}
	})
	return y
}
