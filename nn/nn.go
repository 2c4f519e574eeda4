// Package nn holds neural-network layers built from tensor ops: Linear,
// LayerNorm, Embedding, MLP, multi-head attention with separate query and
// key/value inputs, and a post-LN transformer layer.
//
// Every layer owns named parameters (tensor.Param, e.g. "layer1.attn.wq")
// returned by its Params method in a fixed order, initialised from an
// explicitly seeded *rand.Rand. Forward methods record on a tensor.Tape.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/tensor"
)

// Linear is y = x·W + b with W (in,out) and b (out) (b nil without bias).
type Linear struct {
	W, B *tensor.Tensor
}

// NewLinear returns a Linear with W uniform in ±1/√in (PyTorch's default
// scale, keeping the output variance near the input's) and b zero. Parameter
// names are name+".w" and name+".b".
func NewLinear(name string, in, out int, bias bool, rng *rand.Rand) *Linear {
	l := &Linear{W: tensor.Param(name+".w", in, out)}
	uniform(l.W.Data, 1/math.Sqrt(float64(in)), rng)
	if bias {
		l.B = tensor.Param(name+".b", out)
	}
	return l
}

func uniform(d []float32, a float64, rng *rand.Rand) {
	for i := range d {
		d[i] = float32((2*rng.Float64() - 1) * a)
	}
}

// Forward maps x (…,in) to (…,out).
func (l *Linear) Forward(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	return tp.Linear(x, l.W, l.B)
}

// Params returns W then b (if any).
func (l *Linear) Params() []*tensor.Tensor {
	if l.B == nil {
		return []*tensor.Tensor{l.W}
	}
	return []*tensor.Tensor{l.W, l.B}
}

// LayerNorm normalises the last axis and applies a learned scale (Gamma,
// initialised to 1) and shift (Beta, 0); names name+".gamma", name+".beta".
type LayerNorm struct {
	Gamma, Beta *tensor.Tensor
}

// NewLayerNorm returns a LayerNorm over width c.
func NewLayerNorm(name string, c int) *LayerNorm {
	ln := &LayerNorm{Gamma: tensor.Param(name+".gamma", c), Beta: tensor.Param(name+".beta", c)}
	for i := range ln.Gamma.Data {
		ln.Gamma.Data[i] = 1
	}
	return ln
}

// Forward normalises x (…,c).
func (ln *LayerNorm) Forward(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	return tp.LayerNorm(x, ln.Gamma, ln.Beta)
}

// Params returns Gamma and Beta.
func (ln *LayerNorm) Params() []*tensor.Tensor { return []*tensor.Tensor{ln.Gamma, ln.Beta} }

// Embedding is a lookup table of V rows of width C (name+".table"),
// initialised N(0, 0.02²) as in BERT.
type Embedding struct {
	Table *tensor.Tensor
}

// NewEmbedding returns a (v, c) embedding table.
func NewEmbedding(name string, v, c int, rng *rand.Rand) *Embedding {
	e := &Embedding{Table: tensor.Param(name+".table", v, c)}
	for i := range e.Table.Data {
		e.Table.Data[i] = float32(0.02 * rng.NormFloat64())
	}
	return e
}

// Forward returns the rows for ids as (len(ids), C); ids must stay unchanged
// until Backward.
func (e *Embedding) Forward(tp *tensor.Tape, ids []int32) *tensor.Tensor {
	return tp.Gather(e.Table, ids)
}

// Params returns the table.
func (e *Embedding) Params() []*tensor.Tensor { return []*tensor.Tensor{e.Table} }

// MLP is Linear → GELU → Linear (the transformer's feed-forward block).
type MLP struct {
	In, Out *Linear
}

// NewMLP returns an MLP c → hidden → c with names name+".fc1", name+".fc2".
func NewMLP(name string, c, hidden int, rng *rand.Rand) *MLP {
	return &MLP{In: NewLinear(name+".fc1", c, hidden, true, rng), Out: NewLinear(name+".fc2", hidden, c, true, rng)}
}

