package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// KNNBlocked finds the same neighbours as the exact float64 scan wherever
// float32 rounding cannot reorder them: on random data with no near-ties,
// across tile edges (sizes around knnTestBlock and knnTrainBlock) and k.
func TestKNNBlockedMatchesKNN(t *testing.T) {
	tests := []struct {
		name          string
		nTr, nTe, dim int
		k             int
	}{
		{"small", 50, 20, 8, 5},
		{"k above training rows", 3, 4, 5, 5},
		{"tile edges", knnTrainBlock + 3, knnTestBlock + 1, 4, 3},
		{"k 1", 300, 300, 16, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.nTr), uint64(tc.nTe)))
			tr, te := randMatrix(rng, tc.nTr, tc.dim), randMatrix(rng, tc.nTe, tc.dim)
			y := make([]int32, tc.nTr)
			for i := range y {
				y[i] = int32(rng.IntN(4))
			}
			want := KNN(tr, y, te, tc.dim, tc.k)
			got := KNNBlocked(tr, y, te, tc.dim, tc.k)
			diff := 0
			for i := range want {
				if got[i] != want[i] {
					diff++
				}
			}
			// Random Gaussian rows have no ties closer than float32
			// rounding except by rare chance.
			if diff > len(want)/200 {
				t.Errorf("%d of %d predictions differ from the exact scan", diff, len(want))
			}
		})
	}
}

// Ties keep the earlier training row, as KNN does: duplicated rows.
func TestKNNBlockedTies(t *testing.T) {
	tr := []float32{0, 0, 1, 1, 0, 0, 1, 1} // rows 0 and 2 equal, 1 and 3 equal
	y := []int32{0, 1, 2, 3}
	te := []float32{0.1, 0, 0.9, 1}
	got := KNNBlocked(tr, y, te, 2, 1)
	want := KNN(tr, y, te, 2, 1)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %d, want %d (the earlier of tied rows)", i, got[i], want[i])
		}
	}
	if want[0] != 0 || want[1] != 1 {
		t.Errorf("exact scan gave %v, want [0 1]", want)
	}
}

// LinkAUC by counting equals the mean of ROCAUC over each document's
// ranking (the rank-sum definition), ties included, to the bit; and
// LinkAUCBlocked given the same scores returns the same number.
func TestLinkAUCCountingAndBlocked(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		levels int // scores rounded to this many values: many ties
	}{
		{"no ties", 60, 0},
		{"heavy ties", 80, 4},
		{"more than one block", 3*linkAUCBlock + 5, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(tc.n)))
			x := randMatrix(rng, tc.n, 3)
			score := func(i, j int32) float64 {
				s := NegSqEuclidean(x, 3)(i, j)
				if tc.levels > 0 {
					s = math.Round(s * float64(tc.levels) / 10)
				}
				return s
			}
			test := make([]int32, tc.n)
			for i := range test {
				test[i] = int32(i)
			}
			var links [][2]int32
			for range 2 * tc.n {
				a, b := rng.IntN(tc.n), rng.IntN(tc.n)
				links = append(links, [2]int32{int32(a), int32(b)})
			}
			// Reference: ROCAUC per document over the others.
			linked := map[[2]int]bool{}
			for _, l := range links {
				if l[0] != l[1] {
					linked[[2]int{int(l[0]), int(l[1])}] = true
					linked[[2]int{int(l[1]), int(l[0])}] = true
				}
			}
			var sum float64
			var docs int
			for i := range tc.n {
				var s []float64
				var pos []bool
				np := 0
				for j := range tc.n {
					if j == i {
						continue
					}
					s = append(s, score(int32(i), int32(j)))
					pos = append(pos, linked[[2]int{i, j}])
					if linked[[2]int{i, j}] {
						np++
					}
				}
				if np == 0 || np == len(s) {
					continue
				}
				sum += ROCAUC(s, pos)
				docs++
			}
			want := sum / float64(docs)
			got, n := LinkAUC(test, links, score)
			if n != docs || got != want {
				t.Errorf("LinkAUC %v over %d documents, want %v over %d", got, n, want, docs)
			}
			blocked, nb := LinkAUCBlocked(test, links, func(rows []int, dst []float64) {
				for r, i := range rows {
					for j := range tc.n {
						dst[r*tc.n+j] = score(int32(i), int32(j))
					}
				}
			})
			if nb != docs || blocked != got {
				t.Errorf("LinkAUCBlocked %v over %d documents, LinkAUC %v over %d", blocked, nb, got, docs)
			}
		})
	}
}

// TestNeighborsMatchKNN: offering every training distance to a Neighbors
// in item order predicts what KNN predicts, ties included.
func TestNeighborsMatchKNN(t *testing.T) {
	const dim, nTr, nTe = 3, 40, 25
	rng := rand.New(rand.NewPCG(5, 1))
	train, test := make([]float32, nTr*dim), make([]float32, nTe*dim)
	y := make([]int32, nTr)
	for i := range train {
		train[i] = float32(rng.IntN(3)) // small integers: many exact ties
	}
	for i := range test {
		test[i] = float32(rng.IntN(3))
	}
	for i := range y {
		y[i] = int32(rng.IntN(4))
	}
	for _, k := range []int{1, 4, 7} {
		want := KNN(train, y, test, dim, k)
		nb := NewNeighbors(k)
		for i := range nTe {
			nb.Reset()
			for j := range nTr {
				var d float64
				for c := range dim {
					v := float64(test[i*dim+c]) - float64(train[j*dim+c])
					d += v * v
				}
				nb.Offer(j, d)
			}
			if got := nb.Vote(y); got != want[i] {
				t.Errorf("k=%d test %d: Neighbors votes %d, KNN %d", k, i, got, want[i])
			}
		}
	}
}
