package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/internal/parallel"
)

// Inputs are the per-document arrays the network reads, derived once from a
// corpus: the truncated token sequence, the L2-normalised tf-idf weights (the
// [CLS] strong start) and the bag-of-words counts (the topic loss). All in
// CSR form so that 500,000 documents need no per-document allocation.
type Inputs struct {
	N int // documents

	// Tokens of document i (at most MaxLen word ids, in reading order):
	// TokIdx[TokPtr[i]:TokPtr[i+1]].
	TokPtr []int64
	TokIdx []int32

	// Bag-of-words: distinct words, their counts and their tf-idf weights
	// (rows L2-normalised), over BowPtr.
	BowPtr   []int64
	BowWord  []int32
	BowCount []float32
	TfIdf    []float32

	Len []int // total word count |d_i| (untruncated)

	// Hop are the graph-propagated features (N, HopWidth), [Z₀ | … | Z_K]
	// of package features, when the model reads them (Config.FeatureHops);
	// nil otherwise. They depend on the neighbour lists they were
	// propagated over: Model.PropagateFeatures sets them.
	Hop      []float32
	HopWidth int
}

// HopRow returns document d's hop features, (HopWidth).
func (in *Inputs) HopRow(d int32) []float32 {
	return in.Hop[int(d)*in.HopWidth : int(d+1)*in.HopWidth]
}

// IDF returns the training documents' smoothed inverse document
// frequencies (corpus.Graph.IDF) as the float32 the model keeps with its
// weights.
func IDF(g *corpus.Graph, docs []int32) []float32 {
	idf64 := g.IDF(docs)
	idf := make([]float32, len(idf64))
	for w, v := range idf64 {
		idf[w] = float32(v)
	}
	return idf
}

// NewInputs derives the model inputs of every document of g under the given
// idf (from the training documents), maximum length and truncation rule.
func NewInputs(g *corpus.Graph, idf []float32, maxLen int, truncate Truncate) *Inputs {
	bow := g.BoW()
	n := g.NumDocs()
	in := &Inputs{
		N:        n,
		TokPtr:   make([]int64, n+1),
		BowPtr:   bow.Ptr,
		BowWord:  bow.Word,
		BowCount: bow.Count,
		TfIdf:    make([]float32, len(bow.Word)),
		Len:      make([]int, n),
	}
	// Documents on every core: each one's weights and kept tokens are
	// computed as alone, and its tokens written at its offset.
	cost := len(g.Tokens)/max(n, 1)*16 + 1
	parallel.For(n, 64, cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var ss float64
			for k := bow.Ptr[i]; k < bow.Ptr[i+1]; k++ {
				v := float64(bow.Count[k]) * float64(idf[bow.Word[k]])
				in.TfIdf[k] = float32(v)
				ss += v * v
			}
			if ss > 0 {
				inv := float32(1 / math.Sqrt(ss))
				for k := bow.Ptr[i]; k < bow.Ptr[i+1]; k++ {
					in.TfIdf[k] *= inv
				}
			}
		}
	})
	for i := 0; i < n; i++ {
		l := len(g.Doc(i))
		in.Len[i] = l
		in.TokPtr[i+1] = in.TokPtr[i] + int64(min(l, maxLen))
	}
	in.TokIdx = make([]int32, in.TokPtr[n])
	keeps := make([][]weighted, parallel.Workers()) // scratch: positions and their words' weights
	parallel.ForWorker(n, 64, cost, len(keeps), func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			doc, dst := g.Doc(i), in.TokIdx[in.TokPtr[i]:in.TokPtr[i+1]]
			switch {
			case len(doc) <= maxLen:
				copy(dst, doc)
			case truncate == "head":
				copy(dst, doc[:maxLen])
			default:
				keeps[w] = keepHeaviest(keeps[w], doc, bow.Word[bow.Ptr[i]:bow.Ptr[i+1]], in.TfIdf[bow.Ptr[i]:bow.Ptr[i+1]], maxLen)
				for j, k := range keeps[w] {
					dst[j] = doc[k.pos]
				}
			}
		}
	})
	return in
}

