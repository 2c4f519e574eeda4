package topictree

import (
	"errors"
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor"
)

// ShareAccumulator computes the paper's word share of each topic over the
// training documents, s_t = Σ_i |d_i| θ_it / Σ_i |d_i|, batch by batch.
type ShareAccumulator struct {
	num   []float64 // (T) Σ_i |d_i| θ_it
	words float64   // Σ_i |d_i|
}

// NewShareAccumulator returns an empty accumulator for a tree of T topics.
func NewShareAccumulator(T int) *ShareAccumulator {
	return &ShareAccumulator{num: make([]float64, T)}
}

// Add accumulates a batch: theta (B,T) with columns in dense row order and
// lengths[i] = |d_i|, the number of words of document i. It panics on shape
// mismatches or negative lengths (programmer errors).
func (a *ShareAccumulator) Add(theta *tensor.Tensor, lengths []int) {
	T := len(a.num)
	if len(theta.Shape) != 2 || theta.Shape[1] != T || theta.Shape[0] != len(lengths) {
		panic(fmt.Sprintf("topictree: ShareAccumulator.Add: theta %v with %d lengths, want (%d,%d)", theta.Shape, len(lengths), len(lengths), T))
	}
	for i, n := range lengths {
		if n < 0 {
			panic(fmt.Sprintf("topictree: ShareAccumulator.Add: negative length %d", n))
		}
		if n == 0 {
			continue
		}
		w := float64(n)
		a.words += w
		for t, v := range theta.Data[i*T : (i+1)*T] {
			a.num[t] += w * float64(v)
		}
	}
}

// Words is Σ_i |d_i| so far.
func (a *ShareAccumulator) Words() float64 { return a.words }

// Shares returns s (T), indexed by dense row. It fails when no words were
// accumulated (s would be undefined, and all-zero shares would prune every
// topic).
func (a *ShareAccumulator) Shares() ([]float64, error) {
	if a.words == 0 {
		return nil, errors.New("topictree: topic shares: no words accumulated")
	}
	s := make([]float64, len(a.num))
	for t, v := range a.num {
		s[t] = v / a.words
	}
	return s, nil
}

// Reset clears the accumulator for the next pass.
func (a *ShareAccumulator) Reset() {
	clear(a.num)
	a.words = 0
}

// PathShares returns each topic's path share over documents with topic
// distributions theta (N·T, dense row order, rows summing to one) and
// lengths |d_i|: the share of the words whose document's path runs through
// the topic,
//
//	p_t = Σ_i |d_i| π_i(t) / Σ_i |d_i|,  π_i(t) = Σ_{u ∈ sub(t)} θ_iu / Σ_{u: level(u) ≥ level(t)} θ_iu,
//
// where sub(t) is t and its descendants. π_i(t) is the probability of the
// paths through t (reach_t in the stick-breaking): every path through t
// puts the mass of its levels ≥ level(t) in sub(t), and all paths together
// put exactly the mass of those levels in the topics at them, so the level
// distribution cancels. Children's path shares sum to their parent's, the
// root's is 1, and a leaf's is the share of documents that choose it,
// however the levels share each document's words. A document whose mass
// at levels ≥ level(t) is zero counts for no topic at that level.
func PathShares(tab *Tables, theta []float32, lengths []int) []float64 {
	T, D := tab.T, tab.Depth
	if len(theta) != len(lengths)*T {
		panic(fmt.Sprintf("topictree: PathShares: %d values for %d documents of %d topics", len(theta), len(lengths), T))
	}
	p := make([]float64, T)
	sub := make([]float64, T)
	tail := make([]float64, D+1)
	var words float64
	for i, n := range lengths {
		if n <= 0 {
			continue
		}
		w := float64(n)
		words += w
		row := theta[i*T : (i+1)*T]
		clear(tail)
		for t, v := range row {
			sub[t] = float64(v)
			tail[tab.Level[t]] += float64(v)
		}
		for l := D - 1; l >= 0; l-- {
			tail[l] += tail[l+1]
		}
		tab.SubtreeSums(sub)
		for t := range T {
			if tl := tail[tab.Level[t]]; tl > 0 {
				p[t] += w * sub[t] / tl
			}
		}
	}
	for t := range p {
		p[t] /= max(words, 1)
	}
	return p
}

