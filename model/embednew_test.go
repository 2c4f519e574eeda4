package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/tensor"
)

// TestEmbedNewLocalFeatures: EmbedNewIn, which derives the inputs, hop
// features (from the corpus's own), caches and neighbour lists of only the
// documents the embedding reads, gives exactly the numbers of embedding
// over the whole extended graph (the former EmbedNew), for one and two
// hops, none, one and three feature hops, one to three layers, and without
// the graph token. The corpus is hubGraph (12 documents, a ring with
// chords, a hub with more neighbours than the cap, an isolated document
// 11); the new documents are 12, 13, ….
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
		{"no new documents", nil, nil},
	} {
		for _, v := range []struct {
			hops, fh, layers int
			noGraph          bool
		}{{1, 1, 3, false}, {1, 3, 3, false}, {2, 1, 3, false}, {2, 3, 3, false}, {2, 0, 3, false}, {2, 3, 2, false}, {2, 3, 1, false}, {2, 3, 3, true}} {
			t.Run(fmt.Sprintf("%s/hops=%d/features=%d/layers=%d/nograph=%v", tc.name, v.hops, v.fh, v.layers, v.noGraph), func(t *testing.T) {
				cfg := tinyConfig(g)
				cfg.Hops, cfg.FeatureHops, cfg.FeatureSkip = v.hops, v.fh, v.fh > 0
				cfg.Layers, cfg.NoGraph = v.layers, v.noGraph
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

// TestEmbedNewEqualsReembedding: EmbedNewIn of the default model (width
// 128, three layers, two hops, hop features over three hops with the
// skip) against a prepared corpus gives what a straightforward reference
// gives: the graph extended by the new documents, every document's inputs
// and hop features derived from the extended graph, and Model.Embed of the
// new documents over it. The corpus (synthetic, 300 documents, mean degree
// 6) has documents with more neighbours than the cap; the new documents
// link to corpus documents, to each other, to themselves, twice to the
// same document, or nowhere.
//
// Bit for bit on the pure-Go BLAS paths, whose products give a row the
// same bits whatever the other rows: encoding each batch one document at
// a time (parts of at most one row, batchParts) changes nothing. A BLAS
// library rounds a product differently with its number of rows (OpenBLAS
// 0.3.21 does below a few hundred; the numbers of embed --new there
// always changed with the batch size), so there the embeddings agree to
// float32 rounding (measured: ≤ 5e-7). Both sides embed in batches of the
// same size: a batch's neighbour slots are padded to its longest list, and
// the graph attention's softmax sums its row in an order that depends on
// that length (vec.ExpShiftSum's lanes).
func TestEmbedNewEqualsReembedding(t *testing.T) {
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.MeanLength, sc.Links, sc.Seed = 300, 800, 66, 900, 3
	g, _, err := synth.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Default()
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	m, err := New(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(g, allDocs(g.NumDocs()), 5); err != nil {
		t.Fatal(err)
	}
	nd := reembedNewDocs(g, 40)
	e := g.Extend(nd)
	docs := allDocs(e.NumDocs())[g.NumDocs():]

	active := tensor.BLASName()
	defer func() {
		if err := tensor.UseBLAS(active); err != nil {
			t.Fatal(err)
		}
	}()
	for _, path := range tensor.BLASPaths() {
		if err := tensor.UseBLAS(path); err != nil {
			t.Fatal(err)
		}
		tol := 0.0 // bit for bit
		if !strings.HasPrefix(path, "go-") && path != "gonum" {
			tol = 2e-6
		}
		for _, tc := range []struct{ maxNbrs, rows int }{{4, encodeRows}, {64, encodeRows}, {64, 1}} {
			want := m.Embed(m.Inputs(e, nbrsOf(e)), docs, nbrsOf(e), tc.maxNbrs, 16)
			def := encodeRows
			encodeRows = tc.rows
			got := m.EmbedNewIn(m.NewKnownCorpus(g), nd, tc.maxNbrs, 16)
			encodeRows = def
			for what, pair := range map[string][2][]float32{
				"points": {got.Points, want.Points}, "tangent": {got.Tangent, want.Tangent}, "theta": {got.Theta, want.Theta},
			} {
				differ, worst := 0, 0.0
				for i, v := range pair[0] {
					if math.Float32bits(v) != math.Float32bits(pair[1][i]) {
						differ++
						worst = max(worst, math.Abs(float64(v-pair[1][i])))
					}
				}
				if (tol == 0 && differ > 0) || !(worst <= tol) {
					t.Errorf("%s, cap %d, parts of %d rows: %d of %d %s values differ from the reference's, by up to %.3g", path, tc.maxNbrs, tc.rows, differ, len(pair[0]), what, worst)
				} else if differ > 0 {
					t.Logf("%s, cap %d, parts of %d rows: %s within %.3g", path, tc.maxNbrs, tc.rows, what, worst)
				}
			}
		}
	}
}

// reembedNewDocs returns n new documents against g: the i-th has the
// words of corpus document 7i mod N and links to that document's
// neighbours (as a document like it would be); every fourth also links to
// the new document before it, every fifth to itself and twice to its
// first link, and the last has no links.
func reembedNewDocs(g *corpus.Graph, n int) *corpus.NewDocs {
	nd := &corpus.NewDocs{}
	N := int32(g.NumDocs())
	for i := range int32(n) {
		src := i * 7 % N
		nd.IDs = append(nd.IDs, fmt.Sprintf("new%d", i))
		nd.Tokens = append(nd.Tokens, slices.Clone(g.Doc(int(src))))
		if i == int32(n)-1 {
			continue
		}
		for _, c := range g.Neighbors(int(src)) {
			nd.Links = append(nd.Links, [2]int32{N + i, c})
		}
		if i%4 == 3 {
			nd.Links = append(nd.Links, [2]int32{N + i - 1, N + i})
		}
		if l := g.Neighbors(int(src)); i%5 == 0 && len(l) > 0 {
			nd.Links = append(nd.Links, [2]int32{N + i, N + i}, [2]int32{l[0], N + i})
		}
	}
	return nd
}
