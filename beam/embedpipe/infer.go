package embedpipe

import (
	"context"

	"github.com/gtformer/gtformer/corpusstates"
	"github.com/gtformer/gtformer/model"
)

// The model DoFns batch: they buffer up to Batch documents and run the
// model once over them, flushing when the buffer is full and at the end of
// every bundle, so a bundle never holds more than one batch and its
// neighbour states (Batch × MaxNbrs × Layers × Width floats).

// ownStatesFn computes documents' own-text states (model.Refresh) and
// sends them to the centres that read them.
type ownStatesFn struct {
	Model string
	Batch int
	// Send is how many layers of its states a document sends (sendLayers):
	// the first Send of Layers.
	Send int

	m   *model.Model
	buf []node
}

func (f *ownStatesFn) Setup(ctx context.Context) (err error) {
	f.m, err = loadModel(ctx, f.Model)
	return err
}

func (f *ownStatesFn) ProcessElement(ctx context.Context, n node, emit func(int64, outbox)) {
	f.buf = append(f.buf, n)
	if len(f.buf) >= f.Batch {
		f.flush(ctx, emit)
	}
}

func (f *ownStatesFn) FinishBundle(ctx context.Context, emit func(int64, outbox)) {
	f.flush(ctx, emit)
}

func (f *ownStatesFn) flush(ctx context.Context, emit func(int64, outbox)) {
	if len(f.buf) == 0 {
		return
	}
	batchDist.Update(ctx, int64(len(f.buf)))
	words := make([][]int32, len(f.buf))
	hops := make([][]float32, len(f.buf))
	docs := make([]int32, len(f.buf))
	for i, n := range f.buf {
		words[i], hops[i] = n.Words, n.Hop
		docs[i] = int32(i)
	}
	in := f.m.DocInputs(words)
	setHop(f.m, in, hops)
	c := f.m.NewCache(len(f.buf))
	f.m.Refresh(c, in, docs, f.Batch)
	for i, n := range f.buf {
		sendStates(&n, stateOf(c, i, f.Send), emit)
	}
	f.buf = f.buf[:0]
}

// stateOf returns document i's states in c after its first layers layers,
// (layers, Width) row-major.
func stateOf(c *model.Cache, i, layers int) []float32 {
	st := make([]float32, 0, layers*c.Width)
	for l := range layers {
		st = append(st, c.Row(l, i)...)
	}
	return st
}

// sendLayers is how many layers of a document's states the stage after
// stage k (0: own text) reads, of a model whose states have layers
// layers, when stages nested stages run: the last stage's go to the
// embedding, which reads them all; the others' go to a nested stage,
// whose pass ends a layer early (Model.NestedStates stops after layer
// L−1) and so reads its neighbours' states after layers 1..L−2 only.
func sendLayers(k, stages, layers int) int {
	if k < stages {
		return layers - 1
	}
	return layers
}

// batchInputs lays a batch of centres out for one model call: centres are
// documents 0..B-1, each neighbour slot a document after them with no
// words (its states are read from the cache, never encoded). It returns
// the inputs, the cache holding the neighbours' states, and each centre's
// neighbour slots.
func batchInputs(m *model.Model, cs []centre) (*model.Inputs, *model.Cache, func(int32) []int32) {
	slots := 0
	for _, c := range cs {
		slots += len(c.Node.Nbrs)
	}
	words := make([][]int32, len(cs), len(cs)+slots)
	hops := make([][]float32, len(cs))
	lists := make([][]int32, len(cs))
	for i, c := range cs {
		words[i], hops[i] = c.Node.Words, c.Node.Hop
	}
	cache := m.NewCache(len(cs) + slots)
	next := len(cs)
	for i, c := range cs {
		// Each neighbour's states after the first layers that the pass
		// reads (sendLayers); the cache's rows of the others stay zero,
		// never read.
		w := 0
		if len(c.Node.Nbrs) > 0 {
			w = len(c.States) / len(c.Node.Nbrs)
		}
		for j := range c.Node.Nbrs {
			st := c.States[j*w : (j+1)*w]
			for l := range w / cache.Width {
				copy(cache.Row(l, next), st[l*cache.Width:(l+1)*cache.Width])
			}
			lists[i] = append(lists[i], int32(next))
			words = append(words, nil)
			next++
		}
	}
	in := m.DocInputs(words)
	setHop(m, in, hops)
	return in, cache, func(d int32) []int32 { return lists[d] }
}

