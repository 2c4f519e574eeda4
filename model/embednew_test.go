package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

// TestEmbedNewLocalFeatures: EmbedNewIn, which propagates the hop features
// of only the documents the embedding reads (from the corpus's own
// features), gives exactly the numbers of embedding through features
// propagated over the whole extended graph (the former EmbedNew), for one
// and two hops and one and three feature hops. The corpus is hubGraph (12
// documents, a ring with chords, a hub with more neighbours than the cap,
// an isolated document 11); the new documents are 12, 13, ….
func TestEmbedNewLocalFeatures(t *testing.T) {
	g := hubGraph()
	const maxNbrs = 3
	words := func(d int) []int32 { return slices.Clone(g.Doc(d)) }
	for _, tc := range []struct {
		name  string
		toks  [][]int32
		links [][2]int32
	}{
		{"a new document links to a corpus document", [][]int32{words(3)}, [][2]int32{{12, 5}}},
		{"a new document links to another new one", [][]int32{words(1), words(7)}, [][2]int32{{12, 4}, {13, 12}}},
		{"a new document without links", [][]int32{words(2)}, nil},
		{"a new document links to the hub and the isolated one", [][]int32{words(6)}, [][2]int32{{12, 0}, {12, 11}}},
		{"mixed: linked, chained, unlinked, words unknown", [][]int32{words(8), words(9), nil, words(4)}, [][2]int32{{12, 3}, {13, 12}, {15, 13}, {15, 7}}},
		{"a link between two corpus documents (full propagation)", [][]int32{words(5)}, [][2]int32{{12, 2}, {4, 9}}},
	} {
		for _, hops := range []int{1, 2} {
			for _, fh := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/hops=%d/features=%d", tc.name, hops, fh), func(t *testing.T) {
					cfg := tinyConfig(g)
					cfg.Hops, cfg.FeatureHops, cfg.FeatureSkip = hops, fh, true
					m := perturbed(t, cfg, 11)
					if err := m.Prepare(g, allDocs(g.NumDocs()), 1); err != nil {
						t.Fatal(err)
					}
					nd := &corpus.NewDocs{Tokens: tc.toks, Links: tc.links}
					for i := range tc.toks {
						nd.IDs = append(nd.IDs, fmt.Sprintf("n%d", i))
					}
					got := m.EmbedNewIn(m.NewKnownCorpus(g), nd, maxNbrs, 2)

					e := g.Extend(nd)
					docs := allDocs(e.NumDocs())[g.NumDocs():]
					want := m.Embed(m.Inputs(e, nbrsOf(e)), docs, nbrsOf(e), maxNbrs, 2)
					if !slices.Equal(got.Points, want.Points) || !slices.Equal(got.Theta, want.Theta) || !slices.Equal(got.Pred, want.Pred) {
						t.Errorf("points %v\nwant %v\ntheta %v\nwant %v", got.Points, want.Points, got.Theta, want.Theta)
					}
				})
			}
		}
	}
}

// TestEmbedReads: the documents an embedding encodes, by configuration.
func TestEmbedReads(t *testing.T) {
	g := tinyGraph(8, 20, 3, 9, false, 5)
	g.SetLinks([][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {5, 6}})
	for _, tc := range []struct {
		name    string
		hops    int
		noGraph bool
		want    []int32
	}{
		{"two hops", 2, false, []int32{0, 1, 2, 3}},
		{"one hop", 1, false, []int32{0, 1, 2}},
		{"no graph", 2, true, []int32{1, 7}},
	} {
		cfg := tinyConfig(g)
		cfg.Hops, cfg.NoGraph = tc.hops, tc.noGraph
		m := perturbed(t, cfg, 1)
		docs := []int32{1}
		if tc.noGraph {
			docs = []int32{7, 1}
		}
		if got := m.EmbedReads(docs, nbrsOf(g), 3); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
