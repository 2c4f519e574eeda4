package model

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/internal/progress"

	"github.com/gtformer/gtformer/tensor"
)

// Cache holds every document's own-text [CLS] after layers 1..L-1 (unscaled),
// from its latest own-stream encoding: the historical-embedding speed option
// (as in GNNAutoScale). With it, a training step encodes only the centre
// documents; neighbours' vectors are read from the cache without gradient.
// At inference (no dropout) a cache refreshed from the current weights makes
// the result identical to full nesting, at the cost of one own-stream pass.
//
// Layout: (Layers-1, N, n) row-major float32.
type Cache struct {
	N, Width, Layers int
	Data             []float32
	// Builds counts the refreshes that filled it (Refresh or
	// RefreshNeighbors calls), so that the trainer's test can check that an
	// epoch builds it once.
	Builds int
}

// NewCache returns a zero cache for n documents.
func (m *Model) NewCache(n int) *Cache {
	l := max(m.Cfg.Layers-1, 0)
	return &Cache{N: n, Width: m.Cfg.Width, Layers: l, Data: make([]float32, l*n*m.Cfg.Width)}
}

// rows returns the cached vectors of docs at layer l as a (len(docs), n)
// tensor without gradient.
func (c *Cache) rows(tp *tensor.Tape, l int, docs []int32) *tensor.Tensor {
	t := tp.Alloc(false, len(docs), c.Width)
	base := l * c.N * c.Width
	for i, d := range docs {
		copy(t.Data[i*c.Width:(i+1)*c.Width], c.Data[base+int(d)*c.Width:base+int(d+1)*c.Width])
	}
	return t
}

// Refresh re-encodes docs from their own text with the current weights (no
// gradient, no dropout) in batches of batch documents and stores their
// per-layer [CLS].
func (m *Model) Refresh(c *Cache, in *Inputs, docs []int32, batch int) {
	m.refresh(c, in, docs, batch, nil, 1)
}

// refresh is Refresh keeping and reusing the first layer's rows through
// first (nil: none), and storing the [CLS] after layers 1..L-skip only
// (skip ≥ 1; the rest of c is left as it was). The documents whose rows
// first keeps are encoded in batches of their own: when the pass runs the
// first layer alone, it runs over every row for them (later passes start
// from those rows) and for the others at [CLS] only.
func (m *Model) refresh(c *Cache, in *Inputs, docs []int32, batch int, first *firstLayer, skip int) {
	if c.Layers == 0 || m.Cfg.NoGraph {
		return
	}
	c.Builds++
	bar := m.bar("encode own text", len(docs))
	for _, group := range first.split(docs) {
		encodeParts(batchParts(in, group, batch, nil), func(tp *tensor.Tape, p part) {
			c.store(p.docs, m.ownStates(tp, in, p.docs, first, skip))
			bar.Add(int64(len(p.docs)))
		})
	}
	bar.Finish()
}

// encodeRows bounds the token rows ([CLS] included) of one encoder call: a
// pass encodes each batch in parts of at most this many rows, whose
// activations ((rows, n) floats, (rows, MLPHidden) in the MLP) stay in the
// CPU's caches from one op of a layer to the next, rather than streaming
// a 128-document batch's ≈ 7,500 rows through memory at every op (the
// default bench embeds in about 20% less CPU time so). The numbers are
// the same: every op is row-wise or per document, and the parts of a batch
// keep its neighbour slots (batchParts). A variable for the tests.
var encodeRows = 1024

// part is what one encoder call of a pass holds: documents docs, which
// start at index lo of the pass's documents, and their neighbour slots nb
// (none for a pass that reads no neighbours).
type part struct {
	lo   int
	docs []int32
	nb   Neighbors
}

// batchParts splits docs into batches of batch documents, and each batch
// into consecutive parts of at most encodeRows token rows (one document at
// least). With pick, a part's neighbour slots are the lists pick gives,
// padded to the longest of its whole batch: the graph attention's softmax
// sums its row in an order that depends on that length (the vector
// exponential's lanes), so a part pads as its batch always has.
func batchParts(in *Inputs, docs []int32, batch int, pick func(d int32) []int32) []part {
	var parts []part
	for lo := 0; lo < len(docs); lo += batch {
		b := docs[lo:min(lo+batch, len(docs))]
		k := 1
		if pick != nil {
			for _, d := range b {
				k = max(k, len(pick(d)))
			}
		}
		for i := 0; i < len(b); {
			j, rows := i+1, 1+len(in.Tokens(int(b[i])))
			for ; j < len(b); j++ {
				r := 1 + len(in.Tokens(int(b[j])))
				if rows+r > encodeRows {
					break
				}
				rows += r
			}
			p := part{lo: lo + i, docs: b[i:j]}
			if pick != nil {
				p.nb = neighborSlots(p.docs, pick, k)
			}
			parts = append(parts, p)
			i = j
		}
	}
	return parts
}

