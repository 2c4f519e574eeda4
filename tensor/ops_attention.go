package tensor

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Attention is fused multi-head scaled dot-product attention over a padded
// batch:
//
//	out[b,:,h] = softmax(q[b,:,h]·k[b,:,h]ᵀ/√d + mask) · v[b,:,h]
//
// for q (B,Tq,C), k and v (B,Tk,C), C = heads·d, head h occupying columns
// h·d…(h+1)·d. keyMask is nil or (B,Tk) booleans, true for a real key and
// false for padding; a query whose keys are all masked gets zeros. It is
// PackedAttention with every sequence of the same length.
func (tp *Tape) Attention(q, k, v *Tensor, heads int, keyMask []bool) *Tensor {
	if len(q.Shape) != 3 || len(k.Shape) != 3 || !SameShape(k, v) || q.Shape[0] != k.Shape[0] || q.Shape[2] != k.Shape[2] {
		panic(fmt.Sprintf("tensor: Attention: want q (B,Tq,C) and k, v (B,Tk,C); got q %v, k %v, v %v", q.Shape, k.Shape, v.Shape))
	}
	bs, tq, c := q.Shape[0], q.Shape[1], q.Shape[2]
	tk := k.Shape[1]
	if keyMask != nil && len(keyMask) != bs*tk {
		panic(fmt.Sprintf("tensor: Attention: key mask of %d values for keys %v (want B·Tk)", len(keyMask), k.Shape))
	}
	qOff, kOff := tp.uniformOffsets(bs, tq), tp.uniformOffsets(bs, tk)
	out := tp.PackedAttention(tp.Reshape(q, bs*tq, c), tp.Reshape(k, bs*tk, c), tp.Reshape(v, bs*tk, c), heads, qOff, kOff, keyMask)
	return tp.Reshape(out, bs, tq, c)
}

// UniformOffsets returns the offsets 0, t, 2t, …, b·t of b sequences of t
// rows each, from the tape's storage (valid until Reset).
func (tp *Tape) UniformOffsets(b, t int) []int { return tp.uniformOffsets(b, t) }

func (tp *Tape) uniformOffsets(b, t int) []int {
	off := tp.ints.take(b + 1)
	for i := range off {
		off[i] = i * t
	}
	return off
}