// weighted is a position of a document and its word's tf-idf weight.
type weighted struct {
	pos int
	w   float32
}

// keepHeaviest returns the maxLen positions of doc whose words weigh most
// (weights of the sorted distinct words), ties going to the earlier
// position, in reading order, in keep's storage. Each position's weight
// is looked up once, and the order (weight down, then position up) is
// total, so any sort gives what the stable sort by weight gave.
func keepHeaviest(keep []weighted, doc, words []int32, weights []float32, maxLen int) []weighted {
	keep = keep[:0]
	for p, w := range doc {
		k, _ := slices.BinarySearch(words, w)
		keep = append(keep, weighted{p, weights[k]})
	}
	slices.SortFunc(keep, func(a, b weighted) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		return a.pos - b.pos
	})
	keep = keep[:maxLen]
	slices.SortFunc(keep, func(a, b weighted) int { return a.pos - b.pos })
	return keep
}

// Tokens returns the truncated word ids of document i.
func (in *Inputs) Tokens(i int) []int32 { return in.TokIdx[in.TokPtr[i]:in.TokPtr[i+1]] }

// tfidfRows returns the L2-normalised tf-idf rows as a features.CSR
// (aliasing in's arrays).
func (in *Inputs) tfidfRows() features.CSR {
	return features.CSR{Ptr: in.BowPtr, Idx: in.BowWord, Val: in.TfIdf}
}

// FitFeatures fits the latent semantic basis of the hop features on the
// tf-idf rows of the training documents (no-op when the model reads no hop
// features, or already has a basis).
func (m *Model) FitFeatures(in *Inputs, train []int32, seed uint64) error {
	if m.Cfg.FeatureHops == 0 || m.LSA != nil {
		return nil
	}
	b, err := features.LSA(in.tfidfRows(), train, m.Cfg.Vocab, m.Cfg.HopDim(), seed)
	if err != nil {
		return fmt.Errorf("model: hop features: %w", err)
	}
	// A small corpus spans fewer latent dimensions than the width asks
	// (min(documents, words)): the missing columns are zero, so the
	// features there are zero and the model's shapes stay the configured.
	m.LSA = b.Padded(m.Cfg.HopDim())
	return nil
}

// PropagateFeatures sets in.Hop to the hop features of every document,
// propagated over nbrs (the same neighbour lists the documents are embedded
// through). No-op when the model reads no hop features.
func (m *Model) PropagateFeatures(in *Inputs, nbrs func(d int32) []int32) {
	if m.Cfg.FeatureHops == 0 {
		return
	}
	if m.LSA == nil {
		panic("model: PropagateFeatures before FitFeatures (no basis)")
	}
	in.Hop = features.Propagate(m.HopStart(in), m.LSA.Dim, m.Cfg.FeatureHops, nbrs)
	in.HopWidth = m.HopWidth()
}

// HopStart returns Z₀ of in's documents, (N, LSA.Dim): their tf-idf rows
// projected on the model's latent semantic basis, the start that
// PropagateFeatures averages over the links (features.HopStep per hop). A
// document's row depends on its own words only, so a caller that embeds a
// batch at a time (DocInputs) gets the rows Inputs would. Nil when the
// model reads no hop features.
func (m *Model) HopStart(in *Inputs) []float32 {
	if m.Cfg.FeatureHops == 0 {
		return nil
	}
	if m.LSA == nil {
		panic("model: HopStart before FitFeatures (no basis)")
	}
	return m.LSA.Project(in.tfidfRows())
}

// HopWidth is the width of a document's hop features, [Z₀ | … | Z_K]:
// (FeatureHops+1)·LSA.Dim, 0 when the model reads none.
func (m *Model) HopWidth() int {
	if m.Cfg.FeatureHops == 0 || m.LSA == nil {
		return 0
	}
	return (m.Cfg.FeatureHops + 1) * m.LSA.Dim
}

