package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestGradReduceShape(t *testing.T) {
	var cases []gradCase
	for _, s := range [][]int{{5}, {3, 4}, {2, 1, 3}, {2, 3, 2, 2}} {
		for axis := range s {
			axis := axis
			cases = append(cases,
				gradCase{name: fmt.Sprint("SumAxis", axis), f: func(tp *Tape, in []*Tensor) *Tensor { return tp.SumAxis(in[0], axis) }, shapes: [][]int{s}},
				gradCase{name: fmt.Sprint("MeanAxis", axis), f: func(tp *Tape, in []*Tensor) *Tensor { return tp.MeanAxis(in[0], axis) }, shapes: [][]int{s}},
				gradCase{name: fmt.Sprint("Concat", axis), f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Concat(axis, in[0], in[1], in[0]) }, shapes: [][]int{s, s}},
			)
			for a1 := range s {
				a1 := a1
				cases = append(cases, gradCase{name: fmt.Sprint("Transpose", axis, a1), f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Transpose(in[0], axis, a1) }, shapes: [][]int{s}})
			}
			if s[axis] >= 2 {
				cases = append(cases, gradCase{name: fmt.Sprint("Split", axis), f: func(tp *Tape, in []*Tensor) *Tensor {
					parts := tp.Split(in[0], axis, 1, s[axis]-1)
					// Mix the parts so both gradients matter and differ.
					return tp.Concat(axis, tp.Scale(parts[1], 2), parts[0])
				}, shapes: [][]int{s}})
			}
		}
		cases = append(cases,
			gradCase{name: "Sum", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Sum(in[0]) }, shapes: [][]int{s}},
			gradCase{name: "Mean", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Mean(in[0]) }, shapes: [][]int{s}},
			gradCase{name: "Reshape", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Square(tp.Reshape(in[0], -1)) }, shapes: [][]int{s}},
		)
	}
	cases = append(cases,
		gradCase{name: "ConcatDiffer", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Concat(1, in[0], in[1]) }, shapes: [][]int{{2, 1, 3}, {2, 4, 3}}},
		gradCase{name: "Gather", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Gather(in[0], []int32{2, 0, 2, 3, 2}) }, shapes: [][]int{{4, 3}}},
	)
	runGradCases(t, cases)
}

func TestGradSoftmaxFamily(t *testing.T) {
	maskC := []bool{true, false, true, true, false}
	maskG := []bool{true, true, false, false, true, false, true, true, true, true} // 2 groups × 5
	maskAll := []bool{false, false, false, false, false, true, true, false, true, true}
	var cases []gradCase
	for _, m := range []struct {
		name string
		m    []bool
	}{{"none", nil}, {"cols", maskC}, {"groups", maskG}, {"emptyrow", maskAll}} {
		mask := m.m
		cases = append(cases,
			gradCase{name: "Softmax_" + m.name, f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Softmax(in[0], mask) }, shapes: [][]int{{2, 2, 5}}})
		if mask == nil { // masked LogSoftmax has -Inf entries: see below
			cases = append(cases, gradCase{name: "LogSoftmax", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.LogSoftmax(in[0], nil) }, shapes: [][]int{{2, 2, 5}}})
		}
	}
	cases = append(cases,
		gradCase{name: "Softmax1col", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.Softmax(in[0], nil) }, shapes: [][]int{{3, 1}}},
		gradCase{name: "CrossEntropy", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.CrossEntropy(in[0], []int32{3, 0, -1, 4}) }, shapes: [][]int{{4, 5}}},
		gradCase{name: "CrossEntropy1", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.CrossEntropy(in[0], []int32{1}) }, shapes: [][]int{{1, 2}}},
	)
	runGradCases(t, cases)
}

// TestGradLogSoftmaxMasked checks the finite entries of a masked LogSoftmax
// (the masked column is cut out so the loss stays finite).
func TestGradLogSoftmaxMasked(t *testing.T) {
	mask := []bool{true, false, true, true}
	runGradCases(t, []gradCase{{name: "LogSoftmaxMasked", f: func(tp *Tape, in []*Tensor) *Tensor {
		y := tp.LogSoftmax(in[0], mask)
		parts := tp.Split(y, 1, 1, 1, 2)
		return tp.Concat(1, parts[0], parts[2])
	}, shapes: [][]int{{3, 4}}}})
}

