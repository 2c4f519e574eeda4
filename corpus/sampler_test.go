package corpus

import (
	"math"
	"slices"
	"testing"
)

// starCSR: document 0 has neighbours 1..d, documents 1..d have 0, and
// document d+1 is isolated.
func starCSR(d int) ([]int64, []int32) {
	ptr := []int64{0, int64(d)}
	idx := make([]int32, 0, 2*d)
	for j := 1; j <= d; j++ {
		idx = append(idx, int32(j))
	}
	for j := 1; j <= d; j++ {
		idx = append(idx, 0)
		ptr = append(ptr, int64(len(idx)))
	}
	ptr = append(ptr, int64(len(idx))) // isolated d+1
	return ptr, idx
}

func TestSamplerRows(t *testing.T) {
	const d, k = 10, 5
	ptr, idx := starCSR(d)
	s := NewCSRSampler(ptr, idx, k, 42)
	n := len(ptr) - 1
	for epoch := range 50 {
		tab := s.Resample(epoch)
		if len(tab) != n*k {
			t.Fatalf("table length %d, want %d", len(tab), n*k)
		}
		hub := slices.Clone(tab[:k])
		slices.Sort(hub)
		if len(slices.Compact(hub)) != k || hub[0] < 1 || hub[k-1] > d {
			t.Fatalf("epoch %d: hub row %v is not %d distinct neighbours", epoch, tab[:k], k)
		}
		for i := 1; i <= d; i++ {
			for _, j := range tab[i*k : (i+1)*k] {
				if j != 0 {
					t.Fatalf("leaf %d sampled %d", i, j)
				}
			}
		}
		for _, j := range tab[(d+1)*k:] {
			if j != int32(d+1) {
				t.Fatalf("isolated document sampled %d, want a self-loop", j)
			}
		}
	}
}

func TestSamplerDeterministicAndFresh(t *testing.T) {
	ptr, idx := starCSR(30)
	a := slices.Clone(NewCSRSampler(ptr, idx, 5, 1).Resample(3))
	s := NewCSRSampler(ptr, idx, 5, 1)
	s.Resample(0)
	if b := s.Resample(3); !slices.Equal(a, b) {
		t.Fatal("same seed and epoch, different tables")
	}
	if c := s.Resample(4); slices.Equal(a[:5], c[:5]) {
		t.Fatal("a new epoch drew the same neighbours")
	}
	if c := NewCSRSampler(ptr, idx, 5, 2).Resample(3); slices.Equal(a[:5], c[:5]) {
		t.Fatal("a new seed drew the same neighbours")
	}
}

// Each neighbour is equally likely: over many epochs, a hub with 10
// neighbours and k = 5 picks each in half the epochs; a document with 3
// neighbours and k = 5 (with replacement) draws each 5/3 times per epoch.
func TestSamplerUniform(t *testing.T) {
	const epochs = 4000
	for _, tc := range []struct{ d, k int }{{10, 5}, {3, 5}} {
		ptr, idx := starCSR(tc.d)
		s := NewCSRSampler(ptr, idx, tc.k, 7)
		count := make([]float64, tc.d+1)
		for e := range epochs {
			for _, j := range s.Resample(e)[:tc.k] {
				count[j]++
			}
		}
		want := float64(epochs*tc.k) / float64(tc.d)
		for j := 1; j <= tc.d; j++ {
			// 5 standard deviations of a binomial count (upper bound).
			if math.Abs(count[j]-want) > 5*math.Sqrt(want) {
				t.Errorf("d=%d k=%d: neighbour %d drawn %v times, want about %v", tc.d, tc.k, j, count[j], want)
			}
		}
	}
}

func TestSamplerFromSplit(t *testing.T) {
	g := randomGraph(200, 40, 6, 5)
	g.SetLinks(KNNGraph(g, KNNOptions{K: 3}))
	sp := PaperSplit(g)
	s := NewSampler(sp, DefaultNeighbors, 9)
	tab := s.Resample(0)
	for i := range g.NumDocs() {
		nb := sp.TrainNeighbors(i)
		for _, j := range tab[i*s.K() : (i+1)*s.K()] {
			if len(nb) == 0 && j != int32(i) || len(nb) > 0 && !slices.Contains(nb, j) {
				t.Fatalf("document %d sampled %d, not among %v", i, j, nb)
			}
			if sp.IsTest[j] && len(nb) > 0 {
				t.Fatalf("document %d sampled test document %d", i, j)
			}
		}
	}
}
