package model

import (
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/nn"
	"github.com/gtformer/gtformer/tensor"
)

// batchTokens lays out the token ids of docs packed row after row, without
// padding: document b owns rows off[b]..off[b+1], its [CLS] first (row
// off[b] = cls[b]), then its words. Attention runs over each document's
// own rows (tensor.PackedAttention).
//
// With Model.pad (the equivalence test only) every document is instead
// padded to the batch's longest, Tm ≥ 1 words, with the [CLS] id, and mask
// marks the real rows: the padded grid the packed layout replaced.
type batchTokens struct {
	in      *Inputs // what the batch was laid out from
	B       int
	docs    []int32 // (B) the documents
	off     []int   // (B+1) row offsets
	cls     []int32 // (B) the [CLS] rows
	mask    []bool  // (R) real rows; nil when packed (every row is real)
	clsIDs  []int32 // (B) the [CLS] id
	zeros   []int32 // (B) position 0
	words   []int32 // (W) word ids (padding = [CLS] id)
	pos     []int32 // (W) position ids 1..len
	wordOff []int   // (B+1) document b's words are words[wordOff[b]:wordOff[b+1]]
	// bag: the documents' tf-idf rows in CSR form, for bagEmbed
	bagPtr []int64
	bagIdx []int32
	bagW   []float32
	// hop: the documents' hop features (B, (K+1)m), nil without them
	hop *tensor.Tensor
}

func (m *Model) layoutTokens(in *Inputs, docs []int32) *batchTokens {
	bt := &batchTokens{in: in, B: len(docs), docs: docs}
	tm, words, bag := 1, 0, 0
	for _, d := range docs {
		n := len(in.Tokens(int(d)))
		tm = max(tm, n)
		words += n
		bag += int(in.BowPtr[d+1] - in.BowPtr[d])
	}
	if m.pad {
		words = tm * bt.B
		bt.mask = make([]bool, 0, words+bt.B)
	}
	clsID := int32(m.Cfg.Vocab)
	bt.off = make([]int, 1, bt.B+1)
	bt.wordOff = make([]int, 1, bt.B+1)
	bt.cls = make([]int32, bt.B)
	bt.clsIDs = make([]int32, bt.B)
	bt.zeros = make([]int32, bt.B)
	bt.bagPtr = make([]int64, 1, bt.B+1)
	// Every list at its final length up front: grown by appends, they
	// were a tenth of an embedding's layout time.
	bt.words = make([]int32, 0, words)
	bt.pos = make([]int32, 0, words)
	bt.bagIdx = make([]int32, 0, bag)
	bt.bagW = make([]float32, 0, bag)
	for b, d := range docs {
		toks := in.Tokens(int(d))
		n := len(toks)
		if m.pad {
			n = tm
		}
		bt.cls[b] = int32(bt.off[b])
		bt.clsIDs[b] = clsID
		if m.pad {
			bt.mask = append(bt.mask, true)
		}
		for j := range n {
			if j < len(toks) {
				bt.words = append(bt.words, toks[j])
			} else {
				bt.words = append(bt.words, clsID)
			}
			bt.pos = append(bt.pos, int32(j+1))
			if m.pad {
				bt.mask = append(bt.mask, j < len(toks))
			}
		}
		bt.off = append(bt.off, bt.off[b]+1+n)
		bt.wordOff = append(bt.wordOff, len(bt.words))
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
		copy(t.Data[i*w:(i+1)*w], in.HopRow(d))
	}
	return t
}

// embed returns the packed input rows X (R, n): per document its [CLS] +
// position 0 (+ the tf-idf bag projection, + the hop features), then its
// word + position embeddings; LayerNorm and dropout as in BERT.
func (m *Model) embed(tp *tensor.Tape, bt *batchTokens) *tensor.Tensor {
	cls := tp.Add(m.Tok.Forward(tp, bt.clsIDs), m.Pos.Forward(tp, bt.zeros)) // (B,n)
	if m.Feat != nil {
		cls = tp.Add(cls, bagEmbed(tp, m.Feat, bt.bagPtr, bt.bagIdx, bt.bagW))
	}
	if m.HopIn != nil {
		cls = tp.Add(cls, tp.MatMul(bt.hop, m.HopIn, false, false))
	}
	words := tp.GatherSum(m.Tok.Table, bt.words, m.Pos.Table, bt.pos) // (W,n)
	x := tp.Interleave(cls, words, tp.UniformOffsets(bt.B, 1), bt.wordOff)
	x = m.EmbLN.Forward(tp, x)
	if m.Cfg.Dropout > 0 && !tp.NoGrad {
		x = tp.Dropout(x, m.Cfg.Dropout, m.rng)
	}
	return x
}

