package model

import (
	"sync"

	"github.com/gtformer/gtformer/tensor"
)

// inferenceTapes holds the no-gradient tapes of finished inference passes.
// A tape's arena keeps the buffers of its last batch (a few tens of MB for
// a part of encodeRows rows), which the next pass, of the same embedding
// or the next request's, reuses rather than allocating, clearing and
// faulting in new ones: allocation was about 8% of the CPU samples of an
// embedding of 128 new documents, three passes a request.
var inferenceTapes = sync.Pool{New: func() any {
	tp := tensor.NewTape()
	tp.NoGrad = true
	return tp
}}

// getTape returns a no-gradient tape for an inference pass; the pass hands
// it back with putTape once nothing it produced is read any more.
func getTape() *tensor.Tape { return inferenceTapes.Get().(*tensor.Tape) }

// putTape returns tp to the pool, its tensors invalidated.
func putTape(tp *tensor.Tape) {
	tp.Reset()
	inferenceTapes.Put(tp)
}

// firstLayerBufs holds the row storage of finished firstLayer stores
// (*[]float32), for the same reason: 20 MB for an embedding of 128 new
// documents into a corpus shaped like Cora ML.
var firstLayerBufs sync.Pool

// firstLayerData returns storage for n floats, from the pool when a
// buffer there is large enough. Its contents are whatever they were:
// firstLayer reads only rows it wrote.
func firstLayerData(n int64) []float32 {
	if p, ok := firstLayerBufs.Get().(*[]float32); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

// release hands the store's row storage back to the pool (nil f: none);
// f is not used after.
func (f *firstLayer) release() {
	if f == nil || f.data == nil {
		return
	}
	d := f.data
	f.data = nil
	firstLayerBufs.Put(&d)
}
