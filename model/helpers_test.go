package model

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

// tinyGraph builds a small linked corpus: docs documents over a vocabulary
// of vocab words, lengths between minLen and maxLen tokens (some repeated
// words, so bag counts exceed 1), a ring of links plus a few chords, one
// isolated document (the last) when isolated is true, and labels 0..2.
func tinyGraph(docs, vocab, minLen, maxLen int, isolated bool, seed uint64) *corpus.Graph {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := &corpus.Graph{Name: "tiny", DocPtr: []int64{0}}
	for w := 0; w < vocab; w++ {
		g.Vocab = append(g.Vocab, string(rune('a'+w%26))+string(rune('a'+w/26)))
	}
	for d := 0; d < docs; d++ {
		n := minLen + rng.IntN(maxLen-minLen+1)
		// Documents draw mostly from a third of the vocabulary, so that
		// the topic loss has structure to find.
		base := (d % 3) * vocab / 3
		for j := 0; j < n; j++ {
			w := base + rng.IntN(vocab/3)
			if rng.IntN(4) == 0 {
				w = rng.IntN(vocab)
			}
			g.Tokens = append(g.Tokens, int32(w))
		}
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
		g.Labels = append(g.Labels, int32(d%3))
	}
	g.LabelNames = []string{"x", "y", "z"}
	ring := docs
	if isolated {
		ring = docs - 1
	}
	var links [][2]int32
	for d := 0; d < ring; d++ {
		links = append(links, [2]int32{int32(d), int32((d + 1) % ring)})
		if d%2 == 0 {
			links = append(links, [2]int32{int32(d), int32((d + 3) % ring)})
		}
	}
	g.SetLinks(links)
	return g
}

// hubGraph is tinyGraph(12, 20, 3, 9, isolated, seed 4) with document 0
// linked to documents 2..10 as well, so that it has more neighbours than the
// tests' cap of 3 and the evenly spaced pick is used.
func hubGraph() *corpus.Graph {
	g := tinyGraph(12, 20, 3, 9, true, 4)
	links := slices.Clone(g.Links)
	for d := int32(2); d < 11; d++ {
		links = append(links, [2]int32{0, d})
	}
	g.SetLinks(links)
	return g
}

// tinyConfig is the gradient-check configuration: width 8, 2 heads, a
// 3-level binary tree, supervised, no dropout.
func tinyConfig(g *corpus.Graph) Config {
	cfg := Default()
	cfg.Width = 8
	cfg.Layers = 3
	cfg.Heads = 2
	cfg.MLPHidden = 12
	cfg.MaxLen = 6
	cfg.Dropout = 0
	cfg.Tree.InitDepth = 3
	cfg.Tree.Branching = 2
	cfg.Tree.MaxDepth = 3
	cfg.Tree.MaxChildren = 3
	cfg.Neighbors = 2
	cfg.Supervised = true
	cfg.SupHidden = 6
	cfg.NumLabels = g.NumLabels()
	cfg.Vocab = len(g.Vocab)
	// Without hop features (they need a fitted basis and propagated
	// inputs); the feature tests set them on explicitly.
	cfg.FeatureHops, cfg.FeatureSkip = 0, false
	// Without the decoder's background (it needs the corpus's frequencies,
	// which New does not have); the gradient checks and the background
	// tests set it on explicitly.
	cfg.Tree.Background, cfg.Tree.BackgroundLevels = false, nil
	return cfg
}

// allDocs returns 0..n-1.
func allDocs(n int) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(i)
	}
	return d
}

// preparedInputs prepares m for g (idf and hop features' basis over every
// document, as the trainer does over the training documents) and returns
// the inputs with features propagated over g's links.
func preparedInputs(t testing.TB, m *Model, g *corpus.Graph) *Inputs {
	t.Helper()
	if err := m.Prepare(g, allDocs(g.NumDocs()), 1); err != nil {
		t.Fatal(err)
	}
	return m.Inputs(g, nbrsOf(g))
}

// linkBatch builds a training batch from links: the centres are the links'
// ends (distinct, in order of first appearance), each link is an anchor with
// its positive, the admissible candidates of an anchor are all centres but
// itself and its other graph neighbours, neighbours are k samples per centre
// from the graph's adjacency (self-loop for isolated documents), and labels
// come from the graph, with the last centre's label withheld (−1).
func linkBatch(t testing.TB, g *corpus.Graph, links [][2]int32, k int, seed uint64) *Batch {
	t.Helper()
	b := &Batch{}
	index := map[int32]int32{}
	add := func(d int32) int32 {
		if i, ok := index[d]; ok {
			return i
		}
		index[d] = int32(len(b.Centres))
		b.Centres = append(b.Centres, d)
		return index[d]
	}
	for _, l := range links {
		a, p := add(l[0]), add(l[1])
		b.Anchors = append(b.Anchors, a)
		b.Positives = append(b.Positives, p)
	}
	B := len(b.Centres)
	b.Admissible = make([]bool, len(b.Anchors)*B)
	for i, a := range b.Anchors {
		nbrs := g.Neighbors(int(b.Centres[a]))
		for c := 0; c < B; c++ {
			ok := int32(c) != a && !slices.Contains(nbrs, b.Centres[c])
			b.Admissible[i*B+c] = ok || int32(c) == b.Positives[i]
		}
	}
	table := corpus.NewCSRSampler(g.AdjPtr, g.AdjIdx, k, seed).Resample(0)
	b.Nbrs = Neighbors{K: k, Docs: make([]int32, B*k)}
	for i, d := range b.Centres {
		copy(b.Nbrs.Docs[i*k:(i+1)*k], table[int(d)*k:int(d+1)*k])
	}
	for _, d := range b.Centres {
		b.Labels = append(b.Labels, g.Labels[d])
	}
	b.Labels[B-1] = -1
	return b
}

// nbrsOf adapts the graph's adjacency to Embed's neighbour callback.
func nbrsOf(g *corpus.Graph) func(d int32) []int32 {
	return func(d int32) []int32 { return g.Neighbors(int(d)) }
}
