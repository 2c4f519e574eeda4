package topictree

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

func TestShareAccumulator(t *testing.T) {
	acc := NewShareAccumulator(3)
	if _, err := acc.Shares(); err == nil {
		t.Errorf("Shares with no words succeeded")
	}
	// Two batches; the zero-length document must not count.
	acc.Add(tensor.FromData([]float32{0.5, 0.25, 0.25, 0, 0, 1}, 2, 3), []int{10, 0})
	acc.Add(tensor.FromData([]float32{0.1, 0.1, 0.8}, 1, 3), []int{30})
	s, err := acc.Shares()
	if err != nil {
		t.Fatal(err)
	}
	// s = (10·θ_1 + 30·θ_3) / 40, by hand.
	want := []float64{(5 + 3) / 40.0, (2.5 + 3) / 40.0, (2.5 + 24) / 40.0}
	for i := range want {
		if math.Abs(s[i]-want[i]) > 1e-7 {
			t.Errorf("s[%d] = %v, want %v", i, s[i], want[i])
		}
	}
	if acc.Words() != 40 {
		t.Errorf("Words = %v", acc.Words())
	}
	acc.Reset()
	if _, err := acc.Shares(); err == nil || acc.Words() != 0 {
		t.Errorf("Reset did not clear")
	}
}

// shares builds s for the default 13-topic tree (id = row) from a default
// value and per-id overrides.
func shares(def float64, set map[int]float64) []float64 {
	s := make([]float64, 13)
	for i := range s {
		s[i] = def
	}
	for id, v := range set {
		s[id] = v
	}
	return s
}

