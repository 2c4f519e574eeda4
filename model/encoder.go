package model

import (
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/nn"
	"github.com/gtformer/gtformer/tensor"
)

// batchTokens lays out the token ids of docs as a padded (B, 1+Tm) grid:
// column 0 is [CLS], columns 1..Tm the words, padded with the [CLS] id and
// masked. Tm ≥ 1 so that the word block is never empty.
type batchTokens struct {
	B, Tm  int
	words  []int32 // (B*Tm) word ids, padding = cls id
	pos    []int32 // (B*Tm) position ids 1..Tm
	mask   []bool  // (B*(1+Tm)) true for real tokens ([CLS] included)
	clsIDs []int32 // (B) the [CLS] id
	zeros  []int32 // (B) position 0
	// bag: the documents' tf-idf rows in CSR form, for bagEmbed
	bagPtr []int64
	bagIdx []int32
	bagW   []float32
	// hop: the documents' hop features (B, (K+1)m), nil without them
	hop *tensor.Tensor
}

func (m *Model) layoutTokens(in *Inputs, docs []int32) *batchTokens {
	bt := &batchTokens{B: len(docs), Tm: 1}
	for _, d := range docs {
		bt.Tm = max(bt.Tm, len(in.Tokens(int(d))))
	}
	cls := int32(m.Cfg.Vocab)
	T := 1 + bt.Tm
	bt.words = make([]int32, bt.B*bt.Tm)
	bt.pos = make([]int32, bt.B*bt.Tm)
	bt.mask = make([]bool, bt.B*T)
	bt.clsIDs = make([]int32, bt.B)
	bt.zeros = make([]int32, bt.B)
	bt.bagPtr = make([]int64, 1, bt.B+1)
	for b, d := range docs {
		toks := in.Tokens(int(d))
		bt.clsIDs[b] = cls
		bt.mask[b*T] = true
		for j := 0; j < bt.Tm; j++ {
			bt.pos[b*bt.Tm+j] = int32(j + 1)
			if j < len(toks) {
				bt.words[b*bt.Tm+j] = toks[j]
				bt.mask[b*T+1+j] = true
			} else {
				bt.words[b*bt.Tm+j] = cls
			}
		}
		lo, hi := in.BowPtr[d], in.BowPtr[d+1]
		bt.bagIdx = append(bt.bagIdx, in.BowWord[lo:hi]...)
		bt.bagW = append(bt.bagW, in.TfIdf[lo:hi]...)
		bt.bagPtr = append(bt.bagPtr, int64(len(bt.bagIdx)))
	}
	if m.Cfg.FeatureHops > 0 {
		bt.hop = hopRows(in, docs)
	}
	return bt
}

// hopRows gathers the hop features of docs as a (len(docs), HopWidth)
// tensor without gradient.
func hopRows(in *Inputs, docs []int32) *tensor.Tensor {
	if in.Hop == nil {
		panic("model: the model reads hop features and the inputs have none (Model.PropagateFeatures)")
	}
	w := in.HopWidth
	t := tensor.New(len(docs), w)
	for i, d := range docs {
		copy(t.Data[i*w:(i+1)*w], in.Hop[int(d)*w:int(d+1)*w])
	}
	return t
}

// embed returns the input token grid X (B, 1+Tm, n): [CLS] + position 0 (+
// the tf-idf bag projection), then word + position embeddings; LayerNorm and
// dropout as in BERT.
func (m *Model) embed(tp *tensor.Tape, bt *batchTokens) *tensor.Tensor {
	n := m.Cfg.Width
	cls := tp.Add(m.Tok.Forward(tp, bt.clsIDs), m.Pos.Forward(tp, bt.zeros)) // (B,n)
	if m.Feat != nil {
		cls = tp.Add(cls, bagEmbed(tp, m.Feat, bt.bagPtr, bt.bagIdx, bt.bagW))
	}
	if m.HopIn != nil {
		cls = tp.Add(cls, tp.MatMul(bt.hop, m.HopIn, false, false))
	}
	words := tp.Add(m.Tok.Forward(tp, bt.words), m.Pos.Forward(tp, bt.pos)) // (B*Tm,n)
	x := tp.Concat(1, tp.Reshape(cls, bt.B, 1, n), tp.Reshape(words, bt.B, bt.Tm, n))
	x = m.EmbLN.Forward(tp, x)
	if m.Cfg.Dropout > 0 && !tp.NoGrad {
		x = tp.Dropout(x, m.Cfg.Dropout, m.rng)
	}
	return x
}