// nestedFn runs one stage of neighbour states (model.NestedStates): each
// centre encoded over its neighbours' states of the stage before, its
// states sent on to the centres of the next stage that read them.
type nestedFn struct {
	Model   string
	Batch   int
	MaxNbrs int
	Send    int // layers of its states a centre sends on (sendLayers)

	m   *model.Model
	buf []centre
}

func (f *nestedFn) Setup(ctx context.Context) (err error) {
	f.m, err = loadModel(ctx, f.Model)
	return err
}

func (f *nestedFn) ProcessElement(ctx context.Context, c centre, emit func(int64, outbox)) {
	f.buf = append(f.buf, c)
	if len(f.buf) >= f.Batch {
		f.flush(ctx, emit)
	}
}

func (f *nestedFn) FinishBundle(ctx context.Context, emit func(int64, outbox)) {
	f.flush(ctx, emit)
}

func (f *nestedFn) flush(ctx context.Context, emit func(int64, outbox)) {
	if len(f.buf) == 0 {
		return
	}
	batchDist.Update(ctx, int64(len(f.buf)))
	in, src, nbrs := batchInputs(f.m, f.buf)
	docs := make([]int32, len(f.buf))
	for i := range docs {
		docs[i] = int32(i)
	}
	dst := f.m.NewCache(len(f.buf))
	f.m.NestedStates(src, in, docs, nbrs, f.MaxNbrs, f.Batch, dst)
	for i, c := range f.buf {
		sendStates(&c.Node, stateOf(dst, i, f.Send), emit)
	}
	f.buf = f.buf[:0]
}

// embedFn embeds new documents (model.EmbedCached) over their neighbours'
// final states, with their top topics and topic path.
type embedFn struct {
	Model   string
	Batch   int
	MaxNbrs int
	TopK    int

	m   *model.Model
	buf []centre
}

func (f *embedFn) Setup(ctx context.Context) (err error) {
	f.m, err = loadModel(ctx, f.Model)
	return err
}

func (f *embedFn) ProcessElement(ctx context.Context, c centre, emit func(result)) {
	f.buf = append(f.buf, c)
	if len(f.buf) >= f.Batch {
		f.flush(ctx, emit)
	}
}

func (f *embedFn) FinishBundle(ctx context.Context, emit func(result)) {
	f.flush(ctx, emit)
}

func (f *embedFn) flush(ctx context.Context, emit func(result)) {
	if len(f.buf) == 0 {
		return
	}
	batchDist.Update(ctx, int64(len(f.buf)))
	in, cache, nbrs := batchInputs(f.m, f.buf)
	if corpusstates.StateLayers(f.m) == 0 {
		cache = nil // the model reads no neighbours
	}
	docs := make([]int32, len(f.buf))
	for i := range docs {
		docs[i] = int32(i)
	}
	e := f.m.EmbedCached(in, docs, nbrs, f.MaxNbrs, f.Batch, cache)
	n1, T := e.Width+1, e.Topics
	for i, c := range f.buf {
		theta := e.Theta[i*T : (i+1)*T]
		r := result{ID: c.Node.ID, Source: c.Node.Source, Point: e.Points[i*n1 : (i+1)*n1], Unknown: c.Node.Unknown}
		for _, tw := range f.m.TopTopics(theta, f.TopK) {
			r.TopIDs = append(r.TopIDs, int32(tw.Topic))
			r.TopWeights = append(r.TopWeights, tw.Weight)
		}
		for _, t := range f.m.TopicPath(theta) {
			r.Path = append(r.Path, int32(t))
		}
		emit(r)
	}
	docsCounter.Inc(ctx, int64(len(f.buf)))
	f.buf = f.buf[:0]
}