func TestUpdateCrafted(t *testing.T) {
	inner := func(set map[int]float64) []float64 {
		// Inner topics at 0.04 (below s_add), leaves at 0.08 (subtree mass
		// above s_prune), then overrides.
		s := shares(0.08, map[int]float64{0: 0.04, 1: 0.04, 2: 0.04, 3: 0.04})
		for id, v := range set {
			s[id] = v
		}
		return s
	}
	type change struct {
		op         ChangeOp
		id, parent int
	}
	for _, tc := range []struct {
		name string
		lim  Limits
		opt  UpdateOptions
		s    []float64
		want []change
		tree string
	}{
		{
			name: "noChange",
			s:    shares(0.08, map[int]float64{0: 0.05, 1: 0.05, 2: 0.05, 3: 0.05}), // = s_add: not above
			tree: "0\n  1\n    4\n    5\n    6\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "addToInner",
			s:    inner(map[int]float64{0: 0.2, 2: 0.06}),
			want: []change{{Added, 13, 0}, {Added, 14, 2}},
			tree: "0\n  1\n    4\n    5\n    6\n  2\n    7\n    8\n    9\n    14\n  3\n    10\n    11\n    12\n  13\n",
		},
		{
			name: "leavesNeverGrowByDefault",
			s:    inner(map[int]float64{4: 0.5, 12: 0.06}),
			tree: "0\n  1\n    4\n    5\n    6\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "pruneLeafAndSubtree",
			// Leaf 5 at exactly s_prune stays; subtree of 3 has mass 0.04.
			s:    inner(map[int]float64{4: 0.01, 5: 0.05, 3: 0.01, 10: 0.01, 11: 0.01, 12: 0.01}),
			want: []change{{Removed, 3, 0}, {Removed, 4, 1}, {Removed, 10, 3}, {Removed, 11, 3}, {Removed, 12, 3}},
			tree: "0\n  1\n    5\n    6\n  2\n    7\n    8\n    9\n",
		},
		{
			name: "pruneThenAdd",
			s:    inner(map[int]float64{4: 0.01, 1: 0.3}),
			want: []change{{Removed, 4, 1}, {Added, 13, 1}},
			tree: "0\n  1\n    5\n    6\n    13\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "parentLeftChildlessBecomesLeaf",
			s:    inner(map[int]float64{2: 0.3, 7: 0.01, 8: 0.01, 9: 0.01}),
			want: []change{{Removed, 7, 2}, {Removed, 8, 2}, {Removed, 9, 2}},
			tree: "0\n  1\n    4\n    5\n    6\n  2\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "childlessParentGrowsWithGrowLeaves",
			opt:  UpdateOptions{Add: 0.05, Prune: 0.05, GrowLeaves: true},
			s:    inner(map[int]float64{2: 0.3, 7: 0.01, 8: 0.01, 9: 0.01, 4: 0.05}),
			// Leaves 5,6,10,11,12 (0.08 > s_add) grow too; 4 (= s_add) does not.
			want: []change{{Removed, 7, 2}, {Removed, 8, 2}, {Removed, 9, 2}, {Added, 13, 2}, {Added, 14, 5}, {Added, 15, 6}, {Added, 16, 10}, {Added, 17, 11}, {Added, 18, 12}},
			tree: "0\n  1\n    4\n    5\n      14\n    6\n      15\n  2\n    13\n  3\n    10\n      16\n    11\n      17\n    12\n      18\n",
		},
		{
			name: "maxChildrenAfterPruning",
			lim:  Limits{MaxDepth: 4, MaxChildren: 3},
			// Root is full (3 children); 1 loses 4 and has room again.
			s:    inner(map[int]float64{0: 0.2, 1: 0.2, 4: 0.01}),
			want: []change{{Removed, 4, 1}, {Added, 13, 1}},
			tree: "0\n  1\n    5\n    6\n    13\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "maxDepthStopsLeafGrowth",
			lim:  Limits{MaxDepth: 3, MaxChildren: 20},
			opt:  UpdateOptions{Add: 0.05, Prune: 0.05, GrowLeaves: true},
			s:    inner(nil),
			tree: "0\n  1\n    4\n    5\n    6\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "growLeavesUpToMaxDepth",
			opt:  UpdateOptions{Add: 0.05, Prune: 0.05, GrowLeaves: true},
			s:    shares(0.05, map[int]float64{4: 0.1}),
			want: []change{{Added, 13, 4}},
			tree: "0\n  1\n    4\n      13\n    5\n    6\n  2\n    7\n    8\n    9\n  3\n    10\n    11\n    12\n",
		},
		{
			name: "everythingButRoot",
			s:    shares(0.0001, map[int]float64{0: 0.99}),
			want: []change{{Removed, 1, 0}, {Removed, 2, 0}, {Removed, 3, 0}, {Removed, 4, 1}, {Removed, 5, 1}, {Removed, 6, 1}, {Removed, 7, 2}, {Removed, 8, 2}, {Removed, 9, 2}, {Removed, 10, 3}, {Removed, 11, 3}, {Removed, 12, 3}},
			tree: "0\n",
		},
		{
			name: "rootNeverPruned",
			opt:  UpdateOptions{Add: 0.05, Prune: 2},
			s:    inner(nil),
			want: []change{{Removed, 1, 0}, {Removed, 2, 0}, {Removed, 3, 0}, {Removed, 4, 1}, {Removed, 5, 1}, {Removed, 6, 1}, {Removed, 7, 2}, {Removed, 8, 2}, {Removed, 9, 2}, {Removed, 10, 3}, {Removed, 11, 3}, {Removed, 12, 3}},
			tree: "0\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, _ := New(3, 3)
			if tc.lim != (Limits{}) {
				if err := tr.SetLimits(tc.lim); err != nil {
					t.Fatal(err)
				}
			}
			opt := tc.opt
			if reflect.DeepEqual(opt, UpdateOptions{}) {
				opt = DefaultUpdateOptions
			}
			oldIDs := tr.IDs()
			res, err := tr.Update(tc.s, opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []change
			for _, c := range res.Changes {
				got = append(got, change{c.Op, c.ID, c.Parent})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changes %v, want %v", got, tc.want)
			}
			if s := tr.String(); s != tc.tree {
				t.Errorf("tree\n%s\nwant\n%s", s, tc.tree)
			}
			checkTables(t, tr)
			checkRowMaps(t, tr, oldIDs, res)
			checkLimits(t, tr)
		})
	}
}

func checkRowMaps(t *testing.T, tr *Tree, oldIDs []int, res UpdateResult) {
	t.Helper()
	if len(res.RowMap) != len(oldIDs) || len(res.OldRow) != tr.Len() {
		t.Fatalf("RowMap %d / OldRow %d entries for %d → %d topics", len(res.RowMap), len(res.OldRow), len(oldIDs), tr.Len())
	}
	for or, id := range oldIDs {
		nr := res.RowMap[or]
		if tr.Has(id) != (nr >= 0) || (nr >= 0 && (tr.ID(nr) != id || res.OldRow[nr] != or)) {
			t.Errorf("old row %d (topic %d) maps to %d", or, id, nr)
		}
	}
	for nr, or := range res.OldRow {
		if or < 0 && slices.Contains(oldIDs, tr.ID(nr)) {
			t.Errorf("new row %d (topic %d) marked added but existed", nr, tr.ID(nr))
		}
	}
}

