package topictree

import (
	"errors"
	"fmt"
	"slices"
)

// Errors of the curation edits (Merge, Move, Dissolve), wrapped with the
// ids involved. ErrNoTopic, ErrMaxDepth and ErrMaxChildren are also used.
var (
	ErrEditRoot = errors.New("the root cannot be edited this way")
	ErrCycle    = errors.New("a topic cannot go inside its own subtree")
	ErrAncestor = errors.New("a topic cannot be merged with its own ancestor or descendant")
	ErrSame     = errors.New("the two topics are the same")
	ErrNoChange = errors.New("the edit changes nothing")
)

// height is the number of levels below id (0 for a leaf).
func (t *Tree) height(id int) int {
	h := 0
	for _, c := range t.nodes[id].children {
		h = max(h, 1+t.height(c))
	}
	return h
}

// isAncestor reports whether a is a proper ancestor of b.
func (t *Tree) isAncestor(a, b int) bool {
	for p := t.nodes[b].parent; p >= 0; p = t.nodes[p].parent {
		if p == a {
			return true
		}
	}
	return false
}

// setLevel gives id the level l and its descendants theirs below it.
func (t *Tree) setLevel(id, l int) {
	n := t.nodes[id]
	n.level = l
	for _, c := range n.children {
		t.setLevel(c, l+1)
	}
}

// unlink removes id from its parent's children.
func (t *Tree) unlink(id int) {
	p := t.nodes[t.nodes[id].parent]
	p.children = slices.DeleteFunc(p.children, func(c int) bool { return c == id })
}

// editable checks that each id is a topic and not the root.
func (t *Tree) editable(op string, ids ...int) error {
	for _, id := range ids {
		n, ok := t.nodes[id]
		if !ok {
			return fmt.Errorf("topictree: %s: topic %d: %w", op, id, ErrNoTopic)
		}
		if n.parent < 0 {
			return fmt.Errorf("topictree: %s: topic %d: %w", op, id, ErrEditRoot)
		}
	}
	return nil
}

// Merge folds topic b into topic a: b's children become a's last
// children (their subtrees with them) and b is removed; a keeps its id.
// Neither may be the root, nor an ancestor of the other; the tree's limits
// must hold after. On error the tree is unchanged. Tables are rebuilt.
func (t *Tree) Merge(a, b int) error {
	if err := t.editable("merge", a, b); err != nil {
		return err
	}
	if a == b {
		return fmt.Errorf("topictree: merge %d %d: %w", a, b, ErrSame)
	}
	if t.isAncestor(a, b) || t.isAncestor(b, a) {
		return fmt.Errorf("topictree: merge %d %d: %w", a, b, ErrAncestor)
	}
	na, nb := t.nodes[a], t.nodes[b]
	if n := len(na.children) + len(nb.children); n > t.lim.MaxChildren {
		return fmt.Errorf("topictree: merge %d %d: %w (%d children, limit %d)", a, b, ErrMaxChildren, n, t.lim.MaxChildren)
	}
	if nb.level != na.level {
		if d := na.level + 1 + t.height(b); len(nb.children) > 0 && d > t.lim.MaxDepth {
			return fmt.Errorf("topictree: merge %d %d: %w (the tree would have %d levels, limit %d)", a, b, ErrMaxDepth, d, t.lim.MaxDepth)
		}
	}
	t.unlink(b)
	for _, c := range nb.children {
		t.nodes[c].parent = a
		na.children = append(na.children, c)
		t.setLevel(c, na.level+1)
	}
	delete(t.nodes, b)
	t.rebuild()
	return nil
}

// Move makes topic a, with its subtree, the last child of topic p. a may
// not be the root, p may not be a or inside a's subtree, and the limits
// must hold after. On error the tree is unchanged. Tables are rebuilt.
func (t *Tree) Move(a, p int) error {
	if err := t.editable("move", a); err != nil {
		return err
	}
	np, ok := t.nodes[p]
	if !ok {
		return fmt.Errorf("topictree: move %d under %d: topic %d: %w", a, p, p, ErrNoTopic)
	}
	if p == a || t.isAncestor(a, p) {
		return fmt.Errorf("topictree: move %d under %d: %w", a, p, ErrCycle)
	}
	if t.nodes[a].parent == p {
		return fmt.Errorf("topictree: move %d under %d: %w (%d is already its parent)", a, p, ErrNoChange, p)
	}
	if d := np.level + 2 + t.height(a); d > t.lim.MaxDepth {
		return fmt.Errorf("topictree: move %d under %d: %w (the tree would have %d levels, limit %d)", a, p, ErrMaxDepth, d, t.lim.MaxDepth)
	}
	if len(np.children) >= t.lim.MaxChildren {
		return fmt.Errorf("topictree: move %d under %d: %w (%d)", a, p, ErrMaxChildren, t.lim.MaxChildren)
	}
	t.unlink(a)
	t.nodes[a].parent = p
	np.children = append(np.children, a)
	t.setLevel(a, np.level+1)
	t.rebuild()
	return nil
}

// Dissolve removes topic a alone: its children take its place among its
// parent's children, in their order, one level up. The root cannot be
// dissolved; the parent's child limit must hold after. On error the tree
// is unchanged. Tables are rebuilt.
func (t *Tree) Dissolve(a int) error {
	if err := t.editable("delete", a); err != nil {
		return err
	}
	na := t.nodes[a]
	np := t.nodes[na.parent]
	if n := len(np.children) - 1 + len(na.children); n > t.lim.MaxChildren {
		return fmt.Errorf("topictree: delete %d: %w (its parent %d would have %d children, limit %d)", a, ErrMaxChildren, na.parent, n, t.lim.MaxChildren)
	}
	i := slices.Index(np.children, a)
	np.children = slices.Replace(np.children, i, i+1, na.children...)
	for _, c := range na.children {
		t.nodes[c].parent = na.parent
		t.setLevel(c, np.level+1)
	}
	delete(t.nodes, a)
	t.rebuild()
	return nil
}