// topicContext is what every centre pass reads of the scale and the topic
// side: s and 1/s, the topic points z, zh and log_o z, (1), (1), (T,n+1),
// (T,n+1) and (T,n). They depend on the weights alone, so an inference
// pass computes them once for all its batches (newTopicContext on a tape
// of its own) rather than once per batch: the topic tree's recurrence is
// a few percent of an embedding that runs in parts of 1,024 rows.
type topicContext struct {
	s, sInv, z, zh, logZ *tensor.Tensor
}

// newTopicContext computes the topic context on tp.
func (m *Model) newTopicContext(tp *tensor.Tape) *topicContext {
	c := &topicContext{s: expScalar(tp, m.LogScale, 1), sInv: expScalar(tp, m.LogScale, -1)}
	c.z, c.zh = m.Topics.Embeddings(tp)
	c.logZ = m.M.LogO(tp, c.z)
	return c
}

// inferenceTopics returns the topic context for an inference pass, on a
// tape of its own that the pass's per-batch Resets leave alone.
func (m *Model) inferenceTopics() *topicContext {
	tp := tensor.NewTape()
	tp.NoGrad = true
	return m.newTopicContext(tp)
}

// centreContext is what layers 2..L of a centre pass read besides the
// tokens: the topic context, and the neighbours' [CLS] per layer 1..L-1
// (unscaled) for the distinct neighbours nbrDocs, slot i of the batch's
// neighbours reading row nbrWhere[i].
type centreContext struct {
	*topicContext
	nb       Neighbors
	nbrCLS   []*tensor.Tensor // per layer 1..L-1: (U, n)
	nbrWhere []int32          // (B*K) rows of nbrCLS
}

// newCentreContext prepares a centre pass over neighbours nb: their
// per-layer [CLS] come from cache when it is non-nil (no gradient through
// them) and otherwise from encoding them in the same pass (full nesting),
// each distinct neighbour once. top is the topic context when the caller
// computed it for several batches (nil: computed on tp).
func (m *Model) newCentreContext(tp *tensor.Tape, in *Inputs, nb Neighbors, cache *Cache, top *topicContext) *centreContext {
	if top == nil {
		top = m.newTopicContext(tp)
	}
	ctx := &centreContext{topicContext: top, nb: nb}
	if m.Cfg.Layers > 1 && !m.Cfg.NoGraph {
		var uniq []int32
		uniq, ctx.nbrWhere = uniqueDocs(nb.Docs)
		if cache != nil {
			for l := 0; l < m.Cfg.Layers-1; l++ {
				ctx.nbrCLS = append(ctx.nbrCLS, cache.rows(tp, l, uniq))
			}
		} else {
			ctx.nbrCLS = m.ownStream(tp, in, uniq, nil)
		}
	}
	return ctx
}

// encode runs the layers over the packed batch bt and returns the [CLS]
// rows (B,n) of the last layer it runs and the [CLS] rows after each layer
// before it. ctx nil encodes the documents from their own text (no tree or
// graph rows). skip > 0 ends that many layers early, and the [CLS] of the
// last layer run is then appended to cls too: the pass that only needs the
// [CLS] after layers 1..L-1 (the neighbour cache) skips the last layer and
// the tree and graph rows that would feed it (skip 1), and the own-text
// pass under a two-hop refresh, whose last state nothing reads, skips one
// more (skip 2).
//
// The last layer run is read only at [CLS], so its queries, attention
// output and MLP are computed for the [CLS] rows alone (unless
// Model.fullLast, the equivalence test's reference). first, at inference
// only, keeps and reuses the first layer's rows (nil: none); when the
// first layer is the only one run, it runs over every row only for a
// batch whose rows first keeps (firstLayer.keepsAll), and [CLS]-only
// otherwise.
func (m *Model) encode(tp *tensor.Tape, bt *batchTokens, ctx *centreContext, skip int, first *firstLayer) (final *tensor.Tensor, cls []*tensor.Tensor) {
	last := m.Cfg.Layers - 1 - skip
	if last < 0 {
		return nil, nil
	}
	var h *tensor.Tensor
	start := 0
	if first != nil && !m.pad && (last >= 1 || first.keepsAll(bt)) {
		if !tp.NoGrad {
			panic("model: first-layer rows reused on a recording tape")
		}
		if h = first.load(tp, bt); h == nil {
			if docs := first.missing(bt); docs != nil {
				// Some of bt's documents are kept (an earlier pass
				// encoded them): the first layer runs over the others
				// only, and every row then comes from the store.
				sub := m.layoutTokens(bt.in, docs)
				first.save(sub, m.layer(tp, 0, m.embed(tp, sub), sub, nil, false))
				h = first.load(tp, bt)
			} else {
				h = m.layer(tp, 0, m.embed(tp, bt), bt, nil, false)
				first.save(bt, h)
			}
		}
		start = 1
	} else {
		h = m.embed(tp, bt)
	}
	for l := start; l <= last; l++ {
		var extras *tensor.Tensor
		if l > 0 {
			c := tp.Gather(h, bt.cls)
			cls = append(cls, c)
			if ctx != nil {
				extras = m.extraRows(tp, l, c, ctx)
			}
		}
		h = m.layer(tp, l, h, bt, extras, !m.fullLast && l == last)
	}
	if m.fullLast || start > last {
		// Every row of the last layer run: (R,n) to its [CLS] rows (B,n).
		h = tp.Gather(h, bt.cls)
	}
	if skip > 0 {
		cls = append(cls, h)
	}
	return h, cls
}