// encodeParts calls fn for every part, as many at a time as there are
// cores (GOMAXPROCS), each caller with a no-gradient tape of its own,
// reset before each part. A part's numbers do not depend on what else
// runs, and parts hold different documents, so they write different rows
// of a pass's outputs: running them at once changes no bit, and keeps
// every core busy where one part's ops are too small to split among them
// ([CLS]-only layers, layouts, stores). A panic in fn is raised again in
// the caller, once every part has stopped.
func encodeParts(parts []part, fn func(tp *tensor.Tape, p part)) {
	workers := min(runtime.GOMAXPROCS(0), len(parts))
	var next atomic.Int64
	var failed atomic.Pointer[any]
	run := func() {
		defer parallel.Occupy()()
		tp := getTape()
		defer putTape(tp)
		defer func() {
			if r := recover(); r != nil {
				failed.CompareAndSwap(nil, &r)
			}
		}()
		for i := next.Add(1) - 1; i < int64(len(parts)) && failed.Load() == nil; i = next.Add(1) - 1 {
			tp.Reset()
			fn(tp, parts[i])
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
	if r := failed.Load(); r != nil {
		panic(*r)
	}
}

// NestedNeighbors reports whether neighbours enter the graph embedding
// nested over their own neighbours: Hops 2 with three or more layers. The
// graph token enters at layer 2, so a two-layer model, which reads its
// neighbours' [CLS] after layer 1 only, reaches one hop either way.
func (c *Config) NestedNeighbors() bool { return c.Hops >= 2 && c.Layers >= 3 && !c.NoGraph }

// CacheReadsTopics reports whether the neighbour cache depends on the topic
// side (tree, topic points, σ): with two hops the nested pass feeds layers
// 2..L-1 the tree embedding e_i, so a tree update or a new topic start
// makes the cache stale; with one hop, or without the tree embedding, it
// holds what the text and the graph give and survives them.
func (c *Config) CacheReadsTopics() bool { return c.NestedNeighbors() && !c.NoTree }

// RefreshNeighbors fills c for docs, the documents that centres will read
// as neighbours. With one hop that is Refresh: their own-text [CLS]. With
// two, each of docs is first encoded as a centre over its own neighbours
// (nbrs, capped at maxNbrs as in Embed), which are read from a scratch
// cache of own-text [CLS], and c keeps the [CLS] of that nested pass after
// layers 1..L-1. A centre that reads c then aggregates over neighbours that
// have aggregated over theirs: two hops of the graph at the cost of one
// extra pass over docs.
//
// The nested pass reads its neighbours' own-text [CLS] after layers
// 1..L-2 only (its last layer is L-1), so the own-text pass stops a layer
// earlier than Refresh: with three layers it runs the first layer alone,
// at [CLS] only, except for the documents that the nested pass encodes
// too, whose first-layer rows it keeps (firstLayer, within its budget)
// for the nested pass to start from.
func (m *Model) RefreshNeighbors(c *Cache, in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int) {
	m.refreshNeighbors(c, in, docs, nbrs, maxNbrs, batch, nil)
}

// refreshNeighbors is RefreshNeighbors with the first layer's rows kept in
// first, which Embed passes on to its centre pass; nil: a store of its own
// for docs when the refresh has two passes.
func (m *Model) refreshNeighbors(c *Cache, in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int, first *firstLayer) {
	if !m.Cfg.NestedNeighbors() {
		m.refresh(c, in, docs, batch, first, 1)
		return
	}
	c.Builds++
	own := m.NewCache(c.N)
	nbrDocs := neighborsOf(docs, capNeighbors(nbrs, maxNbrs))
	if first == nil {
		first = m.newFirstLayer(in, docs)
		defer first.release()
	}
	m.refresh(own, in, nbrDocs, batch, first, 2)
	m.nestedStates(own, in, docs, nbrs, maxNbrs, batch, c, first)
}

// NestedStates encodes docs as centres over their neighbours (nbrs, capped
// at maxNbrs as in Embed), whose per-layer [CLS] are read from src, and
// stores the centres' own [CLS] after layers 1..L-1 in dst: one hop of
// neighbour states. RefreshNeighbors is Refresh followed by one call; a
// caller that holds the neighbours' states itself (a pipeline that joins
// them in from elsewhere) calls it directly, and may call it again on its
// output to reach a hop further. No-op for a model that reads no
// neighbours (one layer, or NoGraph).
func (m *Model) NestedStates(src *Cache, in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int, dst *Cache) {
	m.nestedStates(src, in, docs, nbrs, maxNbrs, batch, dst, nil)
}

// nestedStates is NestedStates starting each centre from its first-layer
// rows in first (nil: computed).
func (m *Model) nestedStates(src *Cache, in *Inputs, docs []int32, nbrs func(d int32) []int32, maxNbrs, batch int, dst *Cache, first *firstLayer) {
	if m.Cfg.Layers < 2 || m.Cfg.NoGraph {
		return
	}
	top := m.inferenceTopics()
	bar := m.bar("encode over neighbours", len(docs))
	encodeParts(batchParts(in, docs, batch, capNeighbors(nbrs, maxNbrs)), func(tp *tensor.Tape, p part) {
		ctx := m.newCentreContext(tp, in, p.nb, src, top)
		_, cls := m.encode(tp, m.layoutTokens(in, p.docs), ctx, 1, first)
		dst.store(p.docs, cls)
		bar.Add(int64(len(p.docs)))
	})
	bar.Finish()
}

// ReadBy returns the documents whose cache rows embedding docs reads: the
// distinct neighbours (nbrs capped at maxNbrs, as Embed caps them) of docs,
// sorted. RefreshNeighbors over them is what EmbedCached of docs needs.
func ReadBy(docs []int32, nbrs func(d int32) []int32, maxNbrs int) []int32 {
	return neighborsOf(docs, capNeighbors(nbrs, maxNbrs))
}

// bar returns a progress bar over n documents on m.Progress (nil, whose
// methods do nothing, without one). It stays silent for passes that end
// within a few seconds.
func (m *Model) bar(label string, n int) *progress.Bar {
	if m.Progress == nil {
		return nil
	}
	return progress.New(m.Progress, label, int64(n), progress.Delay(progressDelay))
}

// progressDelay is how long a pass runs before its bar shows.
const progressDelay = 3 * time.Second

// Row returns the state of document d after layer l+1 (l in 0..Layers-1),
// Width floats aliasing Data.
func (c *Cache) Row(l, d int) []float32 {
	base := (l*c.N + d) * c.Width
	return c.Data[base : base+c.Width]
}

// store writes the per-layer [CLS] rows of docs, layers[l] (len(docs), n)
// for layers 1..L-1, into the cache.
func (c *Cache) store(docs []int32, layers []*tensor.Tensor) {
	n := c.Width
	for l, o := range layers {
		base := l * c.N * n
		for i, d := range docs {
			copy(c.Data[base+int(d)*n:base+int(d+1)*n], o.Data[i*n:(i+1)*n])
		}
	}
}

// capNeighbors returns the neighbour list a document aggregates over at
// inference: nbrs(d) thinned evenly to at most maxNbrs (CapList), or d
// itself when it has none (as in training).
func capNeighbors(nbrs func(d int32) []int32, maxNbrs int) func(d int32) []int32 {
	return func(d int32) []int32 {
		l := nbrs(d)
		if len(l) == 0 {
			return []int32{d}
		}
		return CapList(l, maxNbrs)
	}
}

// CapList returns the entries of a neighbour list that a document
// aggregates over at inference: all of them when there are at most
// maxNbrs, else maxNbrs evenly spaced ones (entry i·len/maxNbrs for i <
// maxNbrs), so that a long list is thinned without favouring its start.
// A caller that keeps neighbour lists of its own (sorted as the
// documents' ids) caps them with it to aggregate as Embed does.
func CapList[T any](l []T, maxNbrs int) []T {
	if len(l) <= maxNbrs {
		return l
	}
	out := make([]T, maxNbrs)
	for i := range out {
		out[i] = l[i*len(l)/maxNbrs]
	}
	return out
}

// neighborsOf returns the distinct documents of pick(d) over docs, sorted.
func neighborsOf(docs []int32, pick func(d int32) []int32) []int32 {
	var all []int32
	for _, d := range docs {
		all = append(all, pick(d)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// neighborSlots lays the neighbour lists pick(d) of docs out as K slots
// each, K the longest list or k if that is more (a part of a batch padded
// as the whole batch, batchParts); shorter lists are padded with their
// first entry, masked out.
func neighborSlots(docs []int32, pick func(d int32) []int32, k int) Neighbors {
	lists := make([][]int32, len(docs))
	for i, d := range docs {
		lists[i] = pick(d)
	}
	k = max(k, 1)
	for _, l := range lists {
		k = max(k, len(l))
	}
	nb := Neighbors{K: k, Docs: make([]int32, len(lists)*k), Mask: make([]bool, len(lists)*k)}
	for i, l := range lists {
		for j := 0; j < k; j++ {
			if j < len(l) {
				nb.Docs[i*k+j] = l[j]
				nb.Mask[i*k+j] = true
			} else {
				nb.Docs[i*k+j] = l[0]
			}
		}
	}
	return nb
}