// WithFeatures returns a copy of in whose hop features are propagated over
// nbrs (in itself is unchanged; the other arrays are shared). Without hop
// features it returns in.
func (m *Model) WithFeatures(in *Inputs, nbrs func(d int32) []int32) *Inputs {
	if m.Cfg.FeatureHops == 0 {
		return in
	}
	c := *in
	m.PropagateFeatures(&c, nbrs)
	return &c
}

// Inputs derives the inputs of every document of g for this model (its
// idf, length and truncation) with hop features propagated over nbrs.
func (m *Model) Inputs(g *corpus.Graph, nbrs func(d int32) []int32) *Inputs {
	in := NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	m.PropagateFeatures(in, nbrs)
	return in
}

// LogUnigram returns the log of the smoothed word frequencies over docs,
// log((c_w + ½)/(Σc + ½V)): the decoder's background (Topics.Background).
func LogUnigram(g *corpus.Graph, docs []int32) []float32 {
	p := smoothedUnigram(g, docs)
	out := make([]float32, len(p))
	for w, v := range p {
		out[w] = float32(math.Log(v))
	}
	return out
}

// Unigram returns the smoothed word distribution over docs,
// (c_w + ½)/(Σc + ½V): the background mixture's b (Topics.Unigram), the
// distribution whose log LogUnigram is.
func Unigram(g *corpus.Graph, docs []int32) []float32 {
	p := smoothedUnigram(g, docs)
	out := make([]float32, len(p))
	for w, v := range p {
		out[w] = float32(v)
	}
	return out
}

// smoothedUnigram is the one count behind LogUnigram and Unigram:
// (c_w + ½)/(Σc + ½V) over docs' words, in float64.
func smoothedUnigram(g *corpus.Graph, docs []int32) []float64 {
	counts := make([]float64, len(g.Vocab))
	var total float64
	for _, d := range docs {
		for _, w := range g.Doc(int(d)) {
			counts[w]++
			total++
		}
	}
	den := total + 0.5*float64(len(counts))
	for w, c := range counts {
		counts[w] = (c + 0.5) / den
	}
	return counts
}

// Prepare derives what a new model reads from its training corpus before
// its first step, as the trainer does: the idf over the training documents
// (unless set) and the hop features' basis fitted on their tf-idf rows
// (unless set, and only when the model reads hop features), and the
// decoder's background word frequencies (unless set, and only when the
// model has one). For a model built outside the trainer (examples,
// fixtures, tools).
func (m *Model) Prepare(g *corpus.Graph, train []int32, seed uint64) error {
	_, err := m.PrepareInputs(g, train, seed, nil)
	return err
}

// PrepareInputs is Prepare, returning the inputs of g's documents (read
// with the model's idf; the hop features not propagated yet: that takes the
// caller's neighbour lists, PropagateFeatures). phase, when set, times its
// two parts: "tf-idf" (the idf, the background, the inputs) and "features"
// (the hop features' basis); it returns the function that ends a part.
func (m *Model) PrepareInputs(g *corpus.Graph, train []int32, seed uint64, phase func(name string) func()) (*Inputs, error) {
	if phase == nil {
		phase = func(string) func() { return func() {} }
	}
	stop := phase("tf-idf")
	if m.IDF == nil {
		m.IDF = IDF(g, train)
	}
	if m.Cfg.Tree.Background && m.Topics.Background == nil {
		m.Topics.Background = LogUnigram(g, train)
	}
	if m.Topics.Mix != nil && m.Topics.Unigram == nil {
		m.Topics.Unigram = Unigram(g, train)
	}
	in := NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	stop()
	defer phase("features")()
	if err := m.FitFeatures(in, train, seed); err != nil {
		return nil, err
	}
	return in, nil
}