// PackedAttention is fused multi-head scaled dot-product attention over
// sequences of different lengths packed row after row, without padding:
// sequence s has queries q[qOff[s]:qOff[s+1]] and keys and values
// k, v[kOff[s]:kOff[s+1]], and
//
//	out[qOff[s]+i, h] = softmax_j(q[qOff[s]+i, h]·k[kOff[s]+j, h]/√d + mask) · v[kOff[s]+j, h]
//
// for q (Rq,C), k and v (Rk,C), C = heads·d, head h occupying columns
// h·d…(h+1)·d. keyMask is nil or (Rk) booleans, false for keys to ignore;
// a query whose keys are all masked, or a sequence without keys, gets
// zeros. qOff and kOff (S+1 offsets each, from 0 to Rq and Rk) must stay
// unchanged until Backward has run.
//
// Why packed: a batch padded to its longest document spends most of its
// attention on padding (on Cora ML the mean kept length is 59 of 96
// tokens, so ≈ 60% of the query-key pairs of a padded batch are padding).
// A sequence may have fewer queries than keys: a layer whose output is
// read only at [CLS] asks one query per sequence.
//
// Why fused: the unfused chain (split heads by Transpose, BatchedMatMul,
// Scale, Softmax, BatchedMatMul, merge heads) materialises four transposed
// copies and three (B,H,Tq,Tk) tensors per direction. Here each (sequence,
// head) is one task: its Tq×Tk score block (64 KB at T=128) stays in cache
// from the product through the softmax to the second product, the heads
// are read in place with leading dimension C (no transposes), and tasks
// run on all cores with single-threaded BLAS calls, which beats threaded
// BLAS on 128×128×64 products. Only the probabilities are kept for
// backward.
//
// Backward per (s,h), with P the probabilities, σ = 1/√d and G = dout[s,h]:
//
//	dV += Pᵀ·G
//	dP = G·Vᵀ
//	dS = P ⊙ (dP − rowsum(dP ⊙ P))          (softmax backward)
//	dQ += σ·dS·K,  dK += σ·dSᵀ·Q
//
// Backward overwrites the kept probabilities with σ·dS, so it runs once.
func (tp *Tape) PackedAttention(q, k, v *Tensor, heads int, qOff, kOff []int, keyMask []bool) *Tensor {
	if len(q.Shape) != 2 || len(k.Shape) != 2 || !SameShape(k, v) || q.Shape[1] != k.Shape[1] {
		panic(fmt.Sprintf("tensor: PackedAttention: want q (Rq,C) and k, v (Rk,C); got q %v, k %v, v %v", q.Shape, k.Shape, v.Shape))
	}
	rq, c := q.Shape[0], q.Shape[1]
	rk := k.Shape[0]
	if heads <= 0 || c%heads != 0 {
		panic(fmt.Sprintf("tensor: PackedAttention: %d heads do not divide width %d of %v", heads, c, q.Shape))
	}
	if len(qOff) < 1 || len(qOff) != len(kOff) || qOff[0] != 0 || kOff[0] != 0 || qOff[len(qOff)-1] != rq || kOff[len(kOff)-1] != rk {
		panic(fmt.Sprintf("tensor: PackedAttention: offsets %d…%d and %d…%d (%d and %d sequences) do not cover q %v and k %v",
			first(qOff), last(qOff), first(kOff), last(kOff), len(qOff)-1, len(kOff)-1, q.Shape, k.Shape))
	}
	if keyMask != nil && len(keyMask) != rk {
		panic(fmt.Sprintf("tensor: PackedAttention: key mask of %d values for keys %v", len(keyMask), k.Shape))
	}
	seqs := len(qOff) - 1
	// pOff[s]: where sequence s's probability blocks start (heads blocks of
	// tq·tk each); maxBlock sizes the backward's per-worker scratch.
	pOff := tp.ints.take(seqs + 1)
	maxBlock := 0
	for s := range seqs {
		tq, tk := qOff[s+1]-qOff[s], kOff[s+1]-kOff[s]
		if tq < 0 || tk < 0 {
			panic(fmt.Sprintf("tensor: PackedAttention: offsets decrease at sequence %d", s))
		}
		pOff[s+1] = pOff[s] + heads*tq*tk
		maxBlock = max(maxBlock, tq*tk)
	}
	d := c / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	grad := q.Grad != nil || k.Grad != nil || v.Grad != nil
	out := tp.alloc(grad, rq, c)
	p := tp.alloc(false, pOff[seqs])
	cost := 4 * (pOff[seqs]/max(seqs*heads, 1) + 1) * d
	parallelFor(seqs*heads, 1, cost, func(lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			s, h := sh/heads, sh%heads
			tq, tk := qOff[s+1]-qOff[s], kOff[s+1]-kOff[s]
			qo, ko := qOff[s]*c+h*d, kOff[s]*c+h*d
			if tq == 0 {
				continue
			}
			if tk == 0 {
				for i := range tq {
					clear(out.Data[qo+i*c : qo+i*c+d])
				}
				continue
			}
			pb := p.Data[pOff[s]+h*tq*tk : pOff[s]+(h+1)*tq*tk]
			sgemmSerial(false, true, tq, tk, d, scale, q.Data[qo:], c, k.Data[ko:], c, 0, pb, tk)
			var m []bool
			if keyMask != nil {
				m = keyMask[kOff[s]:kOff[s+1]]
			}
			for i := range tq {
				row := pb[i*tk : (i+1)*tk]
				softmaxSum(row, row, m)
			}
			sgemmSerial(false, false, tq, d, tk, 1, pb, tk, v.Data[ko:], c, 0, out.Data[qo:], c)
		}
	})
	if nd := tp.push(out, attentionBackward); nd != nil {
		nd.a, nd.b, nd.c, nd.aux = q, k, v, p
		nd.i[0], nd.f[0] = heads, scale
		// seg holds qOff, kOff and pOff, each seqs+1 long.
		nd.seg = append(append(append(nd.seg[:0], qOff...), kOff...), pOff...)
		nd.aux2 = tp.alloc(false, numWorkers(), maxBlock) // dP scratch per worker
	}
	return out
}

