package corpus

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSetLinksNormalises(t *testing.T) {
	g := &Graph{Vocab: []string{"w"}, DocPtr: make([]int64, 6)}
	g.SetLinks([][2]int32{{3, 1}, {1, 3}, {2, 2}, {0, 4}, {4, 0}, {1, 0}, {3, 4}})
	if want := [][2]int32{{0, 1}, {0, 4}, {1, 3}, {3, 4}}; !slices.Equal(g.Links, want) {
		t.Fatalf("links %v, want %v", g.Links, want)
	}
	for i, want := range [][]int32{{1, 4}, {0, 3}, nil, {1, 4}, {0, 3}} {
		if got := g.Neighbors(i); !slices.Equal(got, want) {
			t.Errorf("neighbours of %d = %v, want %v", i, got, want)
		}
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateCatchesBrokenGraphs(t *testing.T) {
	good := func() *Graph {
		g := &Graph{Vocab: []string{"a", "b"}, Tokens: []int32{0, 1, 1}, DocPtr: []int64{0, 2, 3},
			Labels: []int32{0, 1}, LabelNames: []string{"x", "y"}}
		g.SetLinks([][2]int32{{0, 1}})
		return g
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(g *Graph){
		"word id":      func(g *Graph) { g.Tokens[1] = 2 },
		"doc ptr":      func(g *Graph) { g.DocPtr[2] = 4 },
		"links order":  func(g *Graph) { g.Links[0] = [2]int32{1, 0} },
		"adjacency":    func(g *Graph) { g.AdjIdx[0] = 0 },
		"label name":   func(g *Graph) { g.Labels[1] = 2 },
		"label count":  func(g *Graph) { g.Labels = g.Labels[:1] },
		"word vectors": func(g *Graph) { g.WordVectors, g.WordDim = make([]float32, 3), 2 },
		"empty":        func(g *Graph) { g.DocPtr, g.Tokens = []int64{0}, nil },
	} {
		g := good()
		breakIt(g)
		if g.Validate() == nil {
			t.Errorf("%s: broken graph passed Validate", name)
		}
	}
}

func TestBoW(t *testing.T) {
	g := &Graph{Vocab: make([]string, 5), Tokens: []int32{3, 1, 3, 3, 0, 4, 4}, DocPtr: []int64{0, 4, 4, 7}}
	b := g.BoW()
	for i, want := range []struct {
		w []int32
		c []float32
	}{{[]int32{1, 3}, []float32{1, 3}}, {nil, nil}, {[]int32{0, 4}, []float32{1, 2}}} {
		w, c := b.Row(i)
		if !slices.Equal(w, want.w) || !slices.Equal(c, want.c) {
			t.Errorf("row %d = %v %v, want %v %v", i, w, c, want.w, want.c)
		}
	}
}

func TestSummarize(t *testing.T) {
	// numpy.percentile(range(1, 11), [10, 25, 50, 75, 90, 99]) with its
	// default linear interpolation.
	d := Summarize([]int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	got := []float64{d.P10, d.P25, d.Median, d.P75, d.P90, d.P99, d.Mean}
	want := []float64{1.9, 3.25, 5.5, 7.75, 9.1, 9.91, 5.5}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("statistic %d = %v, want %v", k, got[k], want[k])
		}
	}
	if d.Min != 1 || d.Max != 10 {
		t.Errorf("min %d max %d", d.Min, d.Max)
	}
	if one := Summarize([]int{4}); one.Median != 4 || one.P99 != 4 {
		t.Errorf("single value: %+v", one)
	}
	if (Summarize(nil) != Distribution{}) {
		t.Error("empty input: non-zero distribution")
	}
}

func TestHarder(t *testing.T) {
	g := randomGraph(300, 40, 20, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	var links [][2]int32
	for range 2000 {
		links = append(links, [2]int32{int32(rng.IntN(300)), int32(rng.IntN(300))})
	}
	g.SetLinks(links)
	before := len(g.Links)
	tokens := len(g.Tokens)
	h := g.Harder(0.5, 7, 3)
	if len(g.Links) != before || len(g.Tokens) != tokens {
		t.Fatal("Harder changed the original graph")
	}
	if frac := float64(len(h.Links)) / float64(before); frac < 0.45 || frac > 0.55 {
		t.Errorf("kept %.3f of the links, want about half", frac)
	}
	set := map[[2]int32]bool{}
	for _, l := range g.Links {
		set[l] = true
	}
	for _, l := range h.Links {
		if !set[l] {
			t.Fatalf("link %v is not one of the original's", l)
		}
	}
	for i := range g.NumDocs() {
		want := g.Doc(i)[:min(7, len(g.Doc(i)))]
		if !slices.Equal(h.Doc(i), want) {
			t.Fatalf("document %d: %v, want its first 7 words %v", i, h.Doc(i), want)
		}
	}
	again := g.Harder(0.5, 7, 3)
	if !slices.Equal(again.Links, h.Links) {
		t.Error("same seed, different links")
	}
}