func TestGradNormAndFused(t *testing.T) {
	cases := []gradCase{
		{name: "LayerNorm", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], in[2]) }, shapes: [][]int{{3, 6}, {6}, {6}}},
		{name: "LayerNorm4D", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], in[2]) }, shapes: [][]int{{2, 1, 2, 4}, {4}, {4}}},
		{name: "LayerNormNoAffine", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], nil, nil) }, shapes: [][]int{{4, 5}}},
		{name: "LayerNorm1row", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.LayerNorm(in[0], in[1], nil) }, shapes: [][]int{{1, 3}, {3}}},
		{name: "AddLayerNorm", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.AddLayerNorm(in[0], in[1], in[2], in[3]) }, shapes: [][]int{{3, 5}, {3, 5}, {5}, {5}}},
		{name: "AddLayerNormSame", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.AddLayerNorm(in[0], in[0], nil, in[1]) }, shapes: [][]int{{2, 1, 4}, {4}}},
		{name: "BiasGELU", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.BiasGELU(in[0], in[1]) }, shapes: [][]int{{2, 3, 4}, {4}}},
		{name: "BiasGELU1row", f: func(tp *Tape, in []*Tensor) *Tensor { return tp.BiasGELU(in[0], in[1]) }, shapes: [][]int{{1, 1}, {1}}},
		{name: "AddDropoutLayerNorm", f: func(tp *Tape, in []*Tensor) *Tensor {
			return tp.AddDropoutLayerNorm(in[0], in[1], 0.3, rand.New(rand.NewPCG(6, 6)), in[2], in[3]) // same mask on every evaluation
		}, shapes: [][]int{{4, 5}, {4, 5}, {5}, {5}}},
		{name: "Dropout", f: func(tp *Tape, in []*Tensor) *Tensor {
			return tp.Dropout(in[0], 0.3, rand.New(rand.NewPCG(5, 5))) // same mask on every evaluation
		}, shapes: [][]int{{4, 5}}},
	}
	runGradCases(t, cases)
}

func TestGradAttention(t *testing.T) {
	att := func(heads int, mask []bool) opFunc {
		return func(tp *Tape, in []*Tensor) *Tensor { return tp.Attention(in[0], in[1], in[2], heads, mask) }
	}
	cases := []gradCase{
		{name: "Attention1head", f: att(1, nil), shapes: [][]int{{1, 3, 4}, {1, 3, 4}, {1, 3, 4}}},
		{name: "Attention2heads", f: att(2, nil), shapes: [][]int{{2, 3, 4}, {2, 5, 4}, {2, 5, 4}}},
		{name: "AttentionMask", f: att(2, []bool{true, true, false, true, false, false, true, true, true, false}), shapes: [][]int{{2, 2, 6}, {2, 5, 6}, {2, 5, 6}}},
		{name: "Attention1query", f: att(3, nil), shapes: [][]int{{2, 1, 3}, {2, 1, 3}, {2, 1, 3}}},
		{name: "AttentionAllMasked", f: att(1, []bool{false, false, true, true}), shapes: [][]int{{2, 2, 2}, {2, 2, 2}, {2, 2, 2}}},
		// Packed: three sequences of 2, 1 and 3 queries over 3, 4 and 1 keys.
		{name: "PackedAttention", f: func(tp *Tape, in []*Tensor) *Tensor {
			return tp.PackedAttention(in[0], in[1], in[2], 2, []int{0, 2, 3, 6}, []int{0, 3, 7, 8}, nil)
		}, shapes: [][]int{{6, 4}, {8, 4}, {8, 4}}},
		{name: "PackedAttentionMask", f: func(tp *Tape, in []*Tensor) *Tensor {
			return tp.PackedAttention(in[0], in[1], in[2], 1, []int{0, 1, 3}, []int{0, 3, 5}, []bool{true, false, true, true, true})
		}, shapes: [][]int{{3, 3}, {5, 3}, {5, 3}}},
		{name: "Interleave", f: func(tp *Tape, in []*Tensor) *Tensor {
			return tp.Interleave(in[0], in[1], []int{0, 2, 2, 3}, []int{0, 1, 3, 4})
		}, shapes: [][]int{{3, 2}, {4, 2}}},
	}
	runGradCases(t, cases)
}