// clsOf returns the [CLS] rows of H (B,T,n) as (B,n).
func clsOf(tp *tensor.Tape, h *tensor.Tensor) *tensor.Tensor {
	b, t, n := h.Shape[0], h.Shape[1], h.Shape[2]
	parts := tp.Split(h, 1, 1, t-1)
	return tp.Reshape(parts[0], b, n)
}

// extraMask prepends p always-true keys to each row of a (B,T) mask.
func extraMask(mask []bool, b, t, p int) []bool {
	out := make([]bool, b*(p+t))
	for r := 0; r < b; r++ {
		for j := 0; j < p; j++ {
			out[r*(p+t)+j] = true
		}
		copy(out[r*(p+t)+p:], mask[r*t:(r+1)*t])
	}
	return out
}

// graphAttention is the hyperbolic graph attention of Eqs. (12-13) in the
// tangent space at the origin. With u = W_g·log_o d (that is log_o d̃, since
// log_o exp_o = id):
//
//	α_ij = softmax_j( (Q·u_i)·(K·u_j) / √n )   over the k sampled neighbours
//	log_o g_i = ½ (u_i + Σ_j α_ij u_j)
//
// The paper scores a pair linearly, b_att·[u_i ‖ u_j] = a_self·u_i +
// a_nbr·u_j; its self term is the same for every neighbour j of i, so the
// softmax cancels it and a_self never learns (its gradient is identically
// zero): every centre weighs its neighbours alike. The pair must interact
// through something other than a sum, as in HGCN's attention MLP or GATv2
// (Brody et al., 2022). The scaled dot product of the transformer is the
// simplest such form that is also smooth (a LeakyReLU's kink defeats the
// finite-difference gradient check). Q and K are (n,n) without bias (a key
// bias would cancel in the softmax too).
type graphAttention struct {
	W *nn.Linear // (n,n), no bias
	Q *nn.Linear // (n,n), no bias: the centre's query
	K *nn.Linear // (n,n), no bias: the neighbours' keys
}

// newGraphAttention draws W from rng and the attention's Q and K from
// attRng, a stream of their own, so that adding them left the rest of the
// model's initialisation as it was.
func newGraphAttention(name string, n int, rng, attRng *rand.Rand) *graphAttention {
	return &graphAttention{
		W: nn.NewLinear(name+".w", n, n, false, rng),
		Q: nn.NewLinear(name+".att_q", n, n, false, attRng),
		K: nn.NewLinear(name+".att_k", n, n, false, attRng),
	}
}

func (g *graphAttention) params() []*tensor.Tensor {
	return append(append(g.W.Params(), g.Q.Params()...), g.K.Params()...)
}

// forward maps centre tangents dc (B,n) and neighbour tangents dn (B*k,n) to
// log_o g (B,n). mask (B*k) marks real neighbour slots, or is nil when all are.
func (g *graphAttention) forward(tp *tensor.Tape, dc, dn *tensor.Tensor, k int, mask []bool) *tensor.Tensor {
	b, n := dc.Rows(), dc.Cols()
	uc := g.W.Forward(tp, dc)                       // (B,n)
	un := g.W.Forward(tp, dn)                       // (B*k,n)
	q := tp.Reshape(g.Q.Forward(tp, uc), b, 1, n)   // (B,1,n)
	key := tp.Reshape(g.K.Forward(tp, un), b, k, n) // (B,k,n)
	logits := tp.Reshape(tp.BatchedMatMul(q, key, false, true), b, k)
	alpha := tp.Softmax(tp.Scale(logits, float32(1/math.Sqrt(float64(n)))), mask) // (B,k)
	agg := tp.BatchedMatMul(tp.Reshape(alpha, b, 1, k), tp.Reshape(un, b, k, n), false, false)
	return tp.Scale(tp.Add(uc, tp.Reshape(agg, b, n)), 0.5)
}
