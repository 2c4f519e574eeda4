package tensor

import (
	"fmt"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Interleave joins two row-packed tensors sequence by sequence: a (Ra,C),
// sequence s owning rows aOff[s]..aOff[s+1], and b (Rb,C) with offsets
// bOff give (Ra+Rb, C) with rows
//
//	a's rows of sequence 0, b's rows of sequence 0, a's of sequence 1, …
//
// so that sequence s occupies rows aOff[s]+bOff[s] … aOff[s+1]+bOff[s+1].
// It prepends rows per document to a packed batch: a [CLS] row before each
// document's words, or the tree and graph rows before each document's
// tokens as keys and values.
//
//	y = interleave(a, b):  da += y's a rows of dy,  db += its b rows
func (tp *Tape) Interleave(a, b *Tensor, aOff, bOff []int) *Tensor {
	if len(a.Shape) != 2 || len(b.Shape) != 2 || a.Shape[1] != b.Shape[1] {
		panic(fmt.Sprintf("tensor: Interleave: want a (Ra,C) and b (Rb,C); got %v and %v", a.Shape, b.Shape))
	}
	if len(aOff) < 1 || len(aOff) != len(bOff) || aOff[0] != 0 || bOff[0] != 0 || last(aOff) != a.Shape[0] || last(bOff) != b.Shape[0] {
		panic(fmt.Sprintf("tensor: Interleave: offsets %d…%d and %d…%d (%d and %d sequences) do not cover %v and %v",
			first(aOff), last(aOff), first(bOff), last(bOff), len(aOff)-1, len(bOff)-1, a.Shape, b.Shape))
	}
	c := a.Shape[1]
	seqs := len(aOff) - 1
	for s := range seqs {
		if aOff[s+1] < aOff[s] || bOff[s+1] < bOff[s] {
			panic(fmt.Sprintf("tensor: Interleave: offsets decrease at sequence %d", s))
		}
	}
	y := tp.alloc(anyGrad2(a, b), a.Shape[0]+b.Shape[0], c)
	parallelFor(seqs, 1, (y.Shape[0]/max(seqs, 1)+1)*c, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			o := (aOff[s] + bOff[s]) * c
			n := copy(y.Data[o:], a.Data[aOff[s]*c:aOff[s+1]*c])
			copy(y.Data[o+n:], b.Data[bOff[s]*c:bOff[s+1]*c])
		}
	})
	if nd := tp.push(y, interleaveBackward); nd != nil {
		nd.a, nd.b = a, b
		nd.seg = append(append(nd.seg[:0], aOff...), bOff...)
	}
	return y
}

func interleaveBackward(nd *node) {
	a, b, y := nd.a, nd.b, nd.out
	c := a.Shape[1]
	seqs := len(nd.seg)/2 - 1
	aOff, bOff := nd.seg[:seqs+1], nd.seg[seqs+1:]
	parallelFor(seqs, 1, (y.Shape[0]/max(seqs, 1)+1)*c, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			o := (aOff[s] + bOff[s]) * c
			na := (aOff[s+1] - aOff[s]) * c
			if a.Grad != nil {
				addTo(a.Grad[aOff[s]*c:aOff[s+1]*c], y.Grad[o:o+na])
			}
			if b.Grad != nil {
				addTo(b.Grad[bOff[s]*c:bOff[s+1]*c], y.Grad[o+na:o+na+(bOff[s+1]-bOff[s])*c])
			}
		}
	})
}

// addTo adds src to dst (same length) on the calling goroutine, eight
// lanes at a time where the CPU has AVX2 (each element's one add as in a
// scalar loop).
func addTo(dst, src []float32) { vec.Add(dst, dst, src[:len(dst)]) }
