package corpus

import (
	"fmt"
	"math/rand/v2"
)

// DefaultNeighbors is k, the neighbours sampled per document.
const DefaultNeighbors = 5

// Sampler draws k neighbours per document from neighbour lists in CSR form:
// k distinct neighbours when a document has at least k, k draws with
// replacement when it has fewer, and k copies of itself (a self-loop) when
// it has none. A table depends only on the seed and the epoch, so training
// can be resumed and workers need not share state.
type Sampler struct {
	ptr   []int64
	idx   []int32
	k     int
	seed  uint64
	table []int32 // (N, k), reused by Resample
	pick  []int32 // scratch for sampling without replacement
}

// NewSampler samples from a split's neighbour lists (Split.TrainNeighbors).
// k must be positive.
func NewSampler(s *Split, k int, seed uint64) *Sampler {
	return NewCSRSampler(s.NbrPtr, s.NbrIdx, k, seed)
}

// NewCSRSampler samples from any neighbour lists: row i is
// idx[ptr[i]:ptr[i+1]], e.g. Graph.AdjPtr and Graph.AdjIdx.
func NewCSRSampler(ptr []int64, idx []int32, k int, seed uint64) *Sampler {
	if k <= 0 {
		panic(fmt.Sprintf("corpus: NewSampler: k = %d, must be positive", k))
	}
	n := len(ptr) - 1
	return &Sampler{ptr: ptr, idx: idx, k: k, seed: seed, table: make([]int32, n*k)}
}

// K is the number of neighbours per document.
func (s *Sampler) K() int { return s.k }

// Resample draws the table for an epoch and returns it: (N, k) row-major,
// row i holding document i's neighbours. The slice is reused by the next
// call.
func (s *Sampler) Resample(epoch int) []int32 {
	rng := rand.New(rand.NewPCG(s.seed, uint64(epoch)))
	n := len(s.ptr) - 1
	k := s.k
	for i := 0; i < n; i++ {
		row := s.table[i*k : (i+1)*k]
		nb := s.idx[s.ptr[i]:s.ptr[i+1]]
		switch d := len(nb); {
		case d == 0:
			for c := range row {
				row[c] = int32(i)
			}
		case d < k:
			for c := range row {
				row[c] = nb[rng.IntN(d)]
			}
		default:
			// A partial Fisher-Yates shuffle of a copy picks k distinct.
			s.pick = append(s.pick[:0], nb...)
			for c := 0; c < k; c++ {
				r := c + rng.IntN(d-c)
				s.pick[c], s.pick[r] = s.pick[r], s.pick[c]
				row[c] = s.pick[c]
			}
		}
	}
	return s.table
}
