package tensor

import (
	"fmt"
	"slices"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Reshape returns x with a new shape of the same size. The result shares x's
// data and gradient, so it costs no copy and needs no backward step (a
// gradient written into the view is already in x.Grad). One dimension may be
// -1 and is inferred.
func (tp *Tape) Reshape(x *Tensor, shape ...int) *Tensor {
	var s [MaxDims]int
	if len(shape) == 0 || len(shape) > MaxDims {
		panic(fmt.Sprintf("tensor: Reshape: rank %d outside 1..%d for %v", len(shape), MaxDims, x.Shape))
	}
	copy(s[:], shape)
	infer, n := -1, 1
	for i, d := range shape {
		if d == -1 && infer < 0 {
			infer = i
			continue
		}
		n *= d
	}
	if infer >= 0 && n > 0 {
		s[infer] = len(x.Data) / n
		n *= s[infer]
	}
	if n != len(x.Data) {
		// A copy in the message: shape itself then does not escape, and a
		// call allocates nothing for its arguments.
		panic(fmt.Sprintf("tensor: Reshape: %v (%d elements) cannot become %v", x.Shape, len(x.Data), slices.Clone(shape)))
	}
	var v *Tensor
	if tp.vcur < len(tp.views) {
		v = tp.views[tp.vcur]
	} else {
		v = &Tensor{}
		tp.views = append(tp.views, v)
	}
	tp.vcur++
	v.Shape = append(v.Shape[:0], s[:len(shape)]...)
	v.Data, v.Name = x.Data, ""
	v.Grad = nil
	if !tp.NoGrad {
		v.Grad = x.Grad
	}
	return v
}

// dims4 pads a shape on the left with ones to rank 4 and returns the
// row-major strides.
func dims4(shape []int) (d, st [4]int) {
	off := 4 - len(shape)
	for i := range off {
		d[i] = 1
	}
	copy(d[off:], shape)
	st[3] = 1
	for i := 2; i >= 0; i-- {
		st[i] = st[i+1] * d[i+1]
	}
	return d, st
}

// Transpose returns x with axes a0 and a1 swapped (a copy).
//
//	y = xᵀ (axes a0↔a1):  dx += dyᵀ (the same swap)
func (tp *Tape) Transpose(x *Tensor, a0, a1 int) *Tensor {
	r := len(x.Shape)
	if a0 < 0 || a0 >= r || a1 < 0 || a1 >= r {
		panic(fmt.Sprintf("tensor: Transpose: axes %d,%d outside shape %v", a0, a1, x.Shape))
	}
	var shape [MaxDims]int
	copy(shape[:], x.Shape)
	shape[a0], shape[a1] = shape[a1], shape[a0]
	y := tp.alloc(x.Grad != nil, shape[:r]...)
	permute(y.Data, x.Data, x.Shape, a0, a1, false)
	if nd := tp.push(y, transposeBackward); nd != nil {
		nd.a, nd.i[0], nd.i[1] = x, a0, a1
	}
	return y
}

func transposeBackward(nd *node) {
	x := nd.a
	if x.Grad != nil {
		permute(x.Grad, nd.out.Grad, nd.out.Shape, nd.i[0], nd.i[1], true)
	}
}

// permute writes (or with acc adds) src of shape srcShape into dst with axes
// a0 and a1 swapped.
func permute(dst, src []float32, srcShape []int, a0, a1 int, acc bool) {
	off := 4 - len(srcShape)
	d, st := dims4(srcShape)
	var ydims [4]int = d
	ydims[a0+off], ydims[a1+off] = d[a1+off], d[a0+off]
	_, yst := dims4(ydims[off:])
	// Source strides in the order of the destination's axes.
	sst := st
	sst[a0+off], sst[a1+off] = st[a1+off], st[a0+off]
	parallelFor(ydims[0]*ydims[1], 1, ydims[2]*ydims[3], func(lo, hi int) {
		for ij := lo; ij < hi; ij++ {
			i, j := ij/ydims[1], ij%ydims[1]
			for k := range ydims[2] {
				so := i*sst[0] + j*sst[1] + k*sst[2]
				do := i*yst[0] + j*yst[1] + k*yst[2]
				row := dst[do : do+ydims[3]]
				if acc {
					for l := range row {
						row[l] += src[so+l*sst[3]]
					}
				} else {
					for l := range row {
						row[l] = src[so+l*sst[3]]
					}
				}
			}
		}
	})
}

// outerInner views a shape around axis as (outer, shape[axis], inner).
func outerInner(shape []int, axis int) (outer, mid, inner int) {
	outer, inner = 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	return outer, shape[axis], inner
}

// Concat joins tensors along axis; all other dimensions must agree.
//
//	y = [x₁ x₂ …] along axis:  dxᵢ += the matching slice of dy
func (tp *Tape) Concat(axis int, xs ...*Tensor) *Tensor {
	if len(xs) == 0 {
		panic("tensor: Concat: no inputs")
	}
	r := len(xs[0].Shape)
	if axis < 0 || axis >= r {
		panic(fmt.Sprintf("tensor: Concat: axis %d outside shape %v", axis, xs[0].Shape))
	}
	var shape [MaxDims]int
	copy(shape[:], xs[0].Shape)
	shape[axis] = 0
	grad := false
	for _, x := range xs {
		if len(x.Shape) != r {
			panic(fmt.Sprintf("tensor: Concat: shapes %v and %v differ in rank", xs[0].Shape, x.Shape))
		}
		for i, d := range x.Shape {
			if i != axis && d != xs[0].Shape[i] {
				panic(fmt.Sprintf("tensor: Concat: shapes %v and %v differ off axis %d", xs[0].Shape, x.Shape, axis))
			}
		}
		shape[axis] += x.Shape[axis]
		grad = grad || x.Grad != nil
	}
	y := tp.alloc(grad, shape[:r]...)
	outer, total, inner := outerInner(y.Shape, axis)
	off := 0
	for _, x := range xs {
		w := x.Shape[axis] * inner
		for o := range outer {
			copy(y.Data[o*total*inner+off:o*total*inner+off+w], x.Data[o*w:(o+1)*w])
		}
		off += w
	}
	if nd := tp.push(y, concatBackward); nd != nil {
		nd.xs = append(nd.xs, xs...)
		nd.i[0] = axis
	}
	return y
}

func concatBackward(nd *node) {
	y := nd.out
	outer, total, inner := outerInner(y.Shape, nd.i[0])
	off := 0
	for _, x := range nd.xs {
		w := x.Shape[nd.i[0]] * inner
		if x.Grad != nil {
			for o := range outer {
				dx := x.Grad[o*w : (o+1)*w]
				for j, g := range y.Grad[o*total*inner+off : o*total*inner+off+w] {
					dx[j] += g
				}
			}
		}
		off += w
	}
}

// Split cuts x along axis into pieces of the given sizes (summing to
// x.Shape[axis]).
//
//	yᵢ = slice i of x:  the matching slice of dx += dyᵢ
func (tp *Tape) Split(x *Tensor, axis int, sizes ...int) []*Tensor {
	if axis < 0 || axis >= len(x.Shape) {
		panic(fmt.Sprintf("tensor: Split: axis %d outside shape %v", axis, x.Shape))
	}
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	if sum != x.Shape[axis] {
		panic(fmt.Sprintf("tensor: Split: sizes %v do not add up to dimension %d of %v", sizes, axis, x.Shape))
	}
	outer, total, inner := outerInner(x.Shape, axis)
	out := make([]*Tensor, len(sizes))
	off := 0
	for i, s := range sizes {
		var shape [MaxDims]int
		copy(shape[:], x.Shape)
		shape[axis] = s
		y := tp.alloc(x.Grad != nil, shape[:len(x.Shape)]...)
		w := s * inner
		for o := range outer {
			copy(y.Data[o*w:(o+1)*w], x.Data[o*total*inner+off:o*total*inner+off+w])
		}
		if nd := tp.push(y, splitBackward); nd != nil {
			nd.a, nd.i[0], nd.i[1] = x, axis, off
		}
		off += w
		out[i] = y
	}
	return out
}

func splitBackward(nd *node) {
	x, y := nd.a, nd.out
	if x.Grad == nil {
		return
	}
	outer, total, inner := outerInner(x.Shape, nd.i[0])
	w, off := y.Shape[nd.i[0]]*inner, nd.i[1]
	for o := range outer {
		dx := x.Grad[o*total*inner+off : o*total*inner+off+w]
		for j, g := range y.Grad[o*w : (o+1)*w] {
			dx[j] += g
		}
	}
}

// Gather returns the rows table[idx[i]] as a (len(idx), C) tensor: the
// embedding lookup. idx must stay unchanged until Backward has run.
//
//	y_i = table[idx_i]:  dtable[idx_i] += dy_i (scatter-add; repeated
//	indices accumulate)
func (tp *Tape) Gather(table *Tensor, idx []int32) *Tensor {
	if len(table.Shape) != 2 {
		panic(fmt.Sprintf("tensor: Gather: table %v is not 2-D", table.Shape))
	}
	v, c := table.Shape[0], table.Shape[1]
	y := tp.alloc(table.Grad != nil, len(idx), c)
	for i, id := range idx {
		if id < 0 || int(id) >= v {
			panic(fmt.Sprintf("tensor: Gather: index %d outside table %v", id, table.Shape))
		}
		copy(y.Data[i*c:(i+1)*c], table.Data[int(id)*c:int(id+1)*c])
	}
	if nd := tp.push(y, gatherBackward); nd != nil {
		nd.a, nd.ix = table, idx
	}
	return y
}

// gatherBackward runs serially: indices may repeat, so parallel
// scatter-adds would race.
func gatherBackward(nd *node) {
	table, y := nd.a, nd.out
	c := table.Shape[1]
	for i, id := range nd.ix {
		dst := table.Grad[int(id)*c : int(id+1)*c]
		for j, g := range y.Grad[i*c : (i+1)*c] {
			dst[j] += g
		}
	}
}

// GatherSum returns Gather(a, ia) + Gather(b, ib), (len(ia), C) for tables
// (·, C) and index lists of one length: a transformer's token plus
// position embeddings in one pass, without the two gathered copies and
// the sum's pass over them. Each row is the same float32 sum, and backward
// scatters dy into b's rows and then a's, each in index order, as the two
// gathers' backward passes did after the sum's.
func (tp *Tape) GatherSum(a *Tensor, ia []int32, b *Tensor, ib []int32) *Tensor {
	if len(a.Shape) != 2 || len(b.Shape) != 2 || a.Shape[1] != b.Shape[1] || len(ia) != len(ib) {
		panic(fmt.Sprintf("tensor: GatherSum: tables %v and %v with %d and %d indices", a.Shape, b.Shape, len(ia), len(ib)))
	}
	c := a.Shape[1]
	for _, t := range [2]struct {
		tab *Tensor
		idx []int32
	}{{a, ia}, {b, ib}} {
		for _, id := range t.idx {
			if id < 0 || int(id) >= t.tab.Shape[0] {
				panic(fmt.Sprintf("tensor: GatherSum: index %d outside table %v", id, t.tab.Shape))
			}
		}
	}
	y := tp.alloc(a.Grad != nil || b.Grad != nil, len(ia), c)
	parallelFor(len(ia), 64, c, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			vec.Add(y.Data[i*c:(i+1)*c], a.Data[int(ia[i])*c:int(ia[i]+1)*c], b.Data[int(ib[i])*c:int(ib[i]+1)*c])
		}
	})
	if nd := tp.push(y, gatherSumBackward); nd != nil {
		nd.a, nd.b, nd.ix = a, b, ia
		nd.seg = nd.seg[:0]
		for _, id := range ib {
			nd.seg = append(nd.seg, int(id))
		}
	}
	return y
}

// gatherSumBackward runs serially, as gatherBackward: indices may repeat.
func gatherSumBackward(nd *node) {
	a, b, y := nd.a, nd.b, nd.out
	c := a.Shape[1]
	if b.Grad != nil {
		for i, id := range nd.seg {
			addTo(b.Grad[id*c:(id+1)*c], y.Grad[i*c:(i+1)*c])
		}
	}
	if a.Grad != nil {
		for i, id := range nd.ix {
			addTo(a.Grad[int(id)*c:int(id+1)*c], y.Grad[i*c:(i+1)*c])
		}
	}
}
