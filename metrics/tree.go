package metrics

import "fmt"

// TreeStats summarises the shape of a topic tree.
type TreeStats struct {
	Topics   int   // number of topics, root included
	PerLevel []int // PerLevel[l] topics at level l (root = level 0)
	Depth    int   // number of levels: 1 for a lone root
	Leaves   int   // topics without children
}

// ComputeTreeStats returns the statistics of the tree given by parent, where
// parent[t] is the index of topic t's parent and −1 marks the root. It
// reports an error when there is not exactly one root, a parent index is out
// of range, or the parents form a cycle (a tree read from a file may be
// malformed).
func ComputeTreeStats(parent []int) (TreeStats, error) {
	n := len(parent)
	level := make([]int, n)
	for t := range level {
		level[t] = -1
	}
	hasChild := make([]bool, n)
	roots := 0
	for t, p := range parent {
		switch {
		case p == -1:
			roots++
		case p < 0 || p >= n || p == t:
			return TreeStats{}, fmt.Errorf("metrics: topic %d has invalid parent %d", t, p)
		default:
			hasChild[p] = true
		}
	}
	if roots != 1 {
		return TreeStats{}, fmt.Errorf("metrics: tree of %d topics has %d roots, want 1", n, roots)
	}
	// Resolve levels by walking up to a known level; a walk longer than n
	// steps means a cycle.
	var path []int
	for t := range parent {
		path = path[:0]
		u := t
		for level[u] < 0 && parent[u] != -1 {
			path = append(path, u)
			if len(path) > n {
				return TreeStats{}, fmt.Errorf("metrics: topic %d is on a parent cycle", t)
			}
			u = parent[u]
		}
		if level[u] < 0 {
			level[u] = 0 // the root
		}
		for i := len(path) - 1; i >= 0; i-- {
			level[path[i]] = level[parent[path[i]]] + 1
		}
	}
	s := TreeStats{Topics: n}
	for t, l := range level {
		for len(s.PerLevel) <= l {
			s.PerLevel = append(s.PerLevel, 0)
		}
		s.PerLevel[l]++
		if !hasChild[t] {
			s.Leaves++
		}
	}
	s.Depth = len(s.PerLevel)
	return s, nil
}
