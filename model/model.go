package model

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/nn"
	"github.com/gtformer/gtformer/tensor"
)

// Model is the GTFormer network. All parameters are named tensors returned
// by Params in a fixed order; Save/Load (package checkpoint) rely on the
// names only.
type Model struct {
	Cfg Config
	M   lorentz.Manifold

	Tok   *nn.Embedding  // (V+1, n): word rows, then [CLS] at row V
	Pos   *nn.Embedding  // (MaxLen+1, n)
	EmbLN *nn.LayerNorm  // BERT's embedding LayerNorm
	Feat  *tensor.Tensor // (V, n) tf-idf bag projection for the [CLS] start; nil if Features == "none"
	// HopIn maps the hop features (Inputs.Hop, (K+1)m wide) into the [CLS]
	// start, HopSkip into the final tangent (FeatureSkip); nil when unused.
	HopIn, HopSkip *tensor.Tensor // ((K+1)m, n)
	// SkipGate (1) scales the encoder's path in the final tangent when the
	// features skip into it (Config.SkipGate); nil otherwise.
	SkipGate *tensor.Tensor

	Layers []*nn.TransformerLayer // L layers; layer 0 plain, 1..L-1 nested
	Graph  []*graphAttention      // L-1: graph attention feeding layers 1..L-1

	// LogScale is log s and Proj a learned n×n map: a document's tangent
	// vector is log_o d = s·([CLS]·Proj). The scale starts documents at
	// distance ≈ 1 (a post-LN [CLS] has norm ≈ √n); Proj, initialised to the
	// identity, lets documents leave the sphere of radius s√n that
	// LayerNorm would otherwise pin them to, so that general documents can
	// sit near the root and specific ones near the leaves.
	LogScale *tensor.Tensor // (1)
	Proj     *tensor.Tensor // (n,n)

	Topics *Topics

	SupHidden, SupOut *nn.Linear // classifier MLP on log_o d (Supervised only)

	// IDF are the inverse document frequencies of the training documents,
	// kept with the weights so that new documents get the same tf-idf
	// features and truncation (saved as the tensor "buffers.idf").
	IDF []float32
	// LSA is the hop features' latent semantic basis (V, m), fitted on the
	// training documents (FitFeatures) and saved with the weights as
	// "buffers.lsa"; nil without hop features.
	LSA *features.Basis

	// Progress, when set, receives progress bars of the passes over many
	// documents (cache refreshes, embedding); passes that end within a few
	// seconds draw nothing.
	Progress io.Writer

	// Corpus is the fingerprint of the corpus the model was trained on,
	// saved in config.json (train.New sets it); nil for a model never
	// trained or saved before fingerprints.
	Corpus *corpus.Fingerprint

	// Edits is the user's curation of the topic tree (edits.json: labels,
	// merges, moves, deletions), which Save writes and Load reads back;
	// nil for a model never edited.
	Edits *edits.Log

	dropSrc *rand.PCG  // reseeded per epoch (SeedDropout) so resumed runs match
	rng     *rand.Rand // dropout masks, drawn from dropSrc

	// pad and fullLast bring back the computation that packing and the
	// [CLS]-only last layer replaced (documents padded to the batch's
	// longest, the last layer over every row): the equivalence test's
	// reference, never set otherwise.
	pad, fullLast bool
}

// SeedDropout reseeds the dropout masks' source; the trainer calls it at the
// start of every epoch with (seed, epoch), so an epoch's masks do not depend
// on what ran before it.
func (m *Model) SeedDropout(seed, epoch uint64) { m.dropSrc.Seed(seed^0x64726f70, epoch) }

// DropoutState returns the dropout masks' source position, and
// SetDropoutState puts one back: a checkpoint written inside an epoch
// continues the epoch's masks where they were.
func (m *Model) DropoutState() ([]byte, error) { return m.dropSrc.MarshalBinary() }

// SetDropoutState restores a position returned by DropoutState.
func (m *Model) SetDropoutState(b []byte) error {
	if err := m.dropSrc.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("model: dropout state: %w", err)
	}
	return nil
}

