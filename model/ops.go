package model

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor"
)

// The ops below are specific to this model and extend the tape from outside
// (tensor.Tape.Record); each keeps its forward and backward side by side.

// scaleBy returns x·s for a one-element tensor s (a learned scalar).
//
//	y = s·x;  dL/dx += s·dL/dy;  dL/ds += Σ x ⊙ dL/dy
func scaleBy(tp *tensor.Tape, x, s *tensor.Tensor) *tensor.Tensor {
	if len(s.Data) != 1 {
		panic(fmt.Sprintf("model: scaleBy: scale %v is not a scalar", s.Shape))
	}
	y := tp.Alloc(tensor.AnyGrad(x, s), x.Shape...)
	sv := s.Data[0]
	for i, v := range x.Data {
		y.Data[i] = sv * v
	}
	tp.Record(y, func() {
		if x.Grad != nil {
			for i, g := range y.Grad {
				x.Grad[i] += sv * g
			}
		}
		if s.Grad != nil {
			var acc float64
			for i, g := range y.Grad {
				acc += float64(x.Data[i]) * float64(g)
			}
			s.Grad[0] += float32(acc)
		}
	})
	return y
}

// expScalar returns exp(sign·a) for a one-element tensor a: the learned scale
// is stored as its logarithm so that it stays positive, and sign = −1 gives
// its inverse.
//
//	y = e^{σa};  dL/da += σ·y·dL/dy
func expScalar(tp *tensor.Tape, a *tensor.Tensor, sign float32) *tensor.Tensor {
	y := tp.Alloc(a.Grad != nil, 1)
	y.Data[0] = float32(math.Exp(float64(sign * a.Data[0])))
	tp.Record(y, func() {
		if a.Grad != nil {
			a.Grad[0] += sign * y.Data[0] * y.Grad[0]
		}
	})
	return y
}

// bagEmbed returns, for each of B documents, Σ_w weight_w · table[w]: a
// sparse (B,V) × dense (V,n) product given in CSR form (ptr has B+1 entries).
// Used for the [CLS] strong start from tf-idf weights, where a dense (B,V)
// matrix would waste memory and time on large vocabularies.
//
//	y_b = Σ_{k∈row b} w_k table[idx_k];  dL/dtable[idx_k] += w_k dL/dy_b
func bagEmbed(tp *tensor.Tape, table *tensor.Tensor, ptr []int64, idx []int32, w []float32) *tensor.Tensor {
	n := table.Cols()
	b := len(ptr) - 1
	y := tp.Alloc(table.Grad != nil, b, n)
	for r := 0; r < b; r++ {
		out := y.Data[r*n : (r+1)*n]
		for k := ptr[r]; k < ptr[r+1]; k++ {
			wk := w[k]
			tensor.AddScaled(out, table.Data[int(idx[k])*n:int(idx[k]+1)*n], wk)
		}
	}
	tp.Record(y, func() {
		if table.Grad == nil {
			return
		}
		for r := 0; r < b; r++ {
			g := y.Grad[r*n : (r+1)*n]
			for k := ptr[r]; k < ptr[r+1]; k++ {
				wk := w[k]
				tensor.AddScaled(table.Grad[int(idx[k])*n:int(idx[k]+1)*n], g, wk)
			}
		}
	})
	return y
}

// contrastive is the graph loss of the paper's Eq. (15) with in-batch
// negatives: for each anchor row a with positive column pos[a], given
// logits ℓ (A,C) = −d²(anchor, candidate) and a mask of admissible
// candidates (false for the anchor itself and for other true neighbours),
//
//	L = mean_a −log( e^{ℓ_a,pos} / Σ_{c admissible} e^{ℓ_a,c} )
//	dL/dℓ_a,c = (softmax_c − [c = pos]) / A   over admissible c, 0 elsewhere.
//
// Computed in float64 with the max subtracted, so large distances cannot
// overflow.
func contrastive(tp *tensor.Tape, logits *tensor.Tensor, mask []bool, pos []int32) *tensor.Tensor {
	a, c := logits.Rows(), logits.Cols()
	if len(mask) != a*c || len(pos) != a {
		panic(fmt.Sprintf("model: contrastive: logits %v with %d mask entries and %d targets", logits.Shape, len(mask), len(pos)))
	}
	y := tp.Alloc(logits.Grad != nil, 1)
	prob := make([]float64, a*c) // kept for backward
	var loss float64
	for r := 0; r < a; r++ {
		row := logits.Data[r*c : (r+1)*c]
		m := row[pos[r]]
		for j, v := range row {
			if mask[r*c+j] && v > m {
				m = v
			}
		}
		var z float64
		for j, v := range row {
			if mask[r*c+j] || j == int(pos[r]) {
				e := math.Exp(float64(v - m))
				prob[r*c+j] = e
				z += e
			}
		}
		for j := range row {
			prob[r*c+j] /= z
		}
		loss -= math.Log(max(prob[r*c+int(pos[r])], 1e-300))
	}
	y.Data[0] = float32(loss / float64(a))
	tp.Record(y, func() {
		if logits.Grad == nil {
			return
		}
		g := float64(y.Grad[0]) / float64(a)
		for r := 0; r < a; r++ {
			for j := 0; j < c; j++ {
				p := prob[r*c+j]
				if j == int(pos[r]) {
					p -= 1
				}
				logits.Grad[r*c+j] += float32(g * p)
			}
		}
	})
	return y
}

// BowNLL is the topic reconstruction loss of Eq. (15): for each document b
// with word counts n_bw (CSR) and reconstructed distribution p = θ_b β,
//
//	L = (1/B) Σ_b (1/|d_b|) Σ_w −n_bw log p_bw
//
// normalised per token so that λ_topic = 1 weighs a document's topic loss
// like its graph loss (the paper's sum over words would let long documents
// dominate and dwarf the contrastive term); given p (B,V) it returns the
// scalar and dL/dp_bw = −n_bw / (|d_b| B p_bw).
func BowNLL(tp *tensor.Tape, p *tensor.Tensor, ptr []int64, word []int32, count []float32) *tensor.Tensor {
	b, v := p.Rows(), p.Cols()
	if len(ptr) != b+1 {
		panic(fmt.Sprintf("model: BowNLL: %d documents of counts for p %v", len(ptr)-1, p.Shape))
	}
	y := tp.Alloc(p.Grad != nil, 1)
	var loss float64
	for r := 0; r < b; r++ {
		var nd float64
		for k := ptr[r]; k < ptr[r+1]; k++ {
			nd += float64(count[k])
		}
		if nd == 0 {
			continue
		}
		var l float64
		for k := ptr[r]; k < ptr[r+1]; k++ {
			l -= float64(count[k]) * math.Log(max(float64(p.Data[r*v+int(word[k])]), 1e-30))
		}
		loss += l / nd
	}
	y.Data[0] = float32(loss / float64(b))
	tp.Record(y, func() {
		if p.Grad == nil {
			return
		}
		g := float64(y.Grad[0]) / float64(b)
		for r := 0; r < b; r++ {
			var nd float64
			for k := ptr[r]; k < ptr[r+1]; k++ {
				nd += float64(count[k])
			}
			if nd == 0 {
				continue
			}
			for k := ptr[r]; k < ptr[r+1]; k++ {
				i := r*v + int(word[k])
				p.Grad[i] -= float32(g * float64(count[k]) / (nd * max(float64(p.Data[i]), 1e-30)))
			}
		}
	})
	return y
}
