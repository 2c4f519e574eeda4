package tensor

import (
	"fmt"
	"math"
)

// Attention is fused multi-head scaled dot-product attention:
//
//	out[b,:,h] = softmax(q[b,:,h]·k[b,:,h]ᵀ/√d + mask) · v[b,:,h]
//
// for q (B,Tq,C), k and v (B,Tk,C), C = heads·d, head h occupying columns
// h·d…(h+1)·d. keyMask is nil or (B,Tk) booleans, true for a real key and
// false for padding; a query whose keys are all masked gets zeros.
//
// Why fused: the unfused chain (split heads by Transpose, BatchedMatMul,
// Scale, Softmax, BatchedMatMul, merge heads) materialises four transposed
// copies and three (B,H,Tq,Tk) tensors per direction. Here each (batch, head)
// is one task: the Tq×Tk score block (64 KB at T=128) stays in cache from
// the product through the softmax to the second product, the heads are read
// in place with leading dimension C (no transposes), and tasks run on all
// cores with single-threaded BLAS calls, which beats threaded BLAS on
// 128×128×64 products. Only the probabilities (B,H,Tq,Tk) are kept for
// backward.
//
// Backward per (b,h), with P the probabilities, s = 1/√d and G = dout[b,:,h]:
//
//	dV += Pᵀ·G
//	dP = G·Vᵀ
//	dS = P ⊙ (dP − rowsum(dP ⊙ P))          (softmax backward)
//	dQ += s·dS·K,  dK += s·dSᵀ·Q
//
// Backward overwrites the kept probabilities with s·dS, so it runs once.
func (tp *Tape) Attention(q, k, v *Tensor, heads int, keyMask []bool) *Tensor {
	if len(q.Shape) != 3 || len(k.Shape) != 3 || !SameShape(k, v) || q.Shape[0] != k.Shape[0] || q.Shape[2] != k.Shape[2] {
		panic(fmt.Sprintf("tensor: Attention: want q (B,Tq,C) and k, v (B,Tk,C); got q %v, k %v, v %v", q.Shape, k.Shape, v.Shape))
	}
	bs, tq, c := q.Shape[0], q.Shape[1], q.Shape[2]
	tk := k.Shape[1]
	if heads <= 0 || c%heads != 0 {
		panic(fmt.Sprintf("tensor: Attention: %d heads do not divide width %d of %v", heads, c, q.Shape))
	}
	if keyMask != nil && len(keyMask) != bs*tk {
		panic(fmt.Sprintf("tensor: Attention: key mask of %d values for keys %v (want B·Tk)", len(keyMask), k.Shape))
	}
	d := c / heads
	scale := float32(1 / math.Sqrt(float64(d)))
	grad := q.Grad != nil || k.Grad != nil || v.Grad != nil
	out := tp.alloc(grad, bs, tq, c)
	p := tp.alloc(false, bs, heads, tq, tk)
	parallelFor(bs*heads, 1, 4*tq*tk*d, func(lo, hi int) {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/heads, bh%heads
			qo, ko := b*tq*c+h*d, b*tk*c+h*d
			pb := p.Data[bh*tq*tk : (bh+1)*tq*tk]
			sgemmSerial(false, true, tq, tk, d, scale, q.Data[qo:], c, k.Data[ko:], c, 0, pb, tk)
			var m []bool
			if keyMask != nil {
				m = keyMask[b*tk : (b+1)*tk]
			}
			for i := range tq {
				row := pb[i*tk : (i+1)*tk]
				softmaxRow(row, row, m)
			}
			sgemmSerial(false, false, tq, d, tk, 1, pb, tk, v.Data[ko:], c, 0, out.Data[qo:], c)
		}
	})
	if nd := tp.push(out, attentionBackward); nd != nil {
		nd.a, nd.b, nd.c, nd.aux = q, k, v, p
		nd.i[0], nd.f[0] = heads, scale
		nd.aux2 = tp.alloc(false, numWorkers(), tq*tk) // dP scratch per worker
	}
	return out
}

func attentionBackward(nd *node) {
	q, k, v, p, scratch, out := nd.a, nd.b, nd.c, nd.aux, nd.aux2, nd.out
	heads, scale := nd.i[0], nd.f[0]
	bs, tq, c := q.Shape[0], q.Shape[1], q.Shape[2]
	tk, d := k.Shape[1], c/heads
	parallelForWorker(bs*heads, 1, 8*tq*tk*d, scratch.Shape[0], func(w, lo, hi int) {
		dp := scratch.Data[w*tq*tk : (w+1)*tq*tk]
		for bh := lo; bh < hi; bh++ {
			b, h := bh/heads, bh%heads
			qo, ko := b*tq*c+h*d, b*tk*c+h*d
			pb := p.Data[bh*tq*tk : (bh+1)*tq*tk]
			g := out.Grad[qo:]
			if v.Grad != nil {
				sgemmSerial(true, false, tk, d, tq, 1, pb, tk, g, c, 1, v.Grad[ko:], c)
			}
			if q.Grad == nil && k.Grad == nil {
				continue
			}
			sgemmSerial(false, true, tq, tk, d, 1, g, c, v.Data[ko:], c, 0, dp, tk)
			for i := range tq {
				pr, dr := pb[i*tk:(i+1)*tk], dp[i*tk:(i+1)*tk]
				var s float32
				for j, x := range pr {
					s += x * dr[j]
				}
				for j, x := range pr {
					pr[j] = scale * x * (dr[j] - s)
				}
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