// firstLayer keeps the first layer's output rows per document at
// inference. The first layer reads a document's own text only (no tree or
// graph rows), so every pass of a refresh or an embedding that encodes the
// same document again — own text, nested over its neighbours, as a centre
// — starts from the same rows: kept from the first pass, they save the
// later passes their embedding and first layer (for three layers and two
// hops, 2 of the ≈ 4.7 layer-equivalents of Model.Embed). Within
// firstLayerBudget only; a larger set of documents is recomputed.
type firstLayer struct {
	n     int
	start []int64 // per document: its first row in data, −1 when it is not in the store's sets
	kept  []bool  // per document: its rows are in data
	data  []float32
}

// firstLayerBudget bounds the kept rows' memory in bytes (a variable for
// the test of the bound).
var firstLayerBudget int64 = 512 << 20

// newFirstLayer returns a store for the first-layer rows of the documents
// of sets, or nil when they would exceed firstLayerBudget bytes. Each
// document's rows have their place from the start, so that parts encoded
// at the same time keep their documents' rows without coordinating.
func (m *Model) newFirstLayer(in *Inputs, sets ...[]int32) *firstLayer {
	n := m.Cfg.Width
	f := &firstLayer{n: n, start: make([]int64, in.N), kept: make([]bool, in.N)}
	var rows int64
	for i := range f.start {
		f.start[i] = -1 // not in the sets
	}
	for _, set := range sets {
		for _, d := range set {
			if f.start[d] < 0 {
				f.start[d] = rows
				rows += int64(1 + len(in.Tokens(int(d))))
			}
		}
	}
	if rows*int64(n)*4 > firstLayerBudget {
		return nil
	}
	f.data = firstLayerData(rows * int64(n))
	return f
}

// keepsAll reports whether the store keeps (or is to keep) the rows of
// every document of bt.
func (f *firstLayer) keepsAll(bt *batchTokens) bool {
	for _, d := range bt.docs {
		if f.start[d] < 0 {
			return false
		}
	}
	return true
}

// split returns docs in two groups, those whose rows the store keeps (or
// is to keep) and the others, each in docs' order, so that a pass that
// runs the first layer alone runs it over every row for the first group
// only (nil f: docs as one group).
func (f *firstLayer) split(docs []int32) [][]int32 {
	if f == nil {
		return [][]int32{docs}
	}
	var kept, other []int32
	for _, d := range docs {
		if f.start[d] < 0 {
			other = append(other, d)
		} else {
			kept = append(kept, d)
		}
	}
	return [][]int32{kept, other}
}

// load returns the kept rows of bt's documents as a packed (R, n) tensor,
// or nil unless every one of them is kept.
func (f *firstLayer) load(tp *tensor.Tape, bt *batchTokens) *tensor.Tensor {
	for _, d := range bt.docs {
		if !f.kept[d] {
			return nil
		}
	}
	h := tp.Alloc(false, bt.off[bt.B], f.n)
	for b, d := range bt.docs {
		lo := f.start[d] * int64(f.n)
		copy(h.Data[bt.off[b]*f.n:bt.off[b+1]*f.n], f.data[lo:lo+int64((bt.off[b+1]-bt.off[b])*f.n)])
	}
	return h
}

