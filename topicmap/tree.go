// Package topicmap maps a topic tree onto what lies outside the words: the
// documents' fields (facets: each node's share of the words and of the
// documents per field value, its children stacked) and the links (the
// link map: the link mass between the topics of a level against what
// their sizes alone would give).
//
// Everything here is a pure function of θ (N×T, each document's topic
// distribution over the tree's dense rows, as in doc_topics.npy), the
// tree, the documents' word counts, the links and the fields.
package topicmap

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gtformer/gtformer/topictree"
)

// Tree is the part of a topic tree the maps read, indexed by θ's columns
// (the tree's dense rows).
type Tree struct {
	ID     []int // row -> topic id
	Parent []int // row -> parent row; -1 for the root
	Level  []int // row -> level; 0 for the root
}

// Check reports a tree whose slices disagree in length or whose parents
// are not earlier rows of the level above.
func (t Tree) Check() error {
	T := len(t.ID)
	if T == 0 || len(t.Parent) != T || len(t.Level) != T {
		return fmt.Errorf("topicmap: tree of %d ids, %d parents, %d levels", len(t.ID), len(t.Parent), len(t.Level))
	}
	for r := range T {
		p := t.Parent[r]
		switch {
		case p < 0 && t.Level[r] != 0, p >= 0 && (p >= T || t.Level[p] != t.Level[r]-1):
			return fmt.Errorf("topicmap: row %d (topic %d): parent row %d does not fit level %d", r, t.ID[r], p, t.Level[r])
		}
	}
	return nil
}

// Row returns the row of topic id.
func (t Tree) Row(id int) (int, bool) {
	for r, x := range t.ID {
		if x == id {
			return r, true
		}
	}
	return 0, false
}

// Children returns the rows whose parent is row, in row order.
func (t Tree) Children(row int) []int {
	var out []int
	for r, p := range t.Parent {
		if p == row {
			out = append(out, r)
		}
	}
	return out
}

// Depth is the number of levels.
func (t Tree) Depth() int {
	d := 0
	for _, l := range t.Level {
		d = max(d, l+1)
	}
	return d
}

// under returns, per row, the index in stack of the stacked series the row
// belongs to in node's subtree: 0 for node itself, k for a row under its
// k-th child (1-based), -1 outside the subtree.
func (t Tree) under(node int, children []int) []int {
	index := make(map[int]int, len(children)) // child row -> its series
	for k, c := range children {
		index[c] = k + 1
	}
	group := make([]int, len(t.ID))
	for r := range group {
		group[r] = -1
		if r == node {
			group[r] = 0
			continue
		}
		below := r
		for a := t.Parent[r]; a >= 0; below, a = a, t.Parent[a] {
			if a == node {
				group[r] = index[below]
				break
			}
		}
	}
	return group
}

// Errors a caller may map to an answer (an HTTP status, a usage message).
var (
	// ErrUnknown marks an unknown topic or field.
	ErrUnknown = errors.New("topicmap: unknown")
	// ErrBadRequest marks options that do not fit the data: a binning that
	// does not apply to the field's kind, a level the tree does not have.
	ErrBadRequest = errors.New("topicmap: bad request")
)

// TreeOf is the tree of a model's topic tables.
func TreeOf(tab *topictree.Tables) Tree {
	tr := Tree{ID: slices.Clone(tab.ID), Parent: make([]int, tab.T), Level: make([]int, tab.T)}
	for r := range tab.T {
		tr.Parent[r], tr.Level[r] = int(tab.Parent[r]), int(tab.Level[r])
	}
	return tr
}

// AllLinks returns the link map of every level below the root, listing
// at most top cross-branch pairs each.
func AllLinks(theta []float32, tree Tree, links [][2]int32, top int) ([]*LinkMap, error) {
	out := []*LinkMap{}
	for level := 1; level < tree.Depth(); level++ {
		lm, err := Links(theta, tree, level, links, top)
		if err != nil {
			return nil, err
		}
		out = append(out, lm)
	}
	return out, nil
}
