package metrics

import "fmt"

// Neighbors collects the k nearest training items of one test item from
// distances offered in increasing item order, and votes among them, exactly
// as KNN and KNNBlocked order and vote: for callers that compute the
// distances in tiles of their own (package baseline's dense blocks of
// sparse rows), so their predictions follow the same tie-breaking rules.
type Neighbors struct {
	k    int
	idx  []int     // the nearest items so far, nearest first
	dist []float64 // their distances
}

// NewNeighbors returns an empty collector of k ≥ 1 neighbours (k < 1 is a
// programmer error and panics, as in KNN).
func NewNeighbors(k int) *Neighbors {
	if k < 1 {
		panic(fmt.Sprintf("metrics: Neighbors: k = %d, want ≥ 1", k))
	}
	return &Neighbors{k: k, idx: make([]int, 0, k), dist: make([]float64, 0, k)}
}

// Offer considers item j at distance d. Items must come in increasing j:
// among equal distances the earlier item stays nearer.
func (n *Neighbors) Offer(j int, d float64) {
	if len(n.idx) == n.k && d >= n.dist[n.k-1] {
		return
	}
	n.idx, n.dist = insertNearest(n.idx, n.dist, n.k, j, d)
}

// Vote returns the majority label of the neighbours under labels y, the
// smallest label on a tie (KNN's vote).
func (n *Neighbors) Vote(y []int32) int32 { return vote(y, n.idx) }

// Reset empties the collector for another test item.
func (n *Neighbors) Reset() { n.idx, n.dist = n.idx[:0], n.dist[:0] }