func checkLimits(t *testing.T, tr *Tree) {
	t.Helper()
	lim := tr.Limits()
	if tr.Depth() > lim.MaxDepth {
		t.Errorf("depth %d > max %d", tr.Depth(), lim.MaxDepth)
	}
	for _, id := range tr.IDs() {
		if n := len(tr.Children(id)); n > lim.MaxChildren {
			t.Errorf("topic %d has %d children > max %d", id, n, lim.MaxChildren)
		}
	}
}

// TestUpdateRandomRounds runs many rounds of Update on random trees with
// random shares and checks every decision against the rule computed
// independently (subtree masses by recursion over the accessors), ids never
// reused, limits held and tables rebuilt.
func TestUpdateRandomRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	nAdd, nRemove := 0, 0
	defer func() {
		// Guard against a vacuous test: both rules must have fired.
		if nAdd < 20 || nRemove < 20 {
			t.Errorf("only %d additions and %d removals exercised", nAdd, nRemove)
		}
		t.Logf("%d additions, %d removals checked", nAdd, nRemove)
	}()
	for trial := range 30 {
		tr := randomTree(t, rng, 2+rng.IntN(25))
		lim := Limits{MaxDepth: max(tr.Depth(), 2+rng.IntN(4)), MaxChildren: 2 + rng.IntN(5)}
		for _, id := range tr.IDs() {
			lim.MaxChildren = max(lim.MaxChildren, len(tr.Children(id)))
		}
		if err := tr.SetLimits(lim); err != nil {
			t.Fatal(err)
		}
		opt := UpdateOptions{Add: 0.02 + 0.1*rng.Float64(), Prune: 0.02 + 0.1*rng.Float64(), GrowLeaves: rng.IntN(2) == 0}
		everUsed := map[int]bool{}
		for _, id := range tr.IDs() {
			everUsed[id] = true
		}
		for round := range 6 {
			T := tr.Len()
			s := make([]float64, T)
			sum := 0.0
			for i := range s {
				s[i] = -math.Log(rng.Float64()) // Dirichlet(1) via normalised exponentials
				sum += s[i]
			}
			for i := range s {
				s[i] /= sum
			}
			before := tr.Clone()
			oldIDs := tr.IDs()
			// Expected removals: any non-root ancestor-or-self with subtree
			// mass below the threshold.
			var mass func(id int) float64
			mass = func(id int) float64 {
				m := s[before.Row(id)]
				for _, c := range before.Children(id) {
					m += mass(c)
				}
				return m
			}
			wantRemoved := map[int]bool{}
			for _, id := range oldIDs {
				for q := id; before.Parent(q) >= 0; q = before.Parent(q) {
					if mass(q) < opt.Prune {
						wantRemoved[id] = true
					}
				}
			}
			res, err := tr.Update(s, opt)
			if err != nil {
				t.Fatal(err)
			}
			added := map[int]int{} // parent -> new child
			for _, c := range res.Changes {
				switch c.Op {
				case Removed:
					nRemove++
					if !wantRemoved[c.ID] {
						t.Errorf("trial %d round %d: removed %d unexpectedly", trial, round, c.ID)
					}
					delete(wantRemoved, c.ID)
				case Added:
					nAdd++
					if everUsed[c.ID] {
						t.Errorf("trial %d round %d: id %d reused", trial, round, c.ID)
					}
					everUsed[c.ID] = true
					if _, dup := added[c.Parent]; dup {
						t.Errorf("two children added to %d in one update", c.Parent)
					}
					added[c.Parent] = c.ID
				}
			}
			if len(wantRemoved) > 0 {
				t.Errorf("trial %d round %d: not removed: %v", trial, round, wantRemoved)
			}
			// Expected additions, judged on the pruned tree.
			for _, id := range oldIDs {
				if !tr.Has(id) {
					continue
				}
				kids := len(tr.Children(id))
				if _, ok := added[id]; ok {
					kids-- // children of the pruned tree
				}
				wantAdd := s[before.Row(id)] > opt.Add && kids < lim.MaxChildren &&
					(kids > 0 || (opt.GrowLeaves && before.Level(id)+1 < lim.MaxDepth))
				if _, got := added[id]; got != wantAdd {
					t.Errorf("trial %d round %d: topic %d (s %.3f, %d children): added %v, want %v", trial, round, id, s[before.Row(id)], kids, got, wantAdd)
				}
				if c, ok := added[id]; ok {
					ch := tr.Children(id)
					if ch[len(ch)-1] != c {
						t.Errorf("new child %d is not the last sibling of %d: %v", c, id, ch)
					}
				}
			}
			checkTables(t, tr)
			checkRowMaps(t, tr, oldIDs, res)
			checkLimits(t, tr)
		}
	}
}