// Forward maps x (…,c) to (…,c). The first bias is applied inside the fused
// BiasGELU rather than by Linear, saving a pass over the (…,hidden)
// activation.
func (m *MLP) Forward(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	h := tp.Linear(x, m.In.W, nil)
	if m.In.B != nil {
		h = tp.BiasGELU(h, m.In.B)
	} else {
		h = tp.GELU(h)
	}
	return m.Out.Forward(tp, h)
}

// Params returns the parameters of both Linears.
func (m *MLP) Params() []*tensor.Tensor { return append(m.In.Params(), m.Out.Params()...) }

// MultiHeadAttention attends from queries (B,Tq,C) to keys/values (B,Tk,C),
// which may come from a different (longer) sequence: GraphFormers-style
// asymmetric attention takes queries from a document's tokens and keys and
// values from [extra rows, tokens]. Projections are named name+".wq", ".wk",
// ".wv", ".wo" (with ".b" suffixed biases, e.g. "layer1.attn.wq.b"). The key
// projection has no bias: q·b_k adds the same value to every logit of a
// query's row, which the softmax cancels, so such a bias would never learn
// (model's gradient check flags tensors whose gradient is identically zero).
type MultiHeadAttention struct {
	Heads      int
	Q, K, V, O *Linear
}

// NewMultiHeadAttention returns attention of width c with heads heads
// (heads must divide c).
func NewMultiHeadAttention(name string, c, heads int, rng *rand.Rand) *MultiHeadAttention {
	if heads <= 0 || c%heads != 0 {
		panic(fmt.Sprintf("nn: NewMultiHeadAttention %s: %d heads do not divide width %d", name, heads, c))
	}
	return &MultiHeadAttention{
		Heads: heads,
		Q:     NewLinear(name+".wq", c, c, true, rng),
		K:     NewLinear(name+".wk", c, c, false, rng),
		V:     NewLinear(name+".wv", c, c, true, rng),
		O:     NewLinear(name+".wo", c, c, true, rng),
	}
}

// Forward returns (B,Tq,C). kv nil means self-attention (kv = x). keyMask is
// nil or (B,Tk) booleans, false for padding keys.
func (a *MultiHeadAttention) Forward(tp *tensor.Tape, x, kv *tensor.Tensor, keyMask []bool) *tensor.Tensor {
	if kv == nil {
		kv = x
	}
	q := a.Q.Forward(tp, x)
	k := a.K.Forward(tp, kv)
	v := a.V.Forward(tp, kv)
	return a.O.Forward(tp, tp.Attention(q, k, v, a.Heads, keyMask))
}

// ForwardPacked is Forward over sequences packed row after row (see
// tensor.PackedAttention): x (Rq,C) holds the queries' rows, sequence s
// owning rows qOff[s]..qOff[s+1], and kv (Rk,C) the keys' and values'
// rows, kOff[s]..kOff[s+1]; kv nil means kv = x and kOff = qOff. keyMask is
// nil or (Rk) booleans, false for keys to ignore. Returns (Rq,C).
//
// A pass without gradient that asks one query per sequence of separate
// keys (a layer read only at [CLS]) never projects the keys' rows: it
// folds the key and value maps through the queries instead
// (tensor.OneQueryAttention), the same numbers up to float32 summation
// order for a fraction of the work.
func (a *MultiHeadAttention) ForwardPacked(tp *tensor.Tape, x, kv *tensor.Tensor, qOff, kOff []int, keyMask []bool) *tensor.Tensor {
	if kv == nil {
		kv, kOff = x, qOff
	} else if tp.NoGrad && oneEach(qOff) {
		q := a.Q.Forward(tp, x)
		return a.O.Forward(tp, tp.OneQueryAttention(q, kv, a.K.W, a.V.W, a.V.B, a.Heads, kOff, keyMask))
	}
	q := a.Q.Forward(tp, x)
	k := a.K.Forward(tp, kv)
	v := a.V.Forward(tp, kv)
	return a.O.Forward(tp, tp.PackedAttention(q, k, v, a.Heads, qOff, kOff, keyMask))
}

// oneEach reports whether offsets give every sequence exactly one row.
func oneEach(off []int) bool {
	for i, o := range off {
		if o != i {
			return false
		}
	}
	return true
}

