package topictree

import (
	"errors"
	"testing"
)

// editTree is New(3, 2): root 0; 1 and 2 under it; 3, 4 under 1; 5, 6
// under 2.
func editTree(t *testing.T) *Tree {
	t.Helper()
	tr, err := New(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestEdits applies each edit to a fresh tree: a good edit gives the
// tree it should (rendered), a bad one its error and an unchanged tree.
func TestEdits(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Tree) error
		want string // the tree after, or "" for the original
		err  error
	}{
		{"merge leaves", func(tr *Tree) error { return tr.Merge(3, 4) }, "0\n  1\n    3\n  2\n    5\n    6\n", nil},
		{"merge cousins", func(tr *Tree) error { return tr.Merge(3, 5) }, "0\n  1\n    3\n    4\n  2\n    6\n", nil},
		{"merge inner", func(tr *Tree) error { return tr.Merge(1, 2) }, "0\n  1\n    3\n    4\n    5\n    6\n", nil},
		{"merge leaf into inner", func(tr *Tree) error { return tr.Merge(2, 3) }, "0\n  1\n    4\n  2\n    5\n    6\n", nil},
		{"merge inner into leaf", func(tr *Tree) error { return tr.Merge(5, 1) }, "0\n  2\n    5\n      3\n      4\n    6\n", nil},
		{"merge root", func(tr *Tree) error { return tr.Merge(0, 1) }, "", ErrEditRoot},
		{"merge into root", func(tr *Tree) error { return tr.Merge(1, 0) }, "", ErrEditRoot},
		{"merge ancestor", func(tr *Tree) error { return tr.Merge(1, 3) }, "", ErrAncestor},
		{"merge descendant", func(tr *Tree) error { return tr.Merge(3, 1) }, "", ErrAncestor},
		{"merge self", func(tr *Tree) error { return tr.Merge(3, 3) }, "", ErrSame},
		{"merge unknown", func(tr *Tree) error { return tr.Merge(3, 99) }, "", ErrNoTopic},
		{"move", func(tr *Tree) error { return tr.Move(3, 2) }, "0\n  1\n    4\n  2\n    5\n    6\n    3\n", nil},
		{"move up", func(tr *Tree) error { return tr.Move(3, 0) }, "0\n  1\n    4\n  2\n    5\n    6\n  3\n", nil},
		{"move subtree", func(tr *Tree) error { return tr.Move(1, 2) }, "0\n  2\n    5\n    6\n    1\n      3\n      4\n", nil},
		{"move past the default depth", func(tr *Tree) error { return tr.Move(1, 5) }, "", ErrMaxDepth},
		{"move root", func(tr *Tree) error { return tr.Move(0, 1) }, "", ErrEditRoot},
		{"move under itself", func(tr *Tree) error { return tr.Move(1, 1) }, "", ErrCycle},
		{"move into its subtree", func(tr *Tree) error { return tr.Move(1, 3) }, "", ErrCycle},
		{"move to its parent", func(tr *Tree) error { return tr.Move(3, 1) }, "", ErrNoChange},
		{"move under unknown", func(tr *Tree) error { return tr.Move(3, 99) }, "", ErrNoTopic},
		{"move past max depth", func(tr *Tree) error { return tr.Move(1, 6) }, "", nil}, // set below
		{"delete leaf", func(tr *Tree) error { return tr.Dissolve(4) }, "0\n  1\n    3\n  2\n    5\n    6\n", nil},
		{"delete inner", func(tr *Tree) error { return tr.Dissolve(1) }, "0\n  3\n  4\n  2\n    5\n    6\n", nil},
		{"delete root", func(tr *Tree) error { return tr.Dissolve(0) }, "", ErrEditRoot},
		{"delete unknown", func(tr *Tree) error { return tr.Dissolve(42) }, "", ErrNoTopic},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := editTree(t)
			if c.name == "move past max depth" {
				if err := tr.SetLimits(Limits{MaxDepth: 3, MaxChildren: 20}); err != nil {
					t.Fatal(err)
				}
				c.err = ErrMaxDepth
			}
			before := tr.String()
			err := c.edit(tr)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			want := c.want
			if c.err != nil {
				want = before
			}
			if got := tr.String(); got != want {
				t.Errorf("tree after:\n%swant\n%s", got, want)
			}
			// Levels and tables agree with the structure.
			tab := tr.Tables()
			for r, id := range tab.ID {
				if p := tr.Parent(id); p >= 0 && tr.Level(id) != tr.Level(p)+1 || int(tab.Level[r]) != tr.Level(id) {
					t.Errorf("topic %d: level %d, table %d, parent %d", id, tr.Level(id), tab.Level[r], p)
				}
			}
		})
	}
}

// TestEditLimits: a merge or a delete that would give a parent more
// children than the limit is refused.
func TestEditLimits(t *testing.T) {
	tr := editTree(t)
	if err := tr.SetLimits(Limits{MaxDepth: 4, MaxChildren: 3}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Merge(1, 2); !errors.Is(err, ErrMaxChildren) {
		t.Errorf("merge to 4 children under a limit of 3: %v", err)
	}
	if err := tr.Dissolve(1); err != nil {
		t.Errorf("delete to 3 children: %v", err)
	}
	if err := tr.Dissolve(2); !errors.Is(err, ErrMaxChildren) {
		t.Errorf("delete to 4 children under a limit of 3: %v", err)
	}
}