// UpdateOptions are the growth and pruning thresholds.
type UpdateOptions struct {
	Add   float64 // s_add: a non-leaf topic with s_t > Add gets one new child
	Prune float64 // s_prune: a non-root topic whose subtree mass < Prune is removed with its subtree
	// Path, when set (T, dense rows, from PathShares), is what Prune is
	// compared with instead of the subtree mass: a topic is pruned when
	// fewer than that share of the words' documents choose a path through
	// it. Under a level prior that gives every level its share, a leaf's
	// subtree mass is its path share times its level's share, so the
	// paper's rule would prune specific topics that their documents need.
	Path []float64
	// KeepDepth keeps every path at the tree's depth: additions go only
	// to topics on the level above the deepest (so a new topic is a leaf
	// at the deepest level), and pruning never removes all the children
	// of a topic it keeps (the child of largest mass stays). Without it a
	// new child of the root, say, is a leaf two levels above the others:
	// under the level stick-breaking it takes the mass of every level
	// below its own, and starts as an untrained topic holding several
	// levels' words; and a kept topic whose children are all pruned
	// becomes such a leaf.
	KeepDepth bool
	// GrowLeaves lets a leaf with s_t > Add get a first child (if the depth
	// limit allows). Off by default, as in the paper, whose rule adds
	// children only to non-leaf topics: then no topic ever gets deeper than
	// the initial tree, and depth only shrinks (by pruning). With
	// GrowLeaves the tree can deepen up to Limits.MaxDepth.
	GrowLeaves bool
}

// DefaultUpdateOptions are the paper's thresholds, s_add = s_prune = 0.05.
var DefaultUpdateOptions = UpdateOptions{Add: 0.05, Prune: 0.05}

// ChangeOp says what a Change did.
type ChangeOp string

// Change operations.
const (
	Added   ChangeOp = "add"
	Removed ChangeOp = "remove"
)

// Change records one topic added or removed by Update, for logs and for
// adding or dropping per-topic parameters.
type Change struct {
	Op     ChangeOp
	ID     int // the topic added or removed
	Parent int // its parent's id
	Level  int
	// Share is what triggered the change: the parent's s_t for an add, the
	// removed topic's subtree mass for a remove.
	Share float64
}

func (c Change) String() string {
	if c.Op == Added {
		return fmt.Sprintf("add topic %d under %d (level %d; parent share %.4f)", c.ID, c.Parent, c.Level, c.Share)
	}
	return fmt.Sprintf("remove topic %d from %d (level %d; subtree share %.4f)", c.ID, c.Parent, c.Level, c.Share)
}

// UpdateResult describes what Update changed.
type UpdateResult struct {
	// Changes lists removals first (in old row order, each pruned subtree's
	// topics individually), then additions (in the order of their parents'
	// old rows).
	Changes []Change
	// RowMap maps each old dense row to its new row, -1 if removed.
	RowMap []int
	// OldRow maps each new dense row to its old row, -1 for an added topic.
	OldRow []int
}

// Changed reports whether the tree changed.
func (r UpdateResult) Changed() bool { return len(r.Changes) > 0 }

// RemapRows returns the per-topic matrix old (oldT rows × cols, row-major) in
// the new row order: kept rows are copied and added topics' rows are left
// zero, for the caller to initialise (their new rows are where OldRow is -1).
func (r UpdateResult) RemapRows(old []float32, cols int) []float32 {
	if len(old) != len(r.RowMap)*cols {
		panic(fmt.Sprintf("topictree: RemapRows: %d values for %d rows of %d", len(old), len(r.RowMap), cols))
	}
	out := make([]float32, len(r.OldRow)*cols)
	for nr, or := range r.OldRow {
		if or >= 0 {
			copy(out[nr*cols:(nr+1)*cols], old[or*cols:(or+1)*cols])
		}
	}
	return out
}

