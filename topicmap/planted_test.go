package topicmap_test

import (
	"testing"

	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/topicmap"
)

// TestPlantedLinkMap: on the built-in corpus, whose links are planted by
// branch (synth.PSameLeaf of them inside a leaf, synth.PSameBranch more
// inside a level-1 branch), the link map of the planted θ finds the links
// inside branches: at level 1 a branch with itself lifts well above 1 and
// across branches well below; at level 2 a leaf with itself lifts far
// above 1, and siblings far above leaves of other branches.
func TestPlantedLinkMap(t *testing.T) {
	g, tr, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	T := tr.NumTopics()
	tree := topicmap.Tree{ID: make([]int, T), Parent: make([]int, T), Level: make([]int, T)}
	for k := range T {
		tree.ID[k], tree.Parent[k], tree.Level[k] = k, int(tr.Parent[k]), int(tr.Level[k])
	}
	theta := make([]float32, g.NumDocs()*T)
	for i := range g.NumDocs() {
		for k, x := range tr.Theta(i) {
			theta[i*T+k] = float32(x)
		}
	}
	l1, err := topicmap.Links(theta, tree, 1, g.Links, 5)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := topicmap.Links(theta, tree, 2, g.Links, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planted θ: level 1 inside %.2f across %.2f; level 2 inside %.2f (self %.2f, siblings %.2f) across %.2f",
		l1.Inside, l1.Across, l2.Inside, l2.Self, l2.Siblings, l2.Across)
	if !(l1.Inside > 2 && l1.Across < 0.5) {
		t.Errorf("level 1: inside %.2f, across %.2f; want > 2 and < 0.5", l1.Inside, l1.Across)
	}
	if !(l2.Self > 4 && l2.Siblings > 4*l2.Across && l2.Across < 0.5) {
		t.Errorf("level 2: self %.2f, siblings %.2f, across %.2f; want self > 4, siblings > 4 × across, across < 0.5", l2.Self, l2.Siblings, l2.Across)
	}
}