func TestUpdateRejectsBadShares(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    []float64
		opt  UpdateOptions
	}{
		{"short", make([]float64, 12), DefaultUpdateOptions},
		{"nan", shares(0.1, map[int]float64{3: math.NaN()}), DefaultUpdateOptions},
		{"inf", shares(0.1, map[int]float64{3: math.Inf(1)}), DefaultUpdateOptions},
		{"negative", shares(0.1, map[int]float64{3: -0.1}), DefaultUpdateOptions},
		{"badThreshold", shares(0.1, nil), UpdateOptions{Add: math.NaN(), Prune: 0.05}},
	} {
		tr, _ := New(3, 3)
		before := tr.String()
		if _, err := tr.Update(tc.s, tc.opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if tr.String() != before || tr.NextID() != 13 {
			t.Errorf("%s: tree changed on error", tc.name)
		}
	}
}

func TestRemapRows(t *testing.T) {
	tr, _ := New(3, 3)
	// Per-topic matrix (13, 2): row r holds (id, -id).
	old := make([]float32, 13*2)
	for r := range 13 {
		old[2*r], old[2*r+1] = float32(tr.ID(r)), -float32(tr.ID(r))
	}
	res, err := tr.Update(shares(0.08, map[int]float64{0: 0.04, 1: 0.04, 2: 0.3, 3: 0.04, 5: 0.01}), DefaultUpdateOptions)
	if err != nil {
		t.Fatal(err)
	}
	nw := res.RemapRows(old, 2)
	for r := range tr.Len() {
		want := [2]float32{float32(tr.ID(r)), -float32(tr.ID(r))}
		if res.OldRow[r] < 0 {
			want = [2]float32{}
		}
		if got := [2]float32{nw[2*r], nw[2*r+1]}; got != want {
			t.Errorf("new row %d (topic %d): %v, want %v", r, tr.ID(r), got, want)
		}
	}
	if tr.Len() != 13 || tr.Has(5) || !tr.Has(13) {
		t.Errorf("expected 5 removed and 13 added under 2: %v", tr.IDs())
	}
}

