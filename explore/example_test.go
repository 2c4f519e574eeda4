package explore_test

import (
	"fmt"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/model"
)

// An index over a model (here untrained) and its corpus answers the
// explorer's questions: the tree, a topic's details, a document's.
func Example() {
	cfg := synth.Default()
	cfg.Docs, cfg.Links = 120, 240
	g, _, _ := synth.Generate(cfg)
	mc := model.Default()
	mc.Width, mc.Layers, mc.Heads, mc.MLPHidden, mc.MaxLen = 8, 2, 2, 16, 16
	mc.Vocab = len(g.Vocab)
	m, _ := model.New(mc, 1)
	if err := m.Prepare(g, corpus.PaperSplit(g).Train, 1); err != nil {
		fmt.Println(err)
		return
	}
	all := make([]int32, g.NumDocs())
	for i := range all {
		all[i] = int32(i)
	}
	nbrs := func(i int32) []int32 { return g.Neighbors(int(i)) }
	ix, err := explore.New(m, g, m.Embed(m.Inputs(g, nbrs), all, nbrs, 64, 128))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree := ix.Tree()
	fmt.Println(len(tree.Nodes), "topics; the root has", len(tree.Nodes[0].Children), "children and", tree.Nodes[0].Docs, "documents")
	t, _ := ix.Topic(tree.Nodes[1].ID, 0, 5) // a child of the root
	fmt.Println(len(t.ByWeight), "words by weight,", len(t.ByLift), "by lift over its parent,", len(t.Documents), "of", t.Total, "documents")
	d, _ := ix.Document("7")
	fmt.Println("document", d.ID, "has", len(d.Nearest), "nearest documents and a path of", len(d.Path), "topics")
	// Output:
	// 13 topics; the root has 3 children and 120 documents
	// 20 words by weight, 20 by lift over its parent, 5 of 120 documents
	// document 7 has 10 nearest documents and a path of 3 topics
}
