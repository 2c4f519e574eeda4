package baseline_test

import (
	"fmt"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
)

func ExampleRun() {
	// Ten documents over four words in two themes (words 0,1 and 2,3),
	// labelled by theme, with links inside each theme.
	g := &corpus.Graph{Vocab: []string{"graph", "node", "topic", "word"}, DocPtr: []int64{0}}
	for i := range 10 {
		theme := int32(i % 2)
		g.Tokens = append(g.Tokens, 2*theme, 2*theme+1, 2*theme)
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
		g.Labels = append(g.Labels, theme)
	}
	g.SetLinks([][2]int32{{0, 2}, {2, 4}, {1, 3}, {3, 5}, {4, 8}, {5, 9}, {8, 6}})
	s := corpus.PaperSplit(g) // documents 0..7 train, 8 and 9 test
	r, err := baseline.Run(g, s, baseline.TFIDFGraphMethod)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: Micro-F1 %.0f, Macro-F1 %.0f, %d×%d vectors\n",
		r.Method, r.Metrics.MicroF1, r.Metrics.MacroF1, r.Vectors.NumRows(), r.Vectors.Dim)
	// Output: tfidf-graph: Micro-F1 100, Macro-F1 100, 10×4 vectors
}
