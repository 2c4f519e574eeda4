package corpus

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestExtendedNeighbors: the linear-time neighbour lists of an extended
// graph are Extend's, list for list, on random graphs whose new links
// include links among new documents, repeats, self-links and isolated new
// documents; a link with no new end, or to no document, is refused.
func TestExtendedNeighbors(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		known, added := 5+rng.IntN(30), 1+rng.IntN(8)
		g := &Graph{Vocab: []string{"w"}, DocPtr: make([]int64, known+1)}
		var links [][2]int32
		for range rng.IntN(3 * known) {
			links = append(links, [2]int32{int32(rng.IntN(known)), int32(rng.IntN(known))})
		}
		g.SetLinks(links)
		nd := &NewDocs{Tokens: make([][]int32, added)}
		for range rng.IntN(4 * added) {
			a := int32(known + rng.IntN(added)) // a new end
			b := int32(rng.IntN(known + added)) // any document, itself included
			if rng.IntN(2) == 0 {
				a, b = b, a
			}
			nd.Links = append(nd.Links, [2]int32{a, b})
			if rng.IntN(4) == 0 {
				nd.Links = append(nd.Links, [2]int32{b, a}) // the same link again
			}
		}
		nbrs, ok := g.ExtendedNeighbors(nd)
		if !ok {
			t.Fatalf("seed %d: refused links that all have a new end: %v", seed, nd.Links)
		}
		e := g.Extend(nd)
		for d := 0; d < e.NumDocs(); d++ {
			if got, want := nbrs(int32(d)), e.Neighbors(d); !slices.Equal(got, want) {
				t.Fatalf("seed %d: document %d: neighbours %v, Extend's %v", seed, d, got, want)
			}
		}
	}

	g := &Graph{Vocab: []string{"w"}, DocPtr: make([]int64, 4)}
	g.SetLinks([][2]int32{{0, 1}})
	for _, tc := range []struct {
		name  string
		links [][2]int32
	}{
		{"a link between two known documents", [][2]int32{{3, 0}, {1, 2}}},
		{"a link past the extended graph", [][2]int32{{3, 5}}},
		{"a negative id", [][2]int32{{-1, 3}}},
	} {
		if _, ok := g.ExtendedNeighbors(&NewDocs{Tokens: make([][]int32, 2), Links: tc.links}); ok {
			t.Errorf("%s: accepted %v", tc.name, tc.links)
		}
	}
}
