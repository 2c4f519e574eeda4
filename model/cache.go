package model

import "github.com/gtformer/gtformer/tensor"

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
	if c.Layers == 0 || m.Cfg.NoGraph {
		return
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	n := c.Width
	for lo := 0; lo < len(docs); lo += batch {
		part := docs[lo:min(lo+batch, len(docs))]
		tp.Reset()
		outs := m.ownStream(tp, in, part)
		for l, o := range outs {
			base := l * c.N * n
			for i, d := range part {
				copy(c.Data[base+int(d)*n:base+int(d+1)*n], o.Data[i*n:(i+1)*n])
			}
		}
	}
}