// TestPathShares checks PathShares on a hand-computed document and, for
// θ from the stick-breaking op with random similarities, its invariants:
// the root's share is 1, children's shares sum to their parent's, and a
// leaf's share is its path probability π (the same with any level
// similarities).
func TestPathShares(t *testing.T) {
	tr, err := New(3, 2) // 0 → 1, 2; 1 → 3, 4; 2 → 5, 6
	if err != nil {
		t.Fatal(err)
	}
	tab := tr.Tables()
	// π(3,4,5,6) = (0.2, 0.3, 0.5, 0), δ = (0.2, 0.3, 0.5).
	theta := []float32{0.2, 0.15, 0.15, 0.1, 0.15, 0.25, 0}
	got := PathShares(tab, theta, []int{7})
	want := []float64{1, 0.5, 0.5, 0.2, 0.3, 0.5, 0}
	for r := range want {
		if math.Abs(got[r]-want[r]) > 1e-6 {
			t.Fatalf("path shares %v, want %v", got, want)
		}
	}
	// A second document of another length weighs in by its words.
	got = PathShares(tab, append(theta, 0.5, 0, 0.5, 0, 0, 0, 0), []int{3, 1})
	if math.Abs(got[1]-0.375) > 1e-6 || math.Abs(got[2]-0.625) > 1e-6 {
		t.Fatalf("two documents: path shares %v, want topic 1 at 0.375 and 2 at 0.625", got)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	for _, lv := range []float32{0.01, 0.5, 0.99} {
		N := 4
		sT := tensor.New(N, tab.T)
		for i := range sT.Data {
			sT.Data[i] = float32(rng.Float64())
		}
		sL := tensor.New(N, 3)
		for i := range sL.Data {
			sL.Data[i] = lv
		}
		tp := tensor.NewTape()
		tp.NoGrad = true
		th := Theta(tp, tab, sT, sL)
		for i := 0; i < N; i++ {
			p := PathShares(tab, th.Data[i*tab.T:(i+1)*tab.T], []int{1})
			if math.Abs(p[0]-1) > 1e-6 {
				t.Fatalf("root path share %g", p[0])
			}
			for r := 1; r < tab.T; r++ {
				var kids float64
				for c := r + 1; c < tab.T; c++ {
					if tab.Parent[c] == int32(r) {
						kids += p[c]
					}
				}
				if len(tr.Children(tab.ID[r])) > 0 && math.Abs(kids-p[r]) > 1e-5 {
					t.Fatalf("level similarity %g: children of %d sum to %g, it has %g", lv, r, kids, p[r])
				}
			}
			// π of leaf 3 by hand: σ₁ (first child of the root) × σ₃
			// (first child of 1); of leaf 6: (1−σ₁)(1−σ₅).
			s := sT.Data[i*tab.T : (i+1)*tab.T]
			if want := float64(s[1]) * float64(s[3]); math.Abs(p[3]-want) > 1e-5 {
				t.Fatalf("leaf 3: path share %g, π %g", p[3], want)
			}
			if want := (1 - float64(s[1])) * (1 - float64(s[5])); math.Abs(p[6]-want) > 1e-5 {
				t.Fatalf("leaf 6: path share %g, π %g", p[6], want)
			}
		}
	}
}

// TestUpdatePruneByPath: a leaf whose θ share is small because the levels
// above hold most of its documents' words survives when pruning reads path
// shares, and is pruned by the paper's subtree mass; path shares of the
// wrong length are refused.
func TestUpdatePruneByPath(t *testing.T) {
	s := []float64{0.3, 0.15, 0.15, 0.04, 0.11, 0.11, 0.14} // leaf 3: subtree mass 0.04
	path := []float64{1, 0.4, 0.6, 0.12, 0.28, 0.27, 0.33}  // but 12% of the documents choose it
	for _, tc := range []struct {
		path    []float64
		removed bool
	}{{nil, true}, {path, false}} {
		tr, _ := New(3, 2)
		res, err := tr.Update(s, UpdateOptions{Prune: 0.05, Path: tc.path})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(tr.IDs(), 3); got == tc.removed {
			t.Errorf("path shares %v: topic 3 kept = %v; changes %v", tc.path, got, res.Changes)
		}
	}
	tr, _ := New(3, 2)
	if _, err := tr.Update(s, UpdateOptions{Prune: 0.05, Path: path[:3]}); err == nil {
		t.Error("3 path shares for 7 topics accepted")
	}
}

// TestUpdateKeepDepth: with KeepDepth the root gets no new child (it would
// be a leaf two levels above the others) while the leaves' parents do, and
// a kept topic whose children are all below the threshold keeps its
// largest; without it the root grows and topic 1 becomes a leaf.
func TestUpdateKeepDepth(t *testing.T) {
	s := []float64{0.4, 0.2, 0.3, 0.01, 0.02, 0.04, 0.03} // leaves 3, 4 under 1: both tiny
	for _, keep := range []bool{false, true} {
		tr, _ := New(3, 2)
		res, err := tr.Update(s, UpdateOptions{Add: 0.05, Prune: 0.025, KeepDepth: keep})
		if err != nil {
			t.Fatal(err)
		}
		under := addedUnder(res)
		has := func(id int) bool { return slices.Contains(tr.IDs(), id) }
		if keep {
			if !slices.Equal(under, []int{1, 2}) || has(3) || !has(4) {
				t.Errorf("KeepDepth: additions under %v (want [1 2]), topics %v (want 4 kept, 3 pruned)", under, tr.IDs())
			}
			for _, id := range tr.IDs() {
				if len(tr.Children(id)) == 0 && tr.Level(id) != 2 {
					t.Errorf("KeepDepth left leaf %d at level %d", id, tr.Level(id))
				}
			}
		} else if !slices.Equal(under, []int{0, 2}) || has(3) || has(4) {
			t.Errorf("paper's rule: additions under %v (want [0 2]: 1 is a leaf after pruning), topics %v (want 3 and 4 pruned)", under, tr.IDs())
		}
	}
}

// addedUnder lists, sorted, the parents of the topics an update added.
func addedUnder(res UpdateResult) []int {
	var under []int
	for _, c := range res.Changes {
		if c.Op == Added {
			under = append(under, c.Parent)
		}
	}
	slices.Sort(under)
	return under
}
