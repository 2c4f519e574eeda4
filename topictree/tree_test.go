package topictree

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// build makes a tree from a parent list: topic i (i ≥ 1) is added as the
// last child of parents[i-1] (an id), so ids follow the list order and the
// sibling order is the order of appearance. Limits are generous.
func build(tb testing.TB, parents ...int) *Tree {
	tb.Helper()
	tr, err := New(1, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if err := tr.SetLimits(Limits{MaxDepth: 10, MaxChildren: 10}); err != nil {
		tb.Fatal(err)
	}
	for i, p := range parents {
		id, err := tr.AddChild(p)
		if err != nil {
			tb.Fatal(err)
		}
		if id != i+1 {
			tb.Fatalf("AddChild gave id %d, want %d", id, i+1)
		}
	}
	return tr
}

// handDrawn is the tree of the table test, with ids ≠ rows:
//
//	0
//	├── 1
//	│   ├── 2
//	│   └── 5
//	│       └── 7
//	├── 3
//	│   └── 4
//	└── 6
func handDrawn(tb testing.TB) *Tree { return build(tb, 0, 1, 0, 3, 1, 0, 5) }

// randomTree grows a tree of n topics by attaching each new topic to a
// uniformly chosen existing topic within the limits.
func randomTree(tb testing.TB, rng *rand.Rand, n int) *Tree {
	tb.Helper()
	tr := build(tb)
	for tr.Len() < n {
		ids := tr.IDs()
		p := ids[rng.IntN(len(ids))]
		if tr.Level(p)+1 >= 5 {
			continue
		}
		if _, err := tr.AddChild(p); err != nil && !errors.Is(err, ErrMaxChildren) {
			tb.Fatal(err)
		}
	}
	return tr
}

// checkTables recomputes every table from the tree's accessors (not from
// buildTables' code path) and compares.
func checkTables(tb testing.TB, tr *Tree) {
	tb.Helper()
	tab := tr.Tables()
	if tab.T != tr.Len() || len(tab.ID) != tab.T {
		tb.Fatalf("T %d, len(ID) %d, Len %d", tab.T, len(tab.ID), tr.Len())
	}
	// Breadth-first: levels non-decreasing, parents' rows non-decreasing.
	for r := 1; r < tab.T; r++ {
		if tab.Level[r] < tab.Level[r-1] || (tab.Level[r] == tab.Level[r-1] && tab.Parent[r] < tab.Parent[r-1]) {
			tb.Fatalf("row %d breaks breadth-first order", r)
		}
	}
	leaves, depth := 0, 0
	for r, id := range tab.ID {
		if tr.Row(id) != r {
			tb.Fatalf("Row(%d) = %d, want %d", id, tr.Row(id), r)
		}
		if int(tab.Level[r]) != tr.Level(id) {
			tb.Fatalf("row %d: level %d, want %d", r, tab.Level[r], tr.Level(id))
		}
		depth = max(depth, tr.Level(id)+1)
		if tab.IsLeaf[r] != tr.IsLeaf(id) {
			tb.Fatalf("row %d: IsLeaf %v", r, tab.IsLeaf[r])
		}
		if tr.IsLeaf(id) {
			leaves++
			p := tab.PathOf[r]
			if p < 0 || tab.Leaf[p] != int32(r) || int(tab.PathLen[p]) != tr.Level(id)+1 {
				tb.Fatalf("row %d: path tables wrong", r)
			}
			q := id
			for l := tr.Level(id); l >= 0; l-- {
				if tab.Paths[p][l] != int32(tr.Row(q)) {
					tb.Fatalf("path %d level %d: row %d, want %d", p, l, tab.Paths[p][l], tr.Row(q))
				}
				q = tr.Parent(q)
			}
		} else if tab.PathOf[r] != -1 {
			tb.Fatalf("inner row %d has a path", r)
		}
		par := tr.Parent(id)
		if par < 0 {
			if r != 0 || tab.Parent[r] != -1 || tab.LeftSib[r] != -1 || !tab.IsLast[r] {
				tb.Fatalf("root tables wrong")
			}
			continue
		}
		if int(tab.Parent[r]) != tr.Row(par) {
			tb.Fatalf("row %d: parent row %d, want %d", r, tab.Parent[r], tr.Row(par))
		}
		sibs := tr.Children(par)
		k := slices.Index(sibs, id)
		if int(tab.Rank[r]) != k || tab.IsLast[r] != (k == len(sibs)-1) {
			tb.Fatalf("row %d: rank %d last %v, want %d %v", r, tab.Rank[r], tab.IsLast[r], k, k == len(sibs)-1)
		}
		var left []int32
		for _, s := range sibs[:k] {
			left = append(left, int32(tr.Row(s)))
		}
		if len(left) == 0 {
			left = []int32{}
		}
		if !reflect.DeepEqual(append([]int32{}, tab.LeftSiblings[r]...), left) {
			tb.Fatalf("row %d: left siblings %v, want %v", r, tab.LeftSiblings[r], left)
		}
		wantLeft := int32(-1)
		if k > 0 {
			wantLeft = left[k-1]
		}
		if tab.LeftSib[r] != wantLeft {
			tb.Fatalf("row %d: LeftSib %d, want %d", r, tab.LeftSib[r], wantLeft)
		}
	}
	if tab.P != leaves || tab.Depth != depth || tr.Depth() != depth {
		tb.Fatalf("P %d depth %d, want %d %d", tab.P, tab.Depth, leaves, depth)
	}
	// DRNN steps: every non-root row exactly once, in (level, rank) order,
	// with parents and left siblings produced by earlier steps.
	done := make([]bool, tab.T)
	done[0] = true
	prevL, prevK := 0, 0
	for _, st := range tab.DRNN {
		// (level, rank) strictly increasing lexicographically.
		if st.Level < prevL || (st.Level == prevL && st.Rank <= prevK) {
			tb.Fatalf("DRNN step (%d,%d) after (%d,%d)", st.Level, st.Rank, prevL, prevK)
		}
		prevL, prevK = st.Level, st.Rank
		for i, r := range st.Rows {
			if done[r] || int(tab.Level[r]) != st.Level || int(tab.Rank[r]) != st.Rank {
				tb.Fatalf("DRNN step (%d,%d) row %d wrong", st.Level, st.Rank, r)
			}
			if st.Parents[i] != tab.Parent[r] || !done[st.Parents[i]] {
				tb.Fatalf("DRNN step (%d,%d) row %d: parent %d not ready", st.Level, st.Rank, r, st.Parents[i])
			}
			if st.Left[i] != tab.LeftSib[r] || (st.Left[i] >= 0 && !done[st.Left[i]]) {
				tb.Fatalf("DRNN step (%d,%d) row %d: left %d not ready", st.Level, st.Rank, r, st.Left[i])
			}
		}
		for _, r := range st.Rows {
			done[r] = true
		}
	}
	if slices.Contains(done, false) {
		tb.Fatalf("DRNN steps miss rows: %v", done)
	}
}

func TestHandDrawnTables(t *testing.T) {
	tr := handDrawn(t)
	tab := tr.Tables()
	want := &Tables{
		T: 8, P: 4, Depth: 4,
		ID:           []int{0, 1, 3, 6, 2, 5, 4, 7},
		Parent:       []int32{-1, 0, 0, 0, 1, 1, 2, 5},
		Level:        []int32{0, 1, 1, 1, 2, 2, 2, 3},
		Rank:         []int32{0, 0, 1, 2, 0, 1, 0, 0},
		LeftSib:      []int32{-1, -1, 1, 2, -1, 4, -1, -1},
		IsLeaf:       []bool{false, false, false, true, true, false, true, true},
		IsLast:       []bool{true, false, false, true, false, true, true, true},
		LeftSiblings: [][]int32{{}, {}, {1}, {1, 2}, {}, {4}, {}, {}},
		DRNN: []DRNNStep{
			{Level: 1, Rank: 0, Rows: []int32{1}, Parents: []int32{0}, Left: []int32{-1}},
			{Level: 1, Rank: 1, Rows: []int32{2}, Parents: []int32{0}, Left: []int32{1}},
			{Level: 1, Rank: 2, Rows: []int32{3}, Parents: []int32{0}, Left: []int32{2}},
			{Level: 2, Rank: 0, Rows: []int32{4, 6}, Parents: []int32{1, 2}, Left: []int32{-1, -1}},
			{Level: 2, Rank: 1, Rows: []int32{5}, Parents: []int32{1}, Left: []int32{4}},
			{Level: 3, Rank: 0, Rows: []int32{7}, Parents: []int32{5}, Left: []int32{-1}},
		},
		Paths:     [][]int32{{0, 3}, {0, 1, 4}, {0, 2, 6}, {0, 1, 5, 7}},
		PathLen:   []int32{2, 3, 3, 4},
		Leaf:      []int32{3, 4, 6, 7},
		PathOf:    []int32{-1, -1, -1, 0, 1, -1, 2, 3},
		LevelRows: [][]int32{{0}, {1, 2, 3}, {4, 5, 6}, {7}},
	}
	// Normalise empty left-sibling views for comparison.
	got := *tab
	got.LeftSiblings = make([][]int32, len(tab.LeftSiblings))
	for i, s := range tab.LeftSiblings {
		got.LeftSiblings[i] = append([]int32{}, s...)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("tables differ:\n got %+v\nwant %+v", got, *want)
	}
	checkTables(t, tr)
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		depth, branching, T, P int
	}{
		{1, 1, 1, 1},
		{1, 5, 1, 1},
		{2, 1, 2, 1},
		{3, 3, 13, 9},
		{4, 3, 40, 27},
		{3, 20, 421, 400},
	} {
		tr, err := New(tc.depth, tc.branching)
		if err != nil {
			t.Fatal(err)
		}
		tab := tr.Tables()
		if tab.T != tc.T || tab.P != tc.P || tab.Depth != tc.depth {
			t.Errorf("New(%d,%d): T %d P %d depth %d, want %d %d %d", tc.depth, tc.branching, tab.T, tab.P, tab.Depth, tc.T, tc.P, tc.depth)
		}
		for r, id := range tab.ID {
			if id != r {
				t.Errorf("New(%d,%d): row %d has id %d; initial ids should equal rows", tc.depth, tc.branching, r, id)
			}
		}
		if tr.NextID() != tc.T {
			t.Errorf("NextID %d, want %d", tr.NextID(), tc.T)
		}
		lim := tr.Limits()
		if lim.MaxDepth < tc.depth || lim.MaxChildren < tc.branching {
			t.Errorf("limits %+v do not hold the initial tree", lim)
		}
		checkTables(t, tr)
	}
	for _, bad := range [][2]int{{0, 3}, {3, 0}, {-1, 1}, {65, 1}, {30, 10}} {
		if _, err := New(bad[0], bad[1]); err == nil {
			t.Errorf("New(%d,%d) succeeded", bad[0], bad[1])
		}
	}
}