// New builds a model with freshly initialised parameters. cfg.Vocab (and
// cfg.NumLabels for supervised training) must be set.
func New(cfg Config, seed uint64) (*Model, error) {
	m, err := newModel(cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// newModel is New without the package's prefix on its errors.
func newModel(cfg Config, seed uint64) (*Model, error) {
	if cfg.InitScale == 0 {
		cfg.InitScale = float32(1 / math.Sqrt(float64(cfg.Width)))
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x67746672))    // parameters
	attRng := rand.New(rand.NewPCG(seed, 0x67617474)) // graph attention's Q and K
	n := cfg.Width
	m := &Model{Cfg: cfg, dropSrc: rand.NewPCG(seed, 0x64726f70)}
	m.rng = rand.New(m.dropSrc)
	if cfg.Geometry == "euclidean" {
		m.M = lorentz.Euclidean{}
	} else {
		m.M = lorentz.Hyperboloid{K: cfg.Curvature}
	}
	m.Tok = nn.NewEmbedding("embed.tok", cfg.Vocab+1, n, rng)
	m.Pos = nn.NewEmbedding("embed.pos", cfg.MaxLen+1, n, rng)
	m.EmbLN = nn.NewLayerNorm("embed.ln", n)
	if cfg.Features == "tfidf" {
		// Random rows of norm ≈ 1: the bag of an L2-normalised tf-idf
		// vector is then a random projection of it (distances roughly
		// preserved), which dominates the small N(0, 0.02²) token rows in
		// the [CLS] before LayerNorm: a strong start (docs/design.md, "The
		// network").
		m.Feat = tensor.Param("embed.feat", cfg.Vocab, n)
		sd := 1 / math.Sqrt(float64(n))
		for i := range m.Feat.Data {
			m.Feat.Data[i] = float32(rng.NormFloat64() * sd)
		}
	}
	if cfg.FeatureHops > 0 {
		// Both maps start as the mean over hops (block identity / (K+1)
		// when m = n; a scaled random map otherwise), drawn from a stream
		// of their own so the rest of the initialisation is as without.
		hrng := rand.New(rand.NewPCG(seed, 0x686f7073))
		m.HopIn = hopMap("embed.hops", cfg, hrng)
		if cfg.FeatureSkip {
			m.HopSkip = hopMap("scale.skip", cfg, hrng)
			m.SkipGate = tensor.Param("scale.gate", 1)
			m.SkipGate.Data[0] = 1
			if cfg.SkipGate != nil {
				m.SkipGate.Data[0] = *cfg.SkipGate
			}
		}
	}
	for l := 0; l < cfg.Layers; l++ {
		layer := nn.NewTransformerLayer(fmt.Sprintf("layer%d", l), n, cfg.Heads, cfg.MLPHidden, rng)
		layer.Dropout = cfg.Dropout
		layer.Rng = m.rng
		m.Layers = append(m.Layers, layer)
		if l > 0 {
			m.Graph = append(m.Graph, newGraphAttention(fmt.Sprintf("graph%d", l), n, rng, attRng))
		}
	}
	m.LogScale = tensor.Param("scale.log", 1)
	m.LogScale.Data[0] = float32(math.Log(float64(cfg.InitScale)))
	m.Proj = tensor.Param("scale.proj", n, n)
	for i := 0; i < n; i++ {
		m.Proj.Data[i*n+i] = 1
	}
	t, err := newTopics(m.M, &m.Cfg, rng)
	if err != nil {
		return nil, fmt.Errorf("topic tree: %w", err)
	}
	m.Topics = t
	if cfg.Supervised {
		m.SupHidden = nn.NewLinear("sup.fc1", n, cfg.SupHidden, true, rng)
		m.SupOut = nn.NewLinear("sup.fc2", cfg.SupHidden, cfg.NumLabels, true, rng)
	}
	return m, nil
}

// Params returns every parameter in a fixed order.
func (m *Model) Params() []*tensor.Tensor {
	ps := append(m.Tok.Params(), m.Pos.Params()...)
	ps = append(ps, m.EmbLN.Params()...)
	if m.Feat != nil {
		ps = append(ps, m.Feat)
	}
	if m.HopIn != nil {
		ps = append(ps, m.HopIn)
	}
	for _, l := range m.Layers {
		ps = append(ps, l.Params()...)
	}
	for _, g := range m.Graph {
		ps = append(ps, g.params()...)
	}
	ps = append(ps, m.LogScale, m.Proj)
	if m.HopSkip != nil {
		ps = append(ps, m.HopSkip, m.SkipGate)
	}
	ps = append(ps, m.Topics.Params()...)
	if m.SupHidden != nil {
		ps = append(ps, m.SupHidden.Params()...)
		ps = append(ps, m.SupOut.Params()...)
	}
	return ps
}

// Output is what one forward pass yields for B centre documents.
type Output struct {
	Tangent *tensor.Tensor // (B,n)   log_o d = s·[CLS] of the last layer
	Points  *tensor.Tensor // (B,n+1) d on the manifold
	Theta   *tensor.Tensor // (B,T)   topic distribution from the final d
	Z       *tensor.Tensor // (T,n+1) topic points
	// CLS are the centres' unscaled [CLS] after layers 1..L-1, (B,n) each:
	// what a two-hop cache stores for them (RefreshNeighbors).
	CLS []*tensor.Tensor
}

// Neighbors gives, for B centre documents, K neighbour slots each: Docs
// (B*K) and an optional Mask (B*K, false for padding slots) when documents
// have different numbers of neighbours (inference uses all of them).
type Neighbors struct {
	K    int
	Docs []int32
	Mask []bool
}

// forward runs the network for the centre documents. Neighbour [CLS] vectors
// come from cache when it is non-nil (no gradient through them) and
// otherwise from encoding the neighbours in the same pass (full nesting).
func (m *Model) forward(tp *tensor.Tape, in *Inputs, centres []int32, nb Neighbors, cache *Cache) *Output {
	return m.forwardHop(tp, in, centres, nil, nb, cache)
}

// forwardFirst is forward at inference with the first layer's rows kept
// and reused through first (see firstLayer; nil: none) and the topic
// context top computed once for the caller's batches (nil: computed).
func (m *Model) forwardFirst(tp *tensor.Tape, in *Inputs, centres []int32, nb Neighbors, cache *Cache, first *firstLayer, top *topicContext) *Output {
	return m.forwardWith(tp, in, centres, nil, nb, cache, first, top)
}

// forwardHop is forward with the centres' hop features given (B,
// HopWidth) instead of read from in (nil: read from in). Training passes
// the centres' features with their target links removed (Batch.Hop).
func (m *Model) forwardHop(tp *tensor.Tape, in *Inputs, centres []int32, hop []float32, nb Neighbors, cache *Cache) *Output {
	return m.forwardWith(tp, in, centres, hop, nb, cache, nil, nil)
}

func (m *Model) forwardWith(tp *tensor.Tape, in *Inputs, centres []int32, hop []float32, nb Neighbors, cache *Cache, first *firstLayer, top *topicContext) *Output {
	ctx := m.newCentreContext(tp, in, nb, cache, top)
	bt := m.layoutTokens(in, centres)
	if hop != nil {
		bt.hop = tensor.FromData(hop, len(centres), in.HopWidth)
	}
	last, cls := m.encode(tp, bt, ctx, 0, first)
	dF := m.toTangent(tp, last, ctx.s)
	if m.HopSkip != nil {
		dF = tp.Add(scaleBy(tp, dF, m.SkipGate), tp.MatMul(bt.hop, m.HopSkip, false, false))
	}
	pts := m.M.ExpO(tp, dF)
	out := &Output{Tangent: dF, Points: pts, Z: ctx.z, CLS: cls}
	out.Theta = m.Topics.Theta(tp, pts, ctx.z, ctx.zh)
	return out
}

// toTangent maps [CLS] rows (B,n) to tangent vectors at the origin,
// s·([CLS]·Proj).
func (m *Model) toTangent(tp *tensor.Tape, cls, s *tensor.Tensor) *tensor.Tensor {
	return scaleBy(tp, tp.MatMul(cls, m.Proj, false, false), s)
}

// ownStream encodes docs from their own text only (no tree or graph rows),
// as neighbours are in GraphFormers, and returns their unscaled [CLS] after
// layers 1..L-1: L-1 tensors of shape (len(docs), n).
func (m *Model) ownStream(tp *tensor.Tape, in *Inputs, docs []int32, first *firstLayer) []*tensor.Tensor {
	return m.ownStates(tp, in, docs, first, 1)
}

// ownStates is ownStream ending skip ≥ 1 layers before the last: the
// [CLS] after layers 1..L-skip, L-skip tensors of shape (len(docs), n).
func (m *Model) ownStates(tp *tensor.Tape, in *Inputs, docs []int32, first *firstLayer, skip int) []*tensor.Tensor {
	_, cls := m.encode(tp, m.layoutTokens(in, docs), nil, skip, first)
	return cls
}

// hopMap returns a ((K+1)m, n) parameter that starts as the mean over the
// K+1 hops: block identities / (K+1) when m = n, else a random map with
// the same output scale.
func hopMap(name string, cfg Config, rng *rand.Rand) *tensor.Tensor {
	m, n, h := cfg.HopDim(), cfg.Width, cfg.FeatureHops+1
	p := tensor.Param(name, h*m, n)
	for k := 0; k < h; k++ {
		for i := 0; i < m; i++ {
			if m == n {
				p.Data[(k*m+i)*n+i] = 1 / float32(h)
				continue
			}
			for j := 0; j < n; j++ {
				p.Data[(k*m+i)*n+j] = float32(rng.NormFloat64() / (float64(h) * math.Sqrt(float64(m))))
			}
		}
	}
	return p
}

// uniqueDocs returns the distinct documents of docs (sorted) and, for each
// entry of docs, its index among them.
func uniqueDocs(docs []int32) (uniq, where []int32) {
	uniq = slices.Clone(docs)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	where = make([]int32, len(docs))
	for i, d := range docs {
		j, _ := slices.BinarySearch(uniq, d)
		where[i] = int32(j)
	}
	return uniq, where
}

// InitWordVectors initialises the word rows of the token embedding and of
// the [CLS] feature projection from pre-trained word vectors (the datasets'
// GloVe files), (V, dim) row-major: each vector is mapped to width n by a
// fixed Gaussian random projection (seeded) and rescaled — token rows to
// BERT's N(0, 0.02²) scale, feature rows to the norm of their random
// initialisation — so the start keeps word similarities without changing the
// magnitudes the rest of the network expects.
func (m *Model) InitWordVectors(vecs []float32, dim int, seed uint64) error {
	V, n := m.Cfg.Vocab, m.Cfg.Width
	if dim <= 0 || len(vecs) != V*dim {
		return fmt.Errorf("model: word vectors: %d values for %d words of width %d", len(vecs), V, dim)
	}
	rng := rand.New(rand.NewPCG(seed, 0x676c6f7665))
	proj := make([]float64, dim*n)
	for i := range proj {
		proj[i] = rng.NormFloat64() / math.Sqrt(float64(dim))
	}
	row := make([]float64, n)
	for w := 0; w < V; w++ {
		clear(row)
		for k, v := range vecs[w*dim : (w+1)*dim] {
			for j := 0; j < n; j++ {
				row[j] += float64(v) * proj[k*n+j]
			}
		}
		var ss float64
		for _, v := range row {
			ss += v * v
		}
		if ss == 0 {
			continue // a word without a vector keeps its random rows
		}
		norm := math.Sqrt(ss)
		tok := m.Tok.Table.Data[w*n : (w+1)*n]
		for j, v := range row {
			tok[j] = float32(v / norm * 0.02 * math.Sqrt(float64(n)))
		}
		if m.Feat != nil {
			f := m.Feat.Data[w*n : (w+1)*n]
			for j, v := range row {
				f[j] = float32(v / norm)
			}
		}
	}
	return nil
}
