package topictree

import "fmt"

// Redundant is a pair of topics whose word lists overlap, as
// MostRedundant finds it.
type Redundant struct {
	// Drop and Keep are dense rows; Drop's subtree holds the smaller share
	// of the words (the later row on a tie).
	Drop, Keep int
	// DropMass and KeepMass are their subtree masses (s_t plus the s of
	// all descendants).
	DropMass, KeepMass float64
	// Overlap is |top(Drop) ∩ top(Keep)| / n, n the longer list's length.
	Overlap float64
}

// MostRedundant returns the pair of topics, neither an ancestor of the
// other, whose word lists top (one per dense row, e.g. each topic's top-10
// words) share the largest fraction of their words, with the topic of
// smaller subtree mass (shares s, one per dense row, summed over subtrees)
// as the one to drop. Ties in overlap go to the first pair in row order.
// A topic's ancestors and descendants are never compared with it: a child
// repeating its parent's words is a matter for the hierarchy, not a
// duplicate. So the root is never in a pair. ok is false when no two
// topics qualify (a path, or a tree of one topic).
func (tb *Tables) MostRedundant(top [][]int32, s []float64) (best Redundant, ok bool) {
	if len(top) != tb.T || len(s) != tb.T {
		panic(fmt.Sprintf("topictree: MostRedundant: %d word lists and %d shares for %d topics", len(top), len(s), tb.T))
	}
	mass := append([]float64(nil), s...)
	tb.SubtreeSums(mass)
	for a := 1; a < tb.T; a++ {
		for b := a + 1; b < tb.T; b++ {
			if tb.isAncestor(a, b) {
				continue
			}
			n := max(len(top[a]), len(top[b]))
			if n == 0 {
				continue
			}
			common := 0
			for _, w := range top[a] {
				for _, v := range top[b] {
					if v == w {
						common++
						break
					}
				}
			}
			o := float64(common) / float64(n)
			if ok && o <= best.Overlap {
				continue
			}
			best, ok = Redundant{Drop: b, Keep: a, DropMass: mass[b], KeepMass: mass[a], Overlap: o}, true
			if mass[a] < mass[b] {
				best.Drop, best.Keep, best.DropMass, best.KeepMass = a, b, mass[a], mass[b]
			}
		}
	}
	return best, ok
}

// isAncestor reports whether row a is a proper ancestor of row b. Parents
// come before their children in dense order, so the walk up from b stops
// once it passes a.
func (tb *Tables) isAncestor(a, b int) bool {
	for q := tb.Parent[b]; q >= int32(a); q = tb.Parent[q] {
		if q == int32(a) {
			return true
		}
	}
	return false
}
