package lda_test

import (
	"fmt"
	"strings"

	"github.com/gtformer/gtformer/lda"
)

func ExampleFit() {
	// Six documents over six words in two themes: graphs (words 0-2) and
	// cooking (words 3-5).
	words := []string{"graph", "node", "edge", "oven", "flour", "bake"}
	docs := lda.BagList{
		Words:  [][]int32{{0, 1, 2}, {0, 1}, {1, 2}, {3, 4, 5}, {3, 5}, {4, 5}},
		Counts: [][]float32{{3, 2, 2}, {2, 3}, {1, 4}, {2, 3, 2}, {3, 3}, {2, 4}},
	}
	m, err := lda.Fit(docs, len(words), 2, lda.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	beta := m.Beta() // (T,V)
	for t := range m.Topics {
		var top []string
		for w, p := range beta[t*m.Vocab : (t+1)*m.Vocab] {
			if p > 0.1 {
				top = append(top, words[w])
			}
		}
		fmt.Printf("topic %d: %s\n", t, strings.Join(top, " "))
	}
	// A new document about graphs.
	theta, err := m.Transform(lda.BagList{Words: [][]int32{{0, 2}}, Counts: [][]float32{{2, 1}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("θ = (%.2f, %.2f)\n", theta[0], theta[1])
	// Output:
	// topic 0: oven flour bake
	// topic 1: graph node edge
	// θ = (0.13, 0.87)
}
