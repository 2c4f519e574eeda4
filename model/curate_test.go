package model

import (
	"slices"
	"strings"
	"testing"
)

// TestCurateEdits: a merge keeps a's id with the mean of the two input
// rows and carries every other topic's row by id; move and delete carry
// the rows too; a refused edit leaves the model as it was; the edited
// model saves and loads.
func TestCurateEdits(t *testing.T) {
	dir, m := savedTiny(t)
	n := m.Topics.Input.Cols()
	rowOf := func(id int) []float32 {
		r := m.Topics.Tree.Row(id)
		return slices.Clone(m.Topics.Input.Data[r*n : (r+1)*n])
	}
	ids := m.Topics.Tree.IDs()
	if len(ids) < 5 {
		t.Fatalf("tiny tree of %d topics", len(ids))
	}
	leaves := []int{}
	for _, id := range ids {
		if m.Topics.Tree.IsLeaf(id) {
			leaves = append(leaves, id)
		}
	}
	a, b := leaves[0], leaves[1]
	ra, rb := rowOf(a), rowOf(b)
	keep := map[int][]float32{}
	for _, id := range ids {
		if id != a && id != b {
			keep[id] = rowOf(id)
		}
	}
	if err := m.MergeTopics(a, b); err != nil {
		t.Fatal(err)
	}
	if m.Topics.Tree.Has(b) || !m.Topics.Tree.Has(a) {
		t.Fatalf("after merge %d %d the tree is\n%s", a, b, m.Topics.Tree)
	}
	for j, x := range rowOf(a) {
		if x != (ra[j]+rb[j])/2 {
			t.Fatalf("merged row %d: %v, want the mean of %v and %v", a, rowOf(a), ra, rb)
		}
	}
	for id, want := range keep {
		if !slices.Equal(rowOf(id), want) {
			t.Errorf("topic %d's input row changed in the merge", id)
		}
	}
	before := m.Topics.Tree.String()
	root := m.Topics.Tree.Root()
	for name, err := range map[string]error{
		"merge root":      m.MergeTopics(root, a),
		"merge unknown":   m.MergeTopics(a, 999),
		"move into child": m.MoveTopic(m.Topics.Tree.Children(root)[0], m.Topics.Tree.Children(m.Topics.Tree.Children(root)[0])[0]),
		"delete root":     m.DeleteTopic(root),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if m.Topics.Tree.String() != before || m.Topics.Input.Shape[0] != m.Topics.Tree.Len() {
		t.Fatalf("refused edits changed the tree:\n%s\nwas\n%s", m.Topics.Tree, before)
	}
	if err := m.DeleteTopic(m.Topics.Tree.Children(root)[0]); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Topics.Tree.String() != m.Topics.Tree.String() || !slices.Equal(back.Topics.Input.Data, m.Topics.Input.Data) {
		t.Errorf("the edited model does not load as saved")
	}
}

// TestReduceTopics: reduce merges siblings down to n topics, keeps every
// level, and refuses n at or above the size or below the depth.
func TestReduceTopics(t *testing.T) {
	_, m := savedTiny(t)
	T, depth := m.Topics.Tree.Len(), m.Topics.Tree.Depth()
	for _, n := range []int{T, T + 3, depth - 1} {
		if _, err := m.ReduceTopics(n); err == nil || !strings.HasPrefix(err.Error(), "model: reduce to") {
			t.Errorf("reduce to %d of %d topics in %d levels: %v", n, T, depth, err)
		}
	}
	if m.Topics.Tree.Len() != T {
		t.Fatal("a refused reduce changed the tree")
	}
	merges, err := m.ReduceTopics(depth)
	if err != nil {
		t.Fatal(err)
	}
	if m.Topics.Tree.Len() != depth || m.Topics.Tree.Depth() != depth || len(merges) != T-depth {
		t.Errorf("reduced to %d topics in %d levels with %d merges:\n%s", m.Topics.Tree.Len(), m.Topics.Tree.Depth(), len(merges), m.Topics.Tree)
	}
}
