package corpus_test

import (
	"math"
	"testing"
)

// TestIDF against hand counts on small's documents: d0 = {alpha, beta},
// d1 = {}, d2 = {gamma, gamma, alpha}, d3 = {beta}; a word counts once per
// document however often it occurs.
func TestIDF(t *testing.T) {
	g := small(t)
	idf := func(n, df float64) float64 { return math.Log((1+n)/(1+df)) + 1 }
	tests := []struct {
		name string
		docs []int32
		want []float64 // alpha, beta, gamma
	}{
		{"all", g.AllDocs(), []float64{idf(4, 2), idf(4, 2), idf(4, 1)}},
		{"subset", []int32{0, 2}, []float64{idf(2, 2), idf(2, 1), idf(2, 1)}},
		{"word in none", []int32{3}, []float64{idf(1, 0), idf(1, 1), idf(1, 0)}},
		{"no documents", []int32{}, []float64{1, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := g.IDF(tc.docs)
			for w := range tc.want {
				if got[w] != tc.want[w] {
					t.Errorf("word %s: idf %v, want %v", g.Vocab[w], got[w], tc.want[w])
				}
			}
		})
	}
}
