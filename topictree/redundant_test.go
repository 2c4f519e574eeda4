package topictree

import (
	"errors"
	"slices"
	"testing"
)

// words returns a word list of ids lo, lo+1, …, lo+n-1.
func words(lo, n int) []int32 {
	w := make([]int32, n)
	for i := range w {
		w[i] = int32(lo + i)
	}
	return w
}

// TestMostRedundant plants word lists on the initial tree (depth 3,
// branching 3: root 0; middles 1-3; leaves 4-6 under 1, 7-9 under 2,
// 10-12 under 3; rows equal ids) and checks which pair is found and which
// of it is dropped.
func TestMostRedundant(t *testing.T) {
	tr, err := New(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	tab := tr.Tables()
	distinct := func() [][]int32 {
		top := make([][]int32, tab.T)
		for r := range top {
			top[r] = words(100*r, 10)
		}
		return top
	}
	even := func() []float64 {
		s := make([]float64, tab.T)
		for r := range s {
			s[r] = 1 / float64(tab.T)
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		plant   func(top [][]int32, s []float64)
		want    bool    // a pair found with positive overlap
		drop    int     // row dropped
		keep    int     // row kept
		overlap float64 // the pair's overlap
	}{
		{name: "no shared words", plant: func([][]int32, []float64) {}},
		{name: "leaves in two branches, the later smaller", plant: func(top [][]int32, s []float64) {
			top[11] = append(words(500, 7), words(1100, 3)...) // 7 of leaf 5's words
			s[11] = 0.001
		}, want: true, drop: 11, keep: 5, overlap: 0.7},
		{name: "leaves in two branches, the earlier smaller", plant: func(top [][]int32, s []float64) {
			top[11] = append(words(500, 7), words(1100, 3)...)
			s[5] = 0.001
		}, want: true, drop: 5, keep: 11, overlap: 0.7},
		{name: "subtree mass, not the topic's own share, decides", plant: func(top [][]int32, s []float64) {
			// Middle 1 holds little itself but its leaves hold much; leaf
			// 12 holds more than middle 1 alone, less than its subtree.
			top[12] = words(100, 10)
			s[1], s[12] = 0.01, 0.1
		}, want: true, drop: 12, keep: 1, overlap: 1},
		{name: "siblings are compared", plant: func(top [][]int32, s []float64) {
			top[8] = append(words(700, 4), words(800, 6)...)
			s[7] = 0.001
		}, want: true, drop: 7, keep: 8, overlap: 0.4},
		{name: "the largest overlap wins", plant: func(top [][]int32, s []float64) {
			top[9] = append(words(400, 5), words(900, 5)...)
			top[12] = append(words(600, 8), words(1200, 2)...)
		}, want: true, drop: 12, keep: 6, overlap: 0.8},
		{name: "a topic and its ancestors are never compared", plant: func(top [][]int32, s []float64) {
			// Leaf 4 repeats its parent 1; leaf 10 shares 3 words with both.
			top[1], top[4] = words(0, 10), words(0, 10)
			top[10] = append(words(0, 3), words(1000, 7)...)
		}, want: true, drop: 10, keep: 1, overlap: 0.3},
		{name: "only ancestors repeat each other", plant: func(top [][]int32, s []float64) {
			// The paths 0-3-10 and 2-7 each repeat one list.
			top[0], top[3], top[10] = words(0, 10), words(0, 10), words(0, 10)
			top[2], top[7] = words(2000, 10), words(2000, 10)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, s := distinct(), even()
			tc.plant(top, s)
			p, ok := tab.MostRedundant(top, s)
			if !ok {
				t.Fatal("no pair: every leaf has topics in other branches")
			}
			if !tc.want {
				if p.Overlap != 0 {
					t.Errorf("overlap %g between rows %d and %d, want none", p.Overlap, p.Drop, p.Keep)
				}
				return
			}
			if p.Drop != tc.drop || p.Keep != tc.keep || p.Overlap != tc.overlap {
				t.Errorf("drop %d keep %d overlap %g, want drop %d keep %d overlap %g", p.Drop, p.Keep, p.Overlap, tc.drop, tc.keep, tc.overlap)
			}
			mass := slices.Clone(s)
			tab.SubtreeSums(mass)
			if p.DropMass != mass[p.Drop] || p.KeepMass != mass[p.Keep] || p.DropMass > p.KeepMass {
				t.Errorf("masses %g (drop) and %g (keep), want the subtree masses %g and %g, drop's not larger", p.DropMass, p.KeepMass, mass[p.Drop], mass[p.Keep])
			}
		})
	}
}

// TestMostRedundantNoPair: a path (every pair is ancestor and descendant)
// and a lone root have no pair to compare.
func TestMostRedundantNoPair(t *testing.T) {
	for _, depth := range []int{1, 3} {
		tr, err := New(depth, 1)
		if err != nil {
			t.Fatal(err)
		}
		tab := tr.Tables()
		top := make([][]int32, tab.T)
		for r := range top {
			top[r] = words(0, 10) // all alike
		}
		if p, ok := tab.MostRedundant(top, make([]float64, tab.T)); ok {
			t.Errorf("depth %d path: found %+v", depth, p)
		}
	}
}

// TestUpdateRemove: UpdateOptions.Remove removes the listed topics with
// their subtrees whatever their mass and KeepDepth, and nothing else; the
// root and unknown topics are refused with the tree unchanged.
func TestUpdateRemove(t *testing.T) {
	even := func(T int) []float64 {
		s := make([]float64, T)
		for r := range s {
			s[r] = 1 / float64(T)
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		remove []int
		gone   []int
		err    error
	}{
		{"a leaf", []int{11}, []int{11}, nil},
		{"a middle topic with its leaves", []int{2}, []int{2, 7, 8, 9}, nil},
		{"every leaf of a parent (KeepDepth would keep one)", []int{4, 5, 6}, []int{4, 5, 6}, nil},
		{"the root", []int{0}, nil, ErrRoot},
		{"an unknown topic", []int{99}, nil, ErrNoTopic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := New(3, 3)
			if err != nil {
				t.Fatal(err)
			}
			before := tr.IDs()
			res, err := tr.Update(even(tr.Len()), UpdateOptions{Add: 1, KeepDepth: true, Remove: tc.remove})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				if !slices.Equal(tr.IDs(), before) {
					t.Errorf("tree changed on error: %v", tr.IDs())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, id := range before {
				if !slices.Contains(tc.gone, id) {
					want = append(want, id)
				}
			}
			if got := tr.IDs(); !slices.Equal(got, want) {
				t.Errorf("topics %v, want %v", got, want)
			}
			if len(res.Changes) != len(tc.gone) {
				t.Errorf("%d changes, want %d removals: %v", len(res.Changes), len(tc.gone), res.Changes)
			}
			for nr, or := range res.OldRow {
				if or < 0 || before[or] != tr.ID(nr) {
					t.Errorf("new row %d (topic %d) maps to old row %d", nr, tr.ID(nr), or)
				}
			}
			if slices.Equal(tc.remove, []int{4, 5, 6}) && !tr.IsLeaf(1) {
				t.Errorf("topic 1 lost its children and is not a leaf")
			}
		})
	}
}