func TestAddRemoveLimits(t *testing.T) {
	tr, _ := New(2, 2) // 0 -> 1, 2
	if err := tr.SetLimits(Limits{MaxDepth: 3, MaxChildren: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.AddChild(0); !errors.Is(err, ErrMaxChildren) {
		t.Errorf("third child of root: err %v, want ErrMaxChildren", err)
	}
	id, err := tr.AddChild(1)
	if err != nil || id != 3 {
		t.Fatalf("AddChild(1) = %d, %v", id, err)
	}
	if _, err := tr.AddChild(3); !errors.Is(err, ErrMaxDepth) {
		t.Errorf("level-3 child with max depth 3: err %v, want ErrMaxDepth", err)
	}
	if _, err := tr.AddChild(99); !errors.Is(err, ErrNoTopic) {
		t.Errorf("AddChild(99): %v", err)
	}
	if _, err := tr.Remove(0); !errors.Is(err, ErrRoot) {
		t.Errorf("Remove(root): %v", err)
	}
	if err := tr.SetLimits(Limits{MaxDepth: 2, MaxChildren: 2}); err == nil {
		t.Errorf("SetLimits below the current depth succeeded")
	}
	removed, err := tr.Remove(1)
	if err != nil || !reflect.DeepEqual(removed, []int{1, 3}) {
		t.Fatalf("Remove(1) = %v, %v", removed, err)
	}
	if tr.Has(1) || tr.Has(3) || tr.Len() != 2 {
		t.Errorf("after Remove(1): %v", tr.IDs())
	}
	id, _ = tr.AddChild(0)
	if id != 4 {
		t.Errorf("new id %d after retiring 1 and 3, want 4 (ids never reused)", id)
	}
	if _, err := tr.Remove(2); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Remove(4); err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 1 || !tr.IsLeaf(0) || tr.Depth() != 1 {
		t.Errorf("root should be alone and a leaf: %v", tr.IDs())
	}
	checkTables(t, tr)
}

func TestRandomTreesTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	for range 50 {
		checkTables(t, randomTree(t, rng, 1+rng.IntN(40)))
	}
}

func TestRender(t *testing.T) {
	tr := handDrawn(t)
	var b strings.Builder
	if err := tr.Render(&b, func(r int) string { return "r" + string(rune('0'+r)) }); err != nil {
		t.Fatal(err)
	}
	want := `0 r0
  1 r1
    2 r4
    5 r5
      7 r7
  3 r2
    4 r6
  6 r3
`
	if b.String() != want {
		t.Errorf("Render:\n%s\nwant\n%s", b.String(), want)
	}
	if s := tr.String(); s != "0\n  1\n    2\n    5\n      7\n  3\n    4\n  6\n" {
		t.Errorf("String:\n%s", s)
	}
}

func TestClone(t *testing.T) {
	tr := handDrawn(t)
	c := tr.Clone()
	if _, err := c.AddChild(6); err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 8 || c.Len() != 9 || !tr.IsLeaf(6) {
		t.Errorf("Clone shares structure with the original")
	}
	checkTables(t, tr)
	checkTables(t, c)
}
