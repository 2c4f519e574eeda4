package corpus

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestBoWMatchesSerial checks the bag of words, computed on every core,
// against a serial per-document count: empty documents, repeats, and
// enough documents for the parallel passes.
func TestBoWMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rng := rand.New(rand.NewPCG(1, 2))
	g := &Graph{DocPtr: []int64{0}}
	for range 3000 {
		for range rng.IntN(80) {
			g.Tokens = append(g.Tokens, int32(rng.IntN(50)))
		}
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	b := g.BoW()
	if len(b.Ptr) != g.NumDocs()+1 || b.Ptr[0] != 0 {
		t.Fatalf("Ptr of %d entries from %d, want %d from 0", len(b.Ptr), b.Ptr[0], g.NumDocs()+1)
	}
	for i := range g.NumDocs() {
		s := slices.Clone(g.Doc(i))
		slices.Sort(s)
		var words []int32
		var counts []float32
		for _, w := range s {
			if len(words) > 0 && words[len(words)-1] == w {
				counts[len(counts)-1]++
				continue
			}
			words, counts = append(words, w), append(counts, 1)
		}
		gw, gc := b.Row(i)
		if !slices.Equal(gw, words) || !slices.Equal(gc, counts) {
			t.Fatalf("document %d: words %v counts %v, want %v %v", i, gw, gc, words, counts)
		}
	}
}