func first(x []int) int {
	if len(x) == 0 {
		return 0
	}
	return x[0]
}

func last(x []int) int {
	if len(x) == 0 {
		return 0
	}
	return x[len(x)-1]
}

func attentionBackward(nd *node) {
	q, k, v, p, scratch, out := nd.a, nd.b, nd.c, nd.aux, nd.aux2, nd.out
	heads, scale := nd.i[0], nd.f[0]
	c := q.Shape[1]
	d := c / heads
	seqs := len(nd.seg)/3 - 1
	qOff, kOff, pOff := nd.seg[:seqs+1], nd.seg[seqs+1:2*seqs+2], nd.seg[2*seqs+2:]
	maxBlock := scratch.Shape[1]
	cost := 8 * (pOff[seqs]/max(seqs*heads, 1) + 1) * d
	parallelForWorker(seqs*heads, 1, cost, scratch.Shape[0], func(w, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			s, h := sh/heads, sh%heads
			tq, tk := qOff[s+1]-qOff[s], kOff[s+1]-kOff[s]
			if tq == 0 || tk == 0 {
				continue
			}
			qo, ko := qOff[s]*c+h*d, kOff[s]*c+h*d
			pb := p.Data[pOff[s]+h*tq*tk : pOff[s]+(h+1)*tq*tk]
			g := out.Grad[qo:]
			if v.Grad != nil {
				sgemmSerial(true, false, tk, d, tq, 1, pb, tk, g, c, 1, v.Grad[ko:], c)
			}
			if q.Grad == nil && k.Grad == nil {
				continue
			}
			dp := scratch.Data[w*maxBlock : w*maxBlock+tq*tk]
			sgemmSerial(false, true, tq, tk, d, 1, g, c, v.Data[ko:], c, 0, dp, tk)
			for i := range tq {
				pr, dr := pb[i*tk:(i+1)*tk], dp[i*tk:(i+1)*tk]
				var s float32
				for j, x := range pr {
					s += x * dr[j]
				}
				vec.SoftmaxGradRow(pr, dr, scale, s)
			}
			if q.Grad != nil {
				sgemmSerial(false, false, tq, d, tk, 1, pb, tk, k.Data[ko:], c, 1, q.Grad[qo:], c)
			}
			if k.Grad != nil {
				sgemmSerial(true, false, tk, d, tq, 1, pb, tk, q.Data[qo:], c, 1, k.Grad[ko:], c)
			}
		}
	})
}