// missing returns the documents of bt whose rows are not kept yet, in
// bt's order, when every document of bt is in the store's sets and some
// are kept already; otherwise nil (none kept: the whole batch is encoded,
// and saved where it can be). A document's first-layer rows depend on its
// own rows alone (its attention is over its own tokens), so once these
// are encoded the store holds every row of bt.
func (f *firstLayer) missing(bt *batchTokens) []int32 {
	var docs []int32
	for _, d := range bt.docs {
		if f.start[d] < 0 {
			return nil
		}
		if !f.kept[d] {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 || len(docs) == bt.B {
		return nil
	}
	return docs
}

// save keeps the rows of h (R, n) of bt's documents that are in the store's
// sets and not kept yet. Parts encoded at the same time hold different
// documents, whose places in data are apart.
func (f *firstLayer) save(bt *batchTokens, h *tensor.Tensor) {
	for b, d := range bt.docs {
		if f.start[d] < 0 || f.kept[d] {
			continue
		}
		lo := f.start[d] * int64(f.n)
		copy(f.data[lo:], h.Data[bt.off[b]*f.n:bt.off[b+1]*f.n])
		f.kept[d] = true
	}
}

// extraRows returns the rows that layer l+1 (l ≥ 1) prepends to each
// document's keys and values, (B·P, n) with P = 1 or 2, document by
// document: log_o e / s (the tree embedding) and log_o g / s (the graph
// embedding) from the [CLS] rows c (B,n) after layer l; nil when the model
// has neither.
func (m *Model) extraRows(tp *tensor.Tape, l int, c *tensor.Tensor, ctx *centreContext) *tensor.Tensor {
	cfg := &m.Cfg
	if cfg.NoTree && cfg.NoGraph {
		return nil
	}
	B, n := c.Rows(), c.Cols()
	dC := m.toTangent(tp, c, ctx.s) // (B,n)
	var extras []*tensor.Tensor
	if !cfg.NoTree {
		theta := m.Topics.Theta(tp, m.M.ExpO(tp, dC), ctx.z, ctx.zh)
		e := tp.MatMul(theta, ctx.logZ, false, false) // log_o e_i (B,n)
		extras = append(extras, tp.Reshape(scaleBy(tp, e, ctx.sInv), B, 1, n))
	}
	if !cfg.NoGraph {
		dN := m.toTangent(tp, ctx.nbrCLS[l-1], ctx.s) // (U,n)
		g := m.Graph[l-1].forward(tp, dC, dN, ctx.nbrWhere, ctx.nb.K, ctx.nb.Mask)
		extras = append(extras, tp.Reshape(scaleBy(tp, g, ctx.sInv), B, 1, n))
	}
	ex := extras[0]
	if len(extras) > 1 {
		ex = tp.Concat(1, extras...)
	}
	return tp.Reshape(ex, B*len(extras), n)
}

// layer runs layer l over the packed rows h (R,n) of bt, with extras
// (B·P, n) prepended to each document's keys and values (nil: none). With
// clsOnly the queries are the [CLS] rows alone and the result is (B,n);
// otherwise (R,n).
func (m *Model) layer(tp *tensor.Tape, l int, h *tensor.Tensor, bt *batchTokens, extras *tensor.Tensor, clsOnly bool) *tensor.Tensor {
	kv, kOff, mask := h, bt.off, bt.mask
	if extras != nil {
		p := extras.Rows() / bt.B
		eOff := tp.UniformOffsets(bt.B, p)
		kv = tp.Interleave(extras, h, eOff, bt.off)
		kOff = make([]int, bt.B+1)
		for b := range kOff {
			kOff[b] = eOff[b] + bt.off[b]
		}
		if mask != nil {
			mask = make([]bool, 0, kv.Rows())
			for b := range bt.B {
				for range p {
					mask = append(mask, true)
				}
				mask = append(mask, bt.mask[bt.off[b]:bt.off[b+1]]...)
			}
		}
	}
	x, qOff := h, bt.off
	if clsOnly {
		x, qOff = tp.Gather(h, bt.cls), tp.UniformOffsets(bt.B, 1)
	}
	return m.Layers[l].ForwardPacked(tp, x, kv, qOff, kOff, mask)
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

// forward maps centre tangents dc (B,n) and the distinct neighbours'
// tangents dn (U,n) to log_o g (B,n): slot i of the B·k neighbour slots
// reads row where[i] of dn. mask (B*k) marks real neighbour slots, or is
// nil when all are. The row-wise maps W and K run once per distinct
// neighbour, not once per slot (at inference a batch's slots are padded
// to its longest neighbour list, and hubs appear in many lists).
func (g *graphAttention) forward(tp *tensor.Tape, dc, dn *tensor.Tensor, where []int32, k int, mask []bool) *tensor.Tensor {
	b, n := dc.Rows(), dc.Cols()
	uc := g.W.Forward(tp, dc)                                         // (B,n)
	un := g.W.Forward(tp, dn)                                         // (U,n)
	q := tp.Reshape(g.Q.Forward(tp, uc), b, 1, n)                     // (B,1,n)
	key := tp.Reshape(tp.Gather(g.K.Forward(tp, un), where), b, k, n) // (B,k,n)
	logits := tp.Reshape(tp.BatchedMatMul(q, key, false, true), b, k)
	alpha := tp.Softmax(tp.Scale(logits, float32(1/math.Sqrt(float64(n)))), mask) // (B,k)
	agg := tp.BatchedMatMul(tp.Reshape(alpha, b, 1, k), tp.Reshape(tp.Gather(un, where), b, k, n), false, false)
	return tp.Scale(tp.Add(uc, tp.Reshape(agg, b, n)), 0.5)
}
