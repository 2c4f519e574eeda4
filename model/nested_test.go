package model

import (
	"slices"
	"testing"
)

func TestCapList(t *testing.T) {
	for _, tc := range []struct {
		n, max int
		want   []int
	}{
		{0, 3, []int{}},
		{2, 3, []int{0, 1}},
		{3, 3, []int{0, 1, 2}},
		{4, 3, []int{0, 1, 2}},
		{9, 3, []int{0, 3, 6}},
		{10, 4, []int{0, 2, 5, 7}},
		{5, 1, []int{0}},
	} {
		l := make([]int, tc.n)
		for i := range l {
			l[i] = i
		}
		if got := CapList(l, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("CapList(%d entries, %d) = %v, want %v", tc.n, tc.max, got, tc.want)
		}
	}
}

// TestNestedStatesIsRefreshNeighborsStep: RefreshNeighbors with two hops
// equals Refresh of the neighbours followed by NestedStates, value for
// value, read back through Cache.Row; with one hop NestedStates is not
// part of it, and the cache holds the documents' own states.
func TestNestedStatesIsRefreshNeighborsStep(t *testing.T) {
	g := hubGraph()
	const maxNbrs = 3
	for _, hops := range []int{1, 2} {
		cfg := tinyConfig(g)
		cfg.Hops = hops
		cfg.FeatureHops = 0 // the neighbour states' mechanics, without the features' own reach
		m := perturbed(t, cfg, 5)
		in := preparedInputs(t, m, g)
		docs := []int32{0, 4, 7, 11}
		want := m.NewCache(g.NumDocs())
		m.RefreshNeighbors(want, in, docs, nbrsOf(g), maxNbrs, 2)

		got := m.NewCache(g.NumDocs())
		if hops == 1 {
			m.Refresh(got, in, docs, 2)
		} else {
			own := m.NewCache(g.NumDocs())
			m.Refresh(own, in, neighborsOf(docs, capNeighbors(nbrsOf(g), maxNbrs)), 2)
			m.NestedStates(own, in, docs, nbrsOf(g), maxNbrs, 2, got)
		}
		for l := 0; l < got.Layers; l++ {
			for _, d := range docs {
				if !slices.Equal(got.Row(l, int(d)), want.Row(l, int(d))) {
					t.Errorf("hops %d, layer %d, document %d: %v, want %v", hops, l, d, got.Row(l, int(d)), want.Row(l, int(d)))
				}
			}
		}
	}
}

// TestNestedStatesReachesFurther: on a path 0-1-2-3-4 and a four-layer
// model, each NestedStates call over the previous one's output lets
// document 0 read one hop further (the own-text states alone reach one
// hop), up to the three hops that four layers can see at all: a state
// after layer l depends on the neighbours' states after layer l-1 only, so
// the states stop changing after L-2 calls.
func TestNestedStatesReachesFurther(t *testing.T) {
	g := tinyGraph(6, 20, 3, 9, false, 5)
	g.SetLinks([][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}})
	cfg := tinyConfig(g)
	cfg.Layers = 4
	cfg.Supervised = false
	cfg.FeatureHops = 0 // hop features reach further through a document's own input: this counts the states' reach
	m := perturbed(t, cfg, 3)
	idf := IDF(g, allDocs(g.NumDocs()))
	all := allDocs(g.NumDocs())
	// embed0 embeds document 0 after calls NestedStates rounds, with
	// document edit's words shifted (none when edit < 0).
	embed0 := func(edit, calls int) []float32 {
		h := *g
		h.Tokens = slices.Clone(g.Tokens)
		if edit >= 0 {
			for i := g.DocPtr[edit]; i < g.DocPtr[edit+1]; i++ {
				h.Tokens[i] = (h.Tokens[i] + 7) % int32(len(g.Vocab))
			}
		}
		in := NewInputs(&h, idf, cfg.MaxLen, cfg.Truncate)
		c := m.NewCache(h.NumDocs())
		m.Refresh(c, in, all, 4)
		for range calls {
			next := m.NewCache(h.NumDocs())
			m.NestedStates(c, in, all, nbrsOf(&h), 8, 4, next)
			c = next
		}
		return m.EmbedCached(in, []int32{0}, nbrsOf(&h), 8, 4, c).Points
	}
	for _, tc := range []struct {
		calls, edit int
		want        bool
	}{
		{0, 1, true}, {0, 2, false},
		{1, 2, true}, {1, 3, false},
		{2, 3, true}, {2, 4, false},
		{3, 3, true}, {3, 4, false},
	} {
		if got := !slices.Equal(embed0(-1, tc.calls), embed0(tc.edit, tc.calls)); got != tc.want {
			t.Errorf("%d NestedStates calls: document 0 depends on document %d = %v, want %v", tc.calls, tc.edit, got, tc.want)
		}
	}
}

// TestDocInputsMatchCorpusInputs: the inputs of documents handed over as
// word lists equal the corpus's inputs of the same documents.
func TestDocInputsMatchCorpusInputs(t *testing.T) {
	g := tinyGraph(7, 20, 3, 12, true, 9)
	cfg := tinyConfig(g)
	m := perturbed(t, cfg, 1)
	m.IDF = IDF(g, allDocs(g.NumDocs()))
	want := NewInputs(g, m.IDF, cfg.MaxLen, cfg.Truncate)
	pick := []int32{5, 0, 3}
	var words [][]int32
	for _, d := range pick {
		words = append(words, g.Doc(int(d)))
	}
	got := m.DocInputs(words)
	for i, d := range pick {
		lo, hi := want.BowPtr[d], want.BowPtr[d+1]
		glo, ghi := got.BowPtr[i], got.BowPtr[i+1]
		if !slices.Equal(got.Tokens(i), want.Tokens(int(d))) || got.Len[i] != want.Len[d] ||
			!slices.Equal(got.BowWord[glo:ghi], want.BowWord[lo:hi]) || !slices.Equal(got.TfIdf[glo:ghi], want.TfIdf[lo:hi]) {
			t.Errorf("document %d: inputs differ from the corpus's", d)
		}
	}
}