// OneQueryAttention is PackedAttention with one query per sequence whose
// keys and values are projections of the same rows x, k = x·wk + bk and
// v = x·wv + bv, for inference: sequence s has query q[s] and key rows
// x[kOff[s]:kOff[s+1]], and
//
//	out[s, h] = softmax_j(q[s,h]·k[kOff[s]+j, h]/√d + mask) · v[kOff[s]+j, h]
//
// for q (S,C), x (Rk,N), wk and wv (N,C), bv (C) or nil, C = heads·d. The
// key bias bk is not an argument: it adds q[s,h]·bk[h] to every score of
// (s,h), which the softmax cancels.
//
// Why: a layer read only at [CLS] (the last layer a pass runs) asks one
// query per document, and projecting every key row to k and v costs
// 2·2·N·C per row, more than all the rest of that layer. Folded through
// the query instead, the products are associated the other way round:
//
//	q·kⱼ = (wk_h·q_h)·xⱼ        (the head's query mapped back to the rows' width, N)
//	Σⱼ pⱼ vⱼ = (Σⱼ pⱼ xⱼ)·wv_h + bv_h   (Σⱼ pⱼ = 1)
//
// so each key row costs 2·2·heads·N: 32 times less for C = N = 128 and
// four heads. The numbers are PackedAttention's up to float32 summation
// order, not its bits. A sequence without keys, or whose keys are all
// masked, gets zeros, as in PackedAttention. No gradient flows: the tape
// must not record (a programmer's error panics).
func (tp *Tape) OneQueryAttention(q, x, wk, wv, bv *Tensor, heads int, kOff []int, keyMask []bool) *Tensor {
	if len(q.Shape) != 2 || len(x.Shape) != 2 || len(wk.Shape) != 2 || !SameShape(wk, wv) ||
		wk.Shape[0] != x.Shape[1] || wk.Shape[1] != q.Shape[1] || (bv != nil && bv.Len() != q.Shape[1]) {
		panic(fmt.Sprintf("tensor: OneQueryAttention: want q (S,C), x (Rk,N), wk and wv (N,C), bv (C); got q %v, x %v, wk %v, wv %v",
			q.Shape, x.Shape, wk.Shape, wv.Shape))
	}
	if !tp.NoGrad {
		panic("tensor: OneQueryAttention has no backward: call it on a tape that does not record")
	}
	seqs, c := q.Shape[0], q.Shape[1]
	rk, n := x.Shape[0], x.Shape[1]
	if heads <= 0 || c%heads != 0 {
		panic(fmt.Sprintf("tensor: OneQueryAttention: %d heads do not divide width %d of %v", heads, c, q.Shape))
	}
	if len(kOff) != seqs+1 || kOff[0] != 0 || kOff[seqs] != rk {
		panic(fmt.Sprintf("tensor: OneQueryAttention: offsets %d…%d (%d sequences) do not cover %d queries and x %v",
			first(kOff), last(kOff), len(kOff)-1, seqs, x.Shape))
	}
	if keyMask != nil && len(keyMask) != rk {
		panic(fmt.Sprintf("tensor: OneQueryAttention: key mask of %d values for keys %v", len(keyMask), x.Shape))
	}
	d := c / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	// qk[s,h] = scale·wk_h·q[s,h], (S, heads, N): head h's query in the
	// rows' width, one product per head over every sequence.
	qk := tp.alloc(false, seqs, heads, n)
	for h := range heads {
		sgemm(false, true, seqs, n, d, scale, q.Data[h*d:], c, wk.Data[h*d:], c, 0, qk.Data[h*n:], heads*n)
	}
	// Per sequence: the scores (heads, tk) against its rows, the softmax,
	// and the probability-weighted sums of the rows, ctx[s,h] (N).
	ctx := tp.alloc(false, seqs, heads, n)
	p := tp.alloc(false, heads*rk)
	live := tp.ints.take(seqs) // 1 when a key of sequence s is unmasked
	parallelFor(seqs, 1, 4*heads*n*(rk/max(seqs, 1)+1), func(lo, hi int) {
		for s := lo; s < hi; s++ {
			ko, tk := kOff[s], kOff[s+1]-kOff[s]
			if tk < 0 {
				panic(fmt.Sprintf("tensor: OneQueryAttention: offsets decrease at sequence %d", s))
			}
			cs := ctx.Data[s*heads*n : (s+1)*heads*n]
			live[s] = 0
			if tk == 0 {
				clear(cs)
				continue
			}
			pb := p.Data[heads*ko : heads*(ko+tk)]
			sgemmSerial(false, true, heads, tk, n, 1, qk.Data[s*heads*n:], n, x.Data[ko*n:], n, 0, pb, tk)
			var m []bool
			if keyMask != nil {
				m = keyMask[ko : ko+tk]
			}
			for h := range heads {
				row := pb[h*tk : (h+1)*tk]
				if _, sum := softmaxSum(row, row, m); sum != 0 {
					live[s] = 1
				}
			}
			sgemmSerial(false, false, heads, n, tk, 1, pb, tk, x.Data[ko*n:], n, 0, cs, n)
		}
	})
	// out[s,h] = ctx[s,h]·wv_h (+ bv_h where a key was read).
	out := tp.alloc(false, seqs, c)
	for h := range heads {
		sgemm(false, false, seqs, d, n, 1, ctx.Data[h*n:], heads*n, wv.Data[h*d:], c, 0, out.Data[h*d:], c)
	}
	if bv != nil {
		for s := range seqs {
			if live[s] != 0 {
				row := out.Data[s*c : (s+1)*c]
				vec.Add(row, row, bv.Data)
			}
		}
	}
	return out
}
