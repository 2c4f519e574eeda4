package model

import "sort"

// TopicWeight is a topic, by id, with a document's θ mass on it.
type TopicWeight struct {
	Topic  int     `json:"topic"`
	Weight float32 `json:"weight"`
}

// TopTopics returns the k topics that hold the most of a document's θ (one
// row of Embeddings.Theta, in the tree's dense order), by topic id, the
// largest first (the earlier row on ties).
func (m *Model) TopTopics(theta []float32, k int) []TopicWeight {
	tab := m.Topics.Tables()
	rows := make([]int, len(theta))
	for r := range rows {
		rows[r] = r
	}
	sort.SliceStable(rows, func(a, b int) bool { return theta[rows[a]] > theta[rows[b]] })
	out := make([]TopicWeight, 0, min(k, len(rows)))
	for _, r := range rows[:min(k, len(rows))] {
		out = append(out, TopicWeight{Topic: tab.ID[r], Weight: theta[r]})
	}
	return out
}

// TopicPath returns a document's path down the topic tree, by topic id:
// from the root, each step goes to the child whose subtree holds the most
// of the document's θ (the first child in sibling order on ties), down to a
// leaf. θ spreads a document over topics at every level; the path reads it
// as the one branch the document belongs to.
func (m *Model) TopicPath(theta []float32) []int {
	tab := m.Topics.Tables()
	// Subtree mass in one backward sweep: in the dense (breadth-first)
	// order every child comes after its parent.
	mass := make([]float64, tab.T)
	for r := tab.T - 1; r >= 0; r-- {
		mass[r] += float64(theta[r])
		if p := tab.Parent[r]; p >= 0 {
			mass[p] += mass[r]
		}
	}
	tree := m.Topics.Tree
	id := tree.Root()
	path := []int{id}
	for !tree.IsLeaf(id) {
		best := -1
		for _, c := range tree.Children(id) {
			if best < 0 || mass[tree.Row(c)] > mass[tree.Row(best)] {
				best = c
			}
		}
		id = best
		path = append(path, id)
	}
	return path
}
