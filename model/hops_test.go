package model

import (
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/tensor"
)

// TestTwoHopsEqualsNestedReference checks Embed with Hops 2 against a
// reference built one document at a time from full nesting: each neighbour
// j of a centre is encoded as a centre over its own neighbours (cache nil,
// so those are encoded from their text in the same pass), its [CLS] after
// layers 1..L-1 go into a cache by hand, and the centre is encoded over
// that cache. Embed instead batches, pads, masks and caps the lists.
func TestTwoHopsEqualsNestedReference(t *testing.T) {
	g := hubGraph()
	const maxNbrs = 3
	cfg := tinyConfig(g)
	cfg.Hops = 2
	m := perturbed(t, cfg, 2)
	in := preparedInputs(t, m, g)
	docs := allDocs(g.NumDocs())
	e := m.Embed(in, docs, nbrsOf(g), maxNbrs, 5)

	capped := func(d int32) []int32 {
		l := g.Neighbors(int(d))
		switch {
		case len(l) == 0:
			return []int32{d}
		case len(l) > maxNbrs:
			return []int32{l[0], l[len(l)/maxNbrs], l[2*len(l)/maxNbrs]}
		}
		return l
	}
	n := cfg.Width
	tp := tensor.NewTape()
	tp.NoGrad = true
	for _, d := range docs {
		cache := m.NewCache(g.NumDocs())
		for _, j := range capped(d) {
			lj := capped(j)
			tp.Reset()
			out := m.forward(tp, in, []int32{j}, Neighbors{K: len(lj), Docs: lj}, nil)
			if len(out.CLS) != cfg.Layers-1 {
				t.Fatalf("forward recorded %d [CLS] layers, want %d", len(out.CLS), cfg.Layers-1)
			}
			for l, c := range out.CLS {
				copy(cache.Data[(l*cache.N+int(j))*n:], c.Data[:n])
			}
		}
		l := capped(d)
		tp.Reset()
		out := m.forward(tp, in, []int32{d}, Neighbors{K: len(l), Docs: l}, cache)
		near(t, "points", d, e.Points[int(d)*(n+1):int(d+1)*(n+1)], out.Points.Data)
		near(t, "theta", d, e.Theta[int(d)*e.Topics:int(d+1)*e.Topics], out.Theta.Data)
	}
}

// TestHopsReach: on a path 0-1-2-3, document 0's embedding depends on the
// text of document 2 exactly when the graph embedding reaches two hops, and
// never on document 3, three hops away. With two layers, two hops reach no
// further than one (the neighbours are read after layer 1).
func TestHopsReach(t *testing.T) {
	g := tinyGraph(6, 20, 3, 9, false, 5)
	g.SetLinks([][2]int32{{0, 1}, {1, 2}, {2, 3}, {4, 5}})
	// edited returns g with document d's words replaced.
	edited := func(d int) *corpus.Graph {
		h := *g
		h.Tokens = slices.Clone(g.Tokens)
		for i := g.DocPtr[d]; i < g.DocPtr[d+1]; i++ {
			h.Tokens[i] = (h.Tokens[i] + 7) % int32(len(g.Vocab))
		}
		return &h
	}
	for _, tc := range []struct {
		layers, hops int
		edit         int
		wantChange   bool
	}{
		{3, 1, 1, true}, {3, 1, 2, false}, {3, 1, 3, false},
		{3, 2, 1, true}, {3, 2, 2, true}, {3, 2, 3, false},
		{2, 2, 1, true}, {2, 2, 2, false},
	} {
		cfg := tinyConfig(g)
		cfg.Layers, cfg.Hops = tc.layers, tc.hops
		cfg.Supervised = false
		// Hop features carry text FeatureHops links far by design
		// (package features); this is the encoder's graph reach.
		cfg.FeatureHops, cfg.FeatureSkip = 0, false
		m := perturbed(t, cfg, 3)
		idf := IDF(g, allDocs(g.NumDocs())) // fixed, so an edit reaches document 0 only through the graph
		embed0 := func(h *corpus.Graph) []float32 {
			return m.Embed(NewInputs(h, idf, cfg.MaxLen, cfg.Truncate), []int32{0}, nbrsOf(h), 8, 4).Points
		}
		base, after := embed0(g), embed0(edited(tc.edit))
		changed := false
		for i := range base {
			if base[i] != after[i] {
				changed = true
			}
		}
		if changed != tc.wantChange {
			t.Errorf("%d layers, %d hops, document %d edited: document 0 changed = %v, want %v", tc.layers, tc.hops, tc.edit, changed, tc.wantChange)
		}
	}
}
