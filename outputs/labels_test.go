package outputs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/topictree"
)

// TestAutoLabelsHandMade: on a hand-made tree (root 0; children 1, 2;
// grandchildren 3, 4 under 1) whose β gives siblings overlapping top
// words, the root's label is its most probable words, a child's label
// skips its parent's words, and siblings never share a word.
func TestAutoLabelsHandMade(t *testing.T) {
	tree, err := topictree.New(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.AddChild(1); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.AddChild(1); err != nil {
		t.Fatal(err)
	}
	tab := tree.Tables()
	vocab := []string{"the", "of", "data", "neural", "network", "deep", "graph", "node", "edge", "train", "image", "pixel"}
	V := len(vocab)
	// Each row: weights by word; the rest gets a small floor.
	rows := map[int]map[string]float32{
		0: {"the": 30, "of": 20, "data": 10, "neural": 3, "graph": 3},
		1: {"the": 10, "neural": 20, "network": 15, "deep": 12, "data": 10, "train": 5, "image": 5},
		2: {"the": 10, "neural": 15, "network": 14, "graph": 20, "node": 12, "edge": 8},
		3: {"neural": 20, "network": 20, "deep": 18, "image": 15, "pixel": 12, "train": 3},
		4: {"neural": 20, "network": 20, "deep": 18, "image": 14, "train": 12, "pixel": 2},
	}
	beta := make([]float32, tab.T*V)
	for r, id := range tab.ID {
		var sum float32
		for w, word := range vocab {
			x := rows[id][word] + 0.1
			beta[r*V+w] = x
			sum += x
		}
		for w := range V {
			beta[r*V+w] /= sum
		}
	}
	labels := outputs.AutoLabels(tab, beta, vocab)
	byID := map[int][]string{}
	for r, id := range tab.ID {
		byID[id] = strings.Split(labels[r], ", ")
		if len(byID[id]) != outputs.AutoLabelWords {
			t.Errorf("topic %d: label %q, want %d words", id, labels[r], outputs.AutoLabelWords)
		}
	}
	if got := strings.Join(byID[0], ", "); got != "the, of, data" {
		t.Errorf("root label %q, want its top words", got)
	}
	for id := range byID {
		if id == 0 {
			continue
		}
		for _, w := range byID[id] {
			for _, pw := range byID[tree.Parent(id)] {
				if w == pw {
					t.Errorf("topic %d repeats its parent's word %q", id, w)
				}
			}
		}
	}
	for _, pair := range [][2]int{{1, 2}, {3, 4}} {
		for _, w := range byID[pair[0]] {
			for _, v := range byID[pair[1]] {
				if w == v {
					t.Errorf("siblings %d %v and %d %v share %q", pair[0], byID[pair[0]], pair[1], byID[pair[1]], w)
				}
			}
		}
	}
	// Deterministic.
	if again := outputs.AutoLabels(tab, beta, vocab); strings.Join(again, "|") != strings.Join(labels, "|") {
		t.Errorf("AutoLabels differs between calls: %v, %v", labels, again)
	}
	if got := strings.Join(byID[2], ", "); got != "node, edge, graph" {
		t.Errorf("topic 2's label %q, want the words that set it apart from its parent, rarest there first (node, edge, graph)", got)
	}
}

// TestLabelsUserFirst: a label from the edit log wins, marked "user".
func TestLabelsUserFirst(t *testing.T) {
	m, _, _, _ := setup(t, false)
	auto := make([]string, m.Topics.Tables().T)
	for r := range auto {
		auto[r] = "auto"
	}
	id := m.Topics.Tables().ID[1]
	m.Edits = (*edits.Log)(nil).With(edits.Edit{Op: edits.OpLabel, IDs: []int{id}, Label: "mine"})
	labels, sources := outputs.Labels(m, auto)
	for r := range labels {
		want, src := "auto", outputs.LabelAuto
		if r == 1 {
			want, src = "mine", outputs.LabelUser
		}
		if labels[r] != want || sources[r] != src {
			t.Errorf("row %d: %q (%s), want %q (%s)", r, labels[r], sources[r], want, src)
		}
	}
}

// TestWritten: an edited model's outputs include its edit log, and a
// corpus with labels or fields its meta file.
func TestWritten(t *testing.T) {
	m, g, _, _ := setup(t, false)
	plain := *g
	plain.Labels = nil
	if got := outputs.Written(m, &plain); !slices.Equal(got, outputs.WriteFiles) {
		t.Errorf("a model without edits, a corpus without labels or fields: %v", got)
	}
	if got := outputs.Written(m, g); !slices.Equal(got, append(slices.Clone(outputs.WriteFiles), outputs.MetaFile)) {
		t.Errorf("a corpus with labels: %v", got)
	}
	m.Edits = (*edits.Log)(nil).With(edits.Edit{Op: edits.OpLabel, IDs: []int{0}, Label: "all"})
	if got := outputs.Written(m, &plain); !slices.Equal(got, append(slices.Clone(outputs.WriteFiles), edits.File)) {
		t.Errorf("an edited model: %v", got)
	}
}
