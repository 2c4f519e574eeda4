package metrics

import (
	"math"
	"testing"
)

// tree: root 0 → 1, 2; 1 → 3, 4 (levels 0, 1, 1, 2, 2).
var handTree = Hierarchy{Parent: []int{-1, 0, 0, 1, 1}, Level: []int{0, 1, 1, 2, 2}}

func TestLevelShares(t *testing.T) {
	theta := []float32{
		0.5, 0.5, 0, 0, 0, // 2 words
		0, 0, 0.25, 0.25, 0.5, // 6 words
	}
	got := LevelShares(theta, []int{2, 6}, handTree)
	want := []float64{1.0 / 8, (1 + 0.25*6) / 8, 0.75 * 6 / 8}
	for l := range want {
		if math.Abs(got[l]-want[l]) > 1e-7 {
			t.Fatalf("level shares %v, want %v", got, want)
		}
	}
}

func TestSpecialization(t *testing.T) {
	u := []float64{0.5, 0.5, 0, 0}
	beta := []float32{
		0.5, 0.5, 0, 0, // root = the corpus: 0
		0, 0, 1, 0, // orthogonal: 1
		0.5, 0, 0.5, 0, // cos = 0.25/(√0.5·√0.5) = 0.5
		1, 0, 0, 0, // cos = 0.5/√0.5 = √0.5
		0, 0, 0, 1, // 1
	}
	got := Specialization(beta, u, handTree)
	want := []float64{0, (1 + 0.5) / 2, (1 - math.Sqrt(0.5) + 1) / 2}
	for l := range want {
		if math.Abs(got[l]-want[l]) > 1e-7 {
			t.Fatalf("specialization %v, want %v", got, want)
		}
	}
}

// TestHierarchyAffinity on hand-chosen top words over a reference where
// word 1 and 2 always co-occur, 3 never meets 1, and 4 is everywhere.
func TestHierarchyAffinity(t *testing.T) {
	ref := NewReference("hand", DocList{{1, 2, 4}, {1, 2, 4}, {3, 4}, {3, 5, 4}})
	top := [][]int32{
		{1, 4}, // root
		{2, 4}, // 1: shares 4 with the root
		{3, 5}, // 2
		{1, 3}, // 3
		{2, 5}, // 4
	}
	a := ref.HierarchyAffinity(top, handTree)
	// Level 0 pairs: (root,1): cross pair (1,2) and one −1 for the shared 4;
	// (root,2): pairs (1,3),(1,5),(4,3),(4,5).
	npmi := ref.PairNPMI
	l0 := []float64{npmi(1, 2), -1, npmi(1, 3), npmi(1, 5), npmi(4, 3), npmi(4, 5)}
	// Level 1 pairs: (1,3): (2,1),(2,3),(4,1),(4,3); (1,4): shares 2 → (4,5), −1.
	l1 := []float64{npmi(2, 1), npmi(2, 3), npmi(4, 1), npmi(4, 3), npmi(4, 5), -1}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	if want := (mean(l0) + mean(l1)) / 2; math.Abs(a.PCC-want) > 1e-12 {
		t.Errorf("PCC %v, want %v", a.PCC, want)
	}
	// PCD: level 0: (root,1) 2 of 4 words once, (root,2) 4 of 4; level 1:
	// (1,3) 4 of 4, (1,4) 2 of 4.
	if want := ((0.5+1)/2 + (1+0.5)/2) / 2; math.Abs(a.PCD-want) > 1e-12 {
		t.Errorf("PCD %v, want %v", a.PCD, want)
	}
	// SD: siblings {1,2}: 4 of 4 once; {3,4}: 4 of 4 once.
	if math.Abs(a.SD-1) > 1e-12 {
		t.Errorf("SD %v, want 1", a.SD)
	}
	// PnCD: level 0 has no non-child at level 1; level 1: topic 2 has no
	// children, topic 1's non-children at level 2: none (3, 4 are its own).
	if !math.IsNaN(a.PnCD) {
		t.Errorf("PnCD %v, want NaN (no parent-non-child pair)", a.PnCD)
	}
	// With 3 under topic 2 instead, (1, 3) is a parent-non-child pair: 4 of 4 once,
	// and (2, 4) one too: {3,5} vs {2,5}: 2 of 4.
	other := Hierarchy{Parent: []int{-1, 0, 0, 2, 1}, Level: handTree.Level}
	if b := ref.HierarchyAffinity(top, other); math.Abs(b.PnCD-(1+0.5)/2) > 1e-12 {
		t.Errorf("PnCD %v, want 0.75", b.PnCD)
	}
}

func TestPerLevel(t *testing.T) {
	top := [][]int32{{1}, {2}, {2}, {3}, {4}}
	got := PerLevel(top, handTree, func(ts [][]int32) float64 { return TopicDiversity(ts, 1) })
	if want := []float64{1, 0.5, 1}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("per-level diversity %v, want %v", got, want)
	}
}
