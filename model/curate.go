package model

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/topictree"
)

// The curation edits of the topic tree (gtformer topics merge, move,
// delete, reduce) change its structure and carry each remaining topic's
// learned input row (Topics.Input) over by id; the decoder U is shared by
// all topics and does not change. They leave the edit log to the caller
// (Edits), and the decoder's fit to the new tree to a refit
// (topicfit.Fit with DecoderOnly).

// editTree applies edit to a copy of the tree and, when it succeeds,
// makes the copy the model's tree with Input carried over (a topic's row
// by its id). On error the model is unchanged.
func (m *Model) editTree(edit func(*topictree.Tree) error) error {
	old := m.Topics.Tree
	tr := old.Clone()
	if err := edit(tr); err != nil {
		return err
	}
	oldRow := make([]int, tr.Len())
	for r, id := range tr.IDs() {
		oldRow[r] = old.Row(id)
	}
	m.Topics.Tree = tr
	m.Topics.Remap(oldRow)
	return nil
}

// MergeTopics folds topic b into topic a (topictree.Tree.Merge): a keeps
// its id, b's children become a's, and a's input row becomes the mean of
// the two rows, so that the merged topic starts between them.
func (m *Model) MergeTopics(a, b int) error {
	tr := m.Topics.Tree
	var ra, rb int
	if tr.Has(a) && tr.Has(b) {
		ra, rb = tr.Row(a), tr.Row(b)
	}
	in := m.Topics.Input
	n := in.Cols()
	mean := make([]float32, n)
	if tr.Has(a) && tr.Has(b) {
		for j := range mean {
			mean[j] = (in.Data[ra*n+j] + in.Data[rb*n+j]) / 2
		}
	}
	if err := m.editTree(func(t *topictree.Tree) error { return t.Merge(a, b) }); err != nil {
		return err
	}
	r := m.Topics.Tree.Row(a)
	copy(m.Topics.Input.Data[r*n:(r+1)*n], mean)
	return nil
}

// MoveTopic makes topic a, with its subtree, the last child of topic p
// (topictree.Tree.Move).
func (m *Model) MoveTopic(a, p int) error {
	return m.editTree(func(t *topictree.Tree) error { return t.Move(a, p) })
}

// DeleteTopic removes topic a alone (topictree.Tree.Dissolve): its
// children move up to its parent, and the documents' mass it held goes to
// its parent's subtree when θ is computed again.
func (m *Model) DeleteTopic(a int) error {
	return m.editTree(func(t *topictree.Tree) error { return t.Dissolve(a) })
}

// ReduceTopics merges the most similar sibling topics, two at a time,
// until the tree has n topics, and returns the merges made ([a, b]: b
// folded into a) in order. Pairs of sibling leaves come first; only when
// no two leaves share a parent are inner siblings merged (their subtrees
// joined). Similarity is the cosine of the topics' word distributions β,
// computed again after each merge. A tree of D levels keeps at least D
// topics (a merge of siblings never removes a level); n below that, or not
// below the tree's size, is refused with the model unchanged.
func (m *Model) ReduceTopics(n int) ([][2]int, error) {
	T, depth := m.Topics.Tree.Len(), m.Topics.Tree.Depth()
	switch {
	case n >= T:
		return nil, fmt.Errorf("model: reduce to %d topics: the tree has %d already", n, T)
	case n < depth:
		return nil, fmt.Errorf("model: reduce to %d topics: the tree has %d levels, and merging siblings keeps every level, so it keeps at least %d topics", n, depth, depth)
	}
	var merges [][2]int
	for m.Topics.Tree.Len() > n {
		a, b, ok := m.mostSimilarSiblings()
		if !ok {
			// Unreachable while the tree has more topics than levels:
			// it is then not a chain, so some topic has two children.
			return merges, fmt.Errorf("model: reduce: no two topics share a parent")
		}
		if err := m.MergeTopics(a, b); err != nil {
			return merges, err
		}
		merges = append(merges, [2]int{a, b})
	}
	return merges, nil
}

// mostSimilarSiblings returns the pair of siblings (a before b in sibling
// order) whose β rows have the highest cosine, among pairs of leaves when
// there are any, else among all siblings; ties go to the first pair in
// breadth-first order.
func (m *Model) mostSimilarSiblings() (a, b int, ok bool) {
	tr := m.Topics.Tree
	beta := m.Beta()
	V := len(beta) / tr.Len()
	row := func(id int) []float32 { r := tr.Row(id); return beta[r*V : (r+1)*V] }
	for _, leavesOnly := range []bool{true, false} {
		best := math.Inf(-1)
		for _, p := range tr.IDs() {
			kids := tr.Children(p)
			for i, x := range kids {
				for _, y := range kids[i+1:] {
					if leavesOnly && !(tr.IsLeaf(x) && tr.IsLeaf(y)) {
						continue
					}
					if c := cosine(row(x), row(y)); c > best {
						best, a, b, ok = c, x, y, true
					}
				}
			}
		}
		if ok {
			return a, b, true
		}
	}
	return 0, 0, false
}

func cosine(x, y []float32) float64 {
	var xy, xx, yy float64
	for i := range x {
		xy += float64(x[i]) * float64(y[i])
		xx += float64(x[i]) * float64(x[i])
		yy += float64(y[i]) * float64(y[i])
	}
	if xx == 0 || yy == 0 {
		return 0
	}
	return xy / math.Sqrt(xx*yy)
}
