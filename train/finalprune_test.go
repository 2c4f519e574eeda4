package train

import (
	"slices"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// TestFinalPruneBelow checks the last tree update on planted topic
// distributions: under Options.FinalPruneBelow a leaf that holds no words
// is removed and a small leaf above the floor stays, though its path share
// is under s_prune, so that growth's rule (the plain Options.FinalPrune)
// removes it; nothing is added.
func TestFinalPruneBelow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		below     float64
		keepSmall bool
	}{
		{"words below 0.005", 0.005, true},
		{"path share below s_prune", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) { testFinalPrune(t, tc.below, tc.keepSmall) })
	}
}

func testFinalPrune(t *testing.T, below float64, keepSmall bool) {
	g, s := tinyData(t)
	opt := tinyOptions(1, "cache", 1)
	opt.FinalPrune, opt.FinalPruneBelow = true, below
	tr := newTrainer(t, g, s, tinyConfig(g), opt)
	tab := tr.Model.Topics.Tables()
	var middles []int
	kids := map[int][]int{}
	for r := 1; r < tab.T; r++ {
		if tab.Level[r] == 1 {
			middles = append(middles, r)
		}
		kids[int(tab.Parent[r])] = append(kids[int(tab.Parent[r])], r)
	}
	if len(middles) != 3 || len(kids[middles[0]]) != 3 || len(kids[middles[1]]) != 3 {
		t.Fatalf("initial tree %v: want 3 middle topics of 3 children each", kids)
	}
	empty, small := kids[middles[0]][2], kids[middles[1]][2]
	emb := &model.Embeddings{Topics: tab.T, Theta: make([]float32, g.NumDocs()*tab.T)}
	for i, d := range tr.vs.Train {
		row := emb.Theta[int(d)*tab.T : int(d+1)*tab.T]
		m := middles[i%3]
		leaf := kids[m][(i/3)%2] // the first two children
		if m == middles[1] && (i/3)%8 == 0 {
			// An eighth of the middle's documents: a path share ≈ 1/24
			// (under s_prune 0.05), ≈ 0.3/24 = 0.0125 of the words.
			leaf = small
		}
		row[0], row[m], row[leaf] = 0.4, 0.3, 0.3
	}
	ids := func() []int {
		return slices.Clone(tr.Model.Topics.Tables().ID)
	}
	emptyID, smallID := tab.ID[empty], tab.ID[small]
	if err := tr.growTree(emb, false); err != nil {
		t.Fatal(err)
	}
	got := ids()
	if slices.Contains(got, emptyID) {
		t.Errorf("topic %d holds no words and was kept: %v", emptyID, got)
	}
	if slices.Contains(got, smallID) != keepSmall {
		t.Errorf("topic %d (≈ 1.25%% of the words, path share ≈ 4%%) kept: %v, want %v; topics %v", smallID, !keepSmall, keepSmall, got)
	}
	// The third middle topic's empty third child goes too; nothing is
	// added.
	want := tab.T - 2
	if !keepSmall {
		want--
	}
	if len(got) != want {
		t.Errorf("%d topics after the final prune, want %d: %v", len(got), want, got)
	}
}
