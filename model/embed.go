package model

import (
	"slices"
	"sort"

	"github.com/gtformer/gtformer/tensor"
)

// Embeddings are the model's outputs for a set of documents, row-aligned
// with the docs passed to Embed.
type Embeddings struct {
	Width   int       // n
	Topics  int       // T
	Points  []float32 // (N, n+1) coordinates on the manifold
	Tangent []float32 // (N, n) log_o of the points
	Theta   []float32 // (N, T) topic distributions
	Pred    []int32   // (N) supervised head's predicted label, nil when unsupervised
}

// Embed computes embeddings, topic distributions (and supervised predictions)
// for docs without gradient. nbrs(d) lists the documents d may aggregate over
// (its links to known documents); up to maxNbrs of them are used (evenly
// spaced over the list when there are more), and a document without
// neighbours attends to itself, as in training. Every neighbour is first
// re-encoded with the current weights (RefreshNeighbors: from its own text,
// or nested over its own neighbours when Hops is 2), so the result equals
// full nesting exactly (no dropout at inference).
func (m *Model) Embed(in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int) *Embeddings {
	var cache *Cache
	var first *firstLayer
	if m.Cfg.Layers > 1 && !m.Cfg.NoGraph {
		cache = m.NewCache(in.N)
		sets := m.embedSets(docs, nbrs, maxNbrs)
		// The passes after the own-text one (nested, centres) start from
		// their documents' first-layer rows, which the earliest pass to
		// encode a document keeps: the documents of the last set are
		// encoded by the own-text pass alone, and keep none.
		first = m.newFirstLayer(in, sets[:len(sets)-1]...)
		defer first.release()
		m.refreshNeighbors(cache, in, sets[1], nbrs, maxNbrs, batch, first)
	}
	return m.embedCached(in, docs, nbrs, maxNbrs, batch, cache, first)
}

// embedSets returns the documents Embed of docs encodes: docs, then the
// neighbours they read (capped at maxNbrs) when the model reads any, then,
// with nested neighbours, those neighbours' own neighbours.
func (m *Model) embedSets(docs []int32, nbrs func(d int32) []int32, maxNbrs int) [][]int32 {
	sets := [][]int32{docs}
	if m.Cfg.Layers > 1 && !m.Cfg.NoGraph {
		pick := capNeighbors(nbrs, maxNbrs)
		sets = append(sets, neighborsOf(docs, pick))
		if m.Cfg.NestedNeighbors() {
			sets = append(sets, neighborsOf(sets[1], pick))
		}
	}
	return sets
}

// EmbedReads returns the documents whose inputs Embed of docs reads (those
// it encodes: docs and, through the graph, their neighbours capped at
// maxNbrs and, with two hops, theirs), sorted and distinct.
func (m *Model) EmbedReads(docs []int32, nbrs func(d int32) []int32, maxNbrs int) []int32 {
	var all []int32
	for _, s := range m.embedSets(docs, nbrs, maxNbrs) {
		all = append(all, s...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// EmbedCached is Embed with the neighbours' per-layer [CLS] read from
// cache, which the caller has refreshed from the current weights
// (RefreshNeighbors with the same nbrs and maxNbrs) over at least the
// documents that docs aggregate over. The trainer's validation uses it to
// embed through the cache that the next epoch then reuses.
func (m *Model) EmbedCached(in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int, cache *Cache) *Embeddings {
	return m.embedCached(in, docs, nbrs, maxNbrs, batch, cache, nil)
}

// embedCached is EmbedCached starting from the first-layer rows kept in
// first (nil: none).
func (m *Model) embedCached(in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int, cache *Cache, first *firstLayer) *Embeddings {
	if cache == nil && m.Cfg.Layers > 1 && !m.Cfg.NoGraph {
		panic("model: EmbedCached: the model reads its neighbours from a cache, and none was given")
	}
	n := m.Cfg.Width
	T := m.Topics.Tables().T
	e := &Embeddings{Width: n, Topics: T,
		Points:  make([]float32, len(docs)*(n+1)),
		Tangent: make([]float32, len(docs)*n),
		Theta:   make([]float32, len(docs)*T),
	}
	if m.Cfg.Supervised {
		e.Pred = make([]int32, len(docs))
	}
	bar := m.bar("embed", len(docs))
	defer bar.Finish()
	top := m.inferenceTopics()
	encodeParts(batchParts(in, docs, batch, capNeighbors(nbrs, maxNbrs)), func(tp *tensor.Tape, p part) {
		out := m.forwardFirst(tp, in, p.docs, p.nb, cache, first, top)
		lo := p.lo
		copy(e.Points[lo*(n+1):], out.Points.Data)
		copy(e.Tangent[lo*n:], out.Tangent.Data)
		copy(e.Theta[lo*T:], out.Theta.Data)
		if e.Pred != nil {
			logits := m.classify(tp, out.Tangent)
			c := logits.Cols()
			for i := range p.docs {
				row := logits.Data[i*c : (i+1)*c]
				best := 0
				for j, v := range row {
					if v > row[best] {
						best = j
					}
				}
				e.Pred[lo+i] = int32(best)
			}
		}
		bar.Add(int64(len(p.docs)))
	})
	return e
}

// TopicWord is one word of a topic's distribution.
type TopicWord struct {
	Word   int32
	Weight float32
}

// TopicWords returns each topic's top-k words under β (dense row order).
func (m *Model) TopicWords(k int) [][]TopicWord {
	tp := tensor.NewTape()
	tp.NoGrad = true
	z, _ := m.Topics.Embeddings(tp)
	beta := m.Topics.Beta(tp, z)
	T, V := beta.Rows(), beta.Cols()
	k = min(k, V)
	out := make([][]TopicWord, T)
	idx := make([]int32, V)
	for t := 0; t < T; t++ {
		row := beta.Data[t*V : (t+1)*V]
		for i := range idx {
			idx[i] = int32(i)
		}
		sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
		for _, w := range idx[:k] {
			out[t] = append(out[t], TopicWord{Word: w, Weight: row[w]})
		}
	}
	return out
}

// Beta returns β (T,V) as a plain slice (for perplexity).
func (m *Model) Beta() []float32 {
	tp := tensor.NewTape()
	tp.NoGrad = true
	z, _ := m.Topics.Embeddings(tp)
	return append([]float32(nil), m.Topics.Beta(tp, z).Data...)
}

// Scatter returns e laid out by document id over n documents: row d of the
// result is the row of docs[i] = d in e, rows of documents not in docs are
// zero.
func (e *Embeddings) Scatter(docs []int32, n int) *Embeddings {
	w, T := e.Width, e.Topics
	out := &Embeddings{Width: w, Topics: T,
		Points:  make([]float32, n*(w+1)),
		Tangent: make([]float32, n*w),
		Theta:   make([]float32, n*T),
	}
	if e.Pred != nil {
		out.Pred = make([]int32, n)
	}
	for i, d := range docs {
		copy(out.Points[int(d)*(w+1):int(d+1)*(w+1)], e.Points[i*(w+1):(i+1)*(w+1)])
		copy(out.Tangent[int(d)*w:int(d+1)*w], e.Tangent[i*w:(i+1)*w])
		copy(out.Theta[int(d)*T:int(d+1)*T], e.Theta[i*T:(i+1)*T])
		if e.Pred != nil {
			out.Pred[d] = e.Pred[i]
		}
	}
	return out
}
