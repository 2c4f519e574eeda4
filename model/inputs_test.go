package model

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

// TestTruncateTfIdf: a document longer than MaxLen keeps the MaxLen
// positions whose words weigh most by tf-idf, ties to the earlier
// position, in reading order: NewInputs gives what a stable sort of the
// positions by weight gives, on documents of repeated words (many ties),
// shorter and longer than the limit.
func TestTruncateTfIdf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := &corpus.Graph{DocPtr: []int64{0}}
	for d := range 60 {
		n := 1 + rng.IntN(40)
		vocab := 2 + d%9
		for range n {
			g.Tokens = append(g.Tokens, int32(rng.IntN(vocab)))
		}
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	idf := make([]float32, 12)
	for w := range idf {
		idf[w] = 1 + float32(w%3) // equal weights for different words too
	}
	const maxLen = 7
	in := NewInputs(g, idf, maxLen, "tfidf")
	for d := range g.NumDocs() {
		doc := g.Doc(d)
		want := slices.Clone(doc)
		if len(doc) > maxLen {
			words := in.BowWord[in.BowPtr[d]:in.BowPtr[d+1]]
			weights := in.TfIdf[in.BowPtr[d]:in.BowPtr[d+1]]
			weight := func(w int32) float32 {
				k, _ := slices.BinarySearch(words, w)
				return weights[k]
			}
			keep := make([]int, len(doc))
			for p := range keep {
				keep[p] = p
			}
			sort.SliceStable(keep, func(a, b int) bool { return weight(doc[keep[a]]) > weight(doc[keep[b]]) })
			keep = keep[:maxLen]
			sort.Ints(keep)
			want = want[:0]
			for _, p := range keep {
				want = append(want, doc[p])
			}
		}
		if got := in.Tokens(d); !slices.Equal(got, want) {
			t.Fatalf("document %d %v: kept %v, want %v", d, doc, got, want)
		}
	}
}
