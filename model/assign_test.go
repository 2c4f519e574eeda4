package model

import (
	"slices"
	"testing"
)

// TestTopTopicsAndPath: on a tree whose topic ids differ from its dense
// rows (topic 2 and its children removed, topic 13 added under 3), the top
// topics are the largest θ entries by id and the path follows subtree mass,
// not the single largest topic.
func TestTopTopicsAndPath(t *testing.T) {
	cfg := Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden = 8, 2, 8
	cfg.Vocab = 5
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	tree := m.Topics.Tree
	before := tree.IDs()
	if _, err := tree.Remove(2); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.AddChild(3); err != nil {
		t.Fatal(err)
	}
	var oldRow []int
	for _, id := range tree.IDs() {
		oldRow = append(oldRow, slices.Index(before, id))
	}
	m.Topics.Remap(oldRow)
	row := func(mass map[int]float32) []float32 {
		theta := make([]float32, tree.Len())
		for id, v := range mass {
			theta[tree.Row(id)] = v
		}
		return theta
	}
	for _, tc := range []struct {
		name     string
		mass     map[int]float32
		top      []TopicWeight
		wantPath []int
	}{
		{"subtree mass beats the largest topic",
			map[int]float32{0: 0.05, 1: 0.05, 4: 0.3, 3: 0.1, 10: 0.2, 11: 0.05, 13: 0.25},
			[]TopicWeight{{4, 0.3}, {13, 0.25}, {10, 0.2}}, []int{0, 3, 13}},
		{"ties go to the first child",
			map[int]float32{1: 0.25, 6: 0.25, 3: 0.25, 12: 0.25},
			[]TopicWeight{{1, 0.25}, {3, 0.25}, {6, 0.25}}, []int{0, 1, 6}},
		{"all mass on the root",
			map[int]float32{0: 1},
			[]TopicWeight{{0, 1}, {1, 0}, {3, 0}}, []int{0, 1, 4}},
	} {
		theta := row(tc.mass)
		if got := m.TopTopics(theta, 3); !slices.Equal(got, tc.top) {
			t.Errorf("%s: TopTopics = %v, want %v", tc.name, got, tc.top)
		}
		if got := m.TopicPath(theta); !slices.Equal(got, tc.wantPath) {
			t.Errorf("%s: TopicPath = %v, want %v", tc.name, got, tc.wantPath)
		}
	}
	if got := m.TopTopics(row(map[int]float32{0: 1}), 50); len(got) != tree.Len() {
		t.Errorf("TopTopics with k above the topic count returned %d topics, want %d", len(got), tree.Len())
	}
}