// Params returns the four projections' parameters.
func (a *MultiHeadAttention) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, l := range []*Linear{a.Q, a.K, a.V, a.O} {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// TransformerLayer is a post-LN (BERT-style) encoder layer:
//
//	x = LN1(x + MHA(x, kv));  x = LN2(x + MLP(x))
//
// with optional dropout on both residual branches while training.
type TransformerLayer struct {
	Attn     *MultiHeadAttention
	LN1, LN2 *LayerNorm
	MLP      *MLP
	// Dropout is applied to each branch before the residual add when > 0
	// and the tape records gradients (training); Rng draws the masks.
	Dropout float32
	Rng     *rand.Rand
}

// NewTransformerLayer returns a layer of width c, heads heads and MLP width
// hidden. Parameter names: name+".attn.wq.w", name+".ln1.gamma",
// name+".mlp.fc1.w", …
func NewTransformerLayer(name string, c, heads, hidden int, rng *rand.Rand) *TransformerLayer {
	return &TransformerLayer{
		Attn: NewMultiHeadAttention(name+".attn", c, heads, rng),
		LN1:  NewLayerNorm(name+".ln1", c),
		MLP:  NewMLP(name+".mlp", c, hidden, rng),
		LN2:  NewLayerNorm(name+".ln2", c),
	}
}

// Forward maps x (B,T,C) to (B,T,C). kv is nil for self-attention or the
// keys/values input (B,Tk,C), typically PrependRows(tp, extra, x) so that
// the tokens also see extra rows (e.g. a node embedding and its graph
// context); keyMask (B,Tk) marks real keys.
func (l *TransformerLayer) Forward(tp *tensor.Tape, x, kv *tensor.Tensor, keyMask []bool) *tensor.Tensor {
	h := l.Attn.Forward(tp, x, kv, keyMask)
	return l.finish(tp, x, h)
}

// ForwardPacked is Forward over sequences packed row after row (see
// MultiHeadAttention.ForwardPacked): x (Rq,C) are the rows whose outputs
// are wanted, which are also the queries, kv (Rk,C) the keys' and values'
// rows (nil: x itself). Queries may be a subset of a sequence's rows: a
// layer whose output is read only at [CLS] passes the [CLS] rows as x (one
// per sequence) and the whole sequences as kv, which is exact, since
// every row after attention is computed from its own row alone.
func (l *TransformerLayer) ForwardPacked(tp *tensor.Tape, x, kv *tensor.Tensor, qOff, kOff []int, keyMask []bool) *tensor.Tensor {
	h := l.Attn.ForwardPacked(tp, x, kv, qOff, kOff, keyMask)
	return l.finish(tp, x, h)
}

// finish applies the residual blocks after attention h of the queries x.
func (l *TransformerLayer) finish(tp *tensor.Tape, x, h *tensor.Tensor) *tensor.Tensor {
	x = l.addNorm(tp, x, h, l.LN1)
	return l.addNorm(tp, x, l.MLP.Forward(tp, x), l.LN2)
}

// addNorm returns ln(x + dropout(h)): dropout only while training, fused
// with the residual LayerNorm (tensor.AddDropoutLayerNorm).
func (l *TransformerLayer) addNorm(tp *tensor.Tape, x, h *tensor.Tensor, ln *LayerNorm) *tensor.Tensor {
	if l.Dropout <= 0 || tp.NoGrad {
		return tp.AddLayerNorm(x, h, ln.Gamma, ln.Beta)
	}
	if l.Rng == nil {
		panic("nn: TransformerLayer: Dropout > 0 needs a seeded Rng")
	}
	return tp.AddDropoutLayerNorm(x, h, l.Dropout, l.Rng, ln.Gamma, ln.Beta)
}

// Params returns all parameters: attention, ln1, mlp, ln2.
func (l *TransformerLayer) Params() []*tensor.Tensor {
	ps := l.Attn.Params()
	ps = append(ps, l.LN1.Params()...)
	ps = append(ps, l.MLP.Params()...)
	return append(ps, l.LN2.Params()...)
}

// PrependRows returns [extra, x] along the token axis: extra (B,P,C) and
// x (B,T,C) give (B,P+T,C), the key/value input of asymmetric attention.
func PrependRows(tp *tensor.Tape, extra, x *tensor.Tensor) *tensor.Tensor {
	return tp.Concat(1, extra, x)
}