// Update grows and prunes the tree from the topic shares s (T, by current
// dense row, as from ShareAccumulator), following the paper's section 4.3.
//
// One update applies both rules, prune first, then add on the pruned tree,
// with every decision taken on the shares measured on the current tree:
//
//  1. Prune: every non-root topic whose subtree mass (s_t plus the s of all
//     its descendants) is below opt.Prune is removed together with its
//     subtree. (Masses shrink going down, so a removed topic's descendants
//     qualify too.) A parent left without children
//     becomes a leaf.
//  2. Add: every surviving topic that is not a leaf of the pruned tree and
//     has s_t > opt.Add gets one new child, appended as its last sibling,
//     unless it already has Limits.MaxChildren children. With
//     opt.GrowLeaves, a leaf with s_t > opt.Add gets a first child if its
//     level + 1 is below Limits.MaxDepth. A topic that lost all its
//     children in step 1 is a leaf by then, so it gets a new child only
//     with GrowLeaves: step 1 judged its old children too small, and the
//     paper grows only non-leaf topics.
//
// Pruning first means a topic's new child is never pruned in the same
// update (it has no share yet), and the limits are checked against the tree
// that the new child joins. New topics get fresh ids above every id used
// before. Tables are rebuilt once at the end. s must have one finite,
// non-negative value per topic; on error the tree is unchanged.
func (t *Tree) Update(s []float64, opt UpdateOptions) (UpdateResult, error) {
	tb := t.tab
	if len(s) != tb.T {
		return UpdateResult{}, fmt.Errorf("topictree: update: %d shares for %d topics", len(s), tb.T)
	}
	for r, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return UpdateResult{}, fmt.Errorf("topictree: update: share of topic %d is %v", tb.ID[r], v)
		}
	}
	if math.IsNaN(opt.Add) || math.IsNaN(opt.Prune) || opt.Add < 0 || opt.Prune < 0 {
		return UpdateResult{}, fmt.Errorf("topictree: update: thresholds add %v, prune %v must be non-negative", opt.Add, opt.Prune)
	}

	// Subtree masses.
	mass := append([]float64(nil), s...)
	tb.SubtreeSums(mass)
	if opt.Path != nil {
		if len(opt.Path) != tb.T {
			return UpdateResult{}, fmt.Errorf("topictree: update: %d path shares for %d topics", len(opt.Path), tb.T)
		}
		for r, v := range opt.Path {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return UpdateResult{}, fmt.Errorf("topictree: update: path share of topic %d is %v", tb.ID[r], v)
			}
		}
		mass = opt.Path
	}

	var res UpdateResult
	oldRow := make(map[int]int, tb.T)
	for r, id := range tb.ID {
		oldRow[id] = r
	}

	// 1. Prune. In dense order a removed topic's ancestors come first, so
	// checking "parent still present" finds the top of each pruned subtree.
	removed := make([]bool, tb.T)
	var keep map[int]bool // KeepDepth: each topic's child of largest mass
	if opt.KeepDepth {
		keep = map[int]bool{}
		best := map[int32]int{}
		for r := 1; r < tb.T; r++ {
			p := tb.Parent[r]
			if b, ok := best[p]; !ok || mass[r] > mass[b] {
				best[p] = r
			}
		}
		for _, r := range best {
			keep[r] = true
		}
	}
	for r := 1; r < tb.T; r++ {
		if removed[tb.Parent[r]] {
			removed[r] = true
		} else if mass[r] < opt.Prune && !keep[r] {
			removed[r] = true
			t.detach(tb.ID[r])
		}
	}
	for r := 1; r < tb.T; r++ {
		if removed[r] {
			res.Changes = append(res.Changes, Change{Op: Removed, ID: tb.ID[r], Parent: tb.ID[tb.Parent[r]], Level: int(tb.Level[r]), Share: mass[r]})
		}
	}

	// 2. Add, on the pruned tree, in old row order.
	var cand []int
	for r := range tb.T {
		if removed[r] || !(s[r] > opt.Add) {
			continue
		}
		n := t.nodes[tb.ID[r]]
		if len(n.children) == 0 && (!opt.GrowLeaves || n.level+1 >= t.lim.MaxDepth) {
			continue
		}
		if len(n.children) >= t.lim.MaxChildren {
			continue
		}
		if opt.KeepDepth && len(n.children) > 0 && n.level+2 != tb.Depth {
			continue
		}
		cand = append(cand, r)
	}
	for _, r := range cand {
		id := tb.ID[r]
		c := t.attach(id)
		res.Changes = append(res.Changes, Change{Op: Added, ID: c, Parent: id, Level: t.nodes[id].level + 1, Share: s[r]})
	}

	if !res.Changed() {
		res.RowMap = identity(tb.T)
		res.OldRow = identity(tb.T)
		return res, nil
	}
	t.rebuild()
	res.RowMap = make([]int, tb.T)
	for r := range res.RowMap {
		res.RowMap[r] = -1
	}
	res.OldRow = make([]int, t.tab.T)
	for nr, id := range t.tab.ID {
		or, ok := oldRow[id]
		if !ok {
			res.OldRow[nr] = -1
			continue
		}
		res.OldRow[nr] = or
		res.RowMap[or] = nr
	}
	return res, nil
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}
