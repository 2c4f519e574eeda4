package model

import (
	"slices"
	"testing"
)

func TestLinkBatch(t *testing.T) {
	// Documents 0-4; known neighbours: 0-1, 1-2, 2-3 (4 isolated). A k = 2
	// neighbour table whose rows are 10·d, 10·d+1, so the slots show which
	// centre they were copied from.
	known := map[int32][]int32{0: {1}, 1: {0, 2}, 2: {1, 3}, 3: {2}}
	table := make([]int32, 5*2)
	for d := range 5 {
		table[2*d], table[2*d+1] = int32(10*d), int32(10*d+1)
	}
	tests := []struct {
		name      string
		links     [][2]int32
		centres   []int32
		anchors   []int32
		positives []int32
		// admissible candidates (centre indices) per anchor
		admissible [][]int32
	}{
		{"one link", [][2]int32{{0, 1}}, []int32{0, 1}, []int32{0, 1}, []int32{1, 0}, [][]int32{{1}, {0}}},
		{"shared end, first appearance order", [][2]int32{{2, 1}, {1, 0}}, []int32{2, 1, 0},
			[]int32{0, 1, 1, 2}, []int32{1, 0, 2, 1},
			// Document 2 (anchor 0): 1 is its positive, 0 is no neighbour of it.
			// Document 1 (anchors 1, 2): 2 and 0 are both its known neighbours,
			// so only the positive survives. Document 0 (anchor 3): 1 is its
			// positive, 2 no neighbour of it.
			[][]int32{{1, 2}, {0}, {2}, {0, 1}}},
		{"isolated end", [][2]int32{{4, 3}}, []int32{4, 3}, []int32{0, 1}, []int32{1, 0}, [][]int32{{1}, {0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := LinkBatch(tc.links, table, 2, func(d int32) []int32 { return known[d] })
			if !slices.Equal(b.Centres, tc.centres) || !slices.Equal(b.Anchors, tc.anchors) || !slices.Equal(b.Positives, tc.positives) {
				t.Fatalf("centres %v anchors %v positives %v, want %v %v %v", b.Centres, b.Anchors, b.Positives, tc.centres, tc.anchors, tc.positives)
			}
			B := len(b.Centres)
			if b.Nbrs.K != 2 || len(b.Nbrs.Docs) != 2*B {
				t.Fatalf("neighbours K %d, %d slots for %d centres", b.Nbrs.K, len(b.Nbrs.Docs), B)
			}
			for i, d := range b.Centres {
				if b.Nbrs.Docs[2*i] != 10*d || b.Nbrs.Docs[2*i+1] != 10*d+1 {
					t.Errorf("centre %d's slots %v, want its table row", d, b.Nbrs.Docs[2*i:2*i+2])
				}
			}
			for i := range b.Anchors {
				var got []int32
				for c := range B {
					if b.Admissible[i*B+c] {
						got = append(got, int32(c))
					}
				}
				if !slices.Equal(got, tc.admissible[i]) {
					t.Errorf("anchor %d: admissible %v, want %v", i, got, tc.admissible[i])
				}
			}
		})
	}
}
