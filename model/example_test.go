package model_test

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// A tiny linked corpus, one training step's loss and gradient, and the
// embeddings of every document.
func Example() {
	g := &corpus.Graph{
		Vocab:  []string{"graph", "node", "edge", "topic", "word", "tree"},
		Tokens: []int32{0, 1, 2, 1, 0, 2, 3, 4, 5, 4, 3, 5, 0, 3},
		DocPtr: []int64{0, 3, 6, 9, 12, 14},
	}
	g.SetLinks([][2]int32{{0, 1}, {2, 3}, {1, 4}})

	cfg := model.Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden = 16, 2, 32
	cfg.Tree.InitDepth, cfg.Tree.Branching = 2, 2
	cfg.Vocab = len(g.Vocab)
	cfg.FeatureDim = 2 // five documents span few latent dimensions
	m, err := model.New(cfg, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The idf and the hop features' basis come from the training documents;
	// the inputs carry each document's features propagated over its links.
	all := []int32{0, 1, 2, 3, 4}
	if err := m.Prepare(g, all, 1); err != nil {
		fmt.Println(err)
		return
	}
	nbrs := func(d int32) []int32 { return g.Neighbors(int(d)) }
	in := m.Inputs(g, nbrs)

	// Links 0-1 and 2-3 as positives; each anchor's other candidates are
	// its negatives. Every centre gets k neighbour slots.
	k := cfg.Neighbors
	b := &model.Batch{
		Centres:    []int32{0, 1, 2, 3},
		Nbrs:       model.Neighbors{K: k, Docs: make([]int32, 4*k)},
		Anchors:    []int32{0, 2},
		Positives:  []int32{1, 3},
		Admissible: []bool{false, true, true, true, true, true, false, true},
	}
	for i, d := range b.Centres {
		for j := 0; j < k; j++ {
			nb := g.Neighbors(int(d))
			b.Nbrs.Docs[i*k+j] = nb[j%len(nb)]
		}
	}
	tp := tensor.NewTape()
	loss, parts, err := m.Loss(tp, in, b, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tp.Backward(loss) // gradients now in m.Params()[i].Grad
	fmt.Println("loss finite:", !math.IsNaN(parts.Total) && !math.IsInf(parts.Total, 0))

	e := m.Embed(in, all, nbrs, k, 64)
	fmt.Printf("%d documents, points of %d coordinates, %d topics\n",
		len(e.Points)/(e.Width+1), e.Width+1, e.Topics)
	var sum float32
	for _, v := range e.Theta[:e.Topics] {
		sum += v
	}
	fmt.Printf("θ of document 0 sums to %.4f\n", sum)
	// Output:
	// loss finite: true
	// 5 documents, points of 17 coordinates, 3 topics
	// θ of document 0 sums to 1.0000
}
