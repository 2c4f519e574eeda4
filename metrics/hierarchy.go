package metrics

import (
	"math"
)

// Hierarchy is a topic tree as the hierarchy measures read it: for each
// topic t (a dense row, as in β and θ), its parent's row (−1 for the root)
// and its level (0 for the root).
type Hierarchy struct {
	Parent []int
	Level  []int
}

// Depth is the number of levels.
func (h Hierarchy) Depth() int {
	d := 0
	for _, l := range h.Level {
		d = max(d, l+1)
	}
	return d
}

// LevelShares returns, root level first, the share of the documents' words
// that each level of the tree holds:
//
//	level_share_l = Σ_i |d_i| Σ_{t at level l} θ_it / Σ_i |d_i|
//
// theta is (N,T) row-major and lengths[i] = |d_i|. The shares sum to 1 when
// every θ row does.
func LevelShares(theta []float32, lengths []int, h Hierarchy) []float64 {
	T := len(h.Level)
	share := make([]float64, h.Depth())
	var total float64
	for i, n := range lengths {
		w := float64(n)
		for t, v := range theta[i*T : (i+1)*T] {
			share[h.Level[t]] += w * float64(v)
		}
		total += w
	}
	if total > 0 {
		for l := range share {
			share[l] /= total
		}
	}
	return share
}

// Specialization returns, root level first, the mean over each level's
// topics of 1 − cos(β_t, u), with u the corpus's word distribution (Kim et
// al., 2012, "Modeling topic hierarchies with the recursive Chinese
// restaurant process"): a topic that merely repeats the corpus's word
// frequencies scores 0, a topic on words the corpus rarely uses near 1. In
// a hierarchy worth the name it rises with depth. beta is (T,V).
func Specialization(beta []float32, unigram []float64, h Hierarchy) []float64 {
	T, V := len(h.Level), len(unigram)
	var uu float64
	for _, u := range unigram {
		uu += u * u
	}
	sum := make([]float64, h.Depth())
	cnt := make([]int, h.Depth())
	for t := 0; t < T; t++ {
		var bb, bu float64
		for w, b := range beta[t*V : (t+1)*V] {
			bb += float64(b) * float64(b)
			bu += float64(b) * unigram[w]
		}
		cos := 0.0
		if bb > 0 && uu > 0 {
			cos = bu / math.Sqrt(bb*uu)
		}
		sum[h.Level[t]] += 1 - cos
		cnt[h.Level[t]]++
	}
	for l := range sum {
		sum[l] /= float64(max(cnt[l], 1))
	}
	return sum
}

// Affinity holds the affinity and diversity measures of a topic hierarchy
// (TraCo, Wu et al., AAAI 2024, "On the affinity, rationality, and
// diversity of hierarchical topic modeling", as the TopMost toolkit
// computes them); each is averaged over the parent-child levels:
//
//   - PCC, parent-child coherence: for each parent p and child c with top
//     word sets P and C, the NPMI of every cross pair (w ∈ P∖C, w' ∈ C∖P),
//     and −1 for each of the |P∩C|² pairs of repeated words; averaged over
//     the level's pairs. A child should be about what its parent is about.
//   - PCD, parent-child diversity: for each parent-child pair, the share of
//     the two top lists' words that occur in only one of them. A child
//     should not repeat its parent.
//   - SD, sibling diversity: for each group of two or more siblings, the
//     share of their top lists' words that occur in only one list.
//   - PnCD, parent-non-child diversity: PCD's share for each parent (a
//     topic with children) and each topic of the next level that is not
//     its child.
//
// TopMost counts a word as diverse only when it occurs once (the overall
// TopicDiversity counts distinct words); these follow TopMost. NaN where a
// tree has no such pairs (a flat tree has no non-child pairs, say).
type Affinity struct {
	PCC, PCD, SD, PnCD float64
}

// HierarchyAffinity computes Affinity from each topic's top words (dense
// rows; the paper's protocol uses the top 10) against reference r.
func (r *Reference) HierarchyAffinity(top [][]int32, h Hierarchy) Affinity {
	D := h.Depth()
	children := make([][]int, len(h.Parent))
	for t, p := range h.Parent {
		if p >= 0 {
			children[p] = append(children[p], t)
		}
	}
	byLevel := make([][]int, D)
	for t, l := range h.Level {
		byLevel[l] = append(byLevel[l], t)
	}
	pcc := make([]levelMean, D)
	pcd := make([]levelMean, D)
	sd := make([]levelMean, D)
	pncd := make([]levelMean, D)
	for p := range h.Parent {
		l := h.Level[p]
		for _, c := range children[p] {
			pcc[l].addAll(r.crossNPMI(top[p], top[c]))
			pcd[l].add(onceShare(top[p], top[c]))
		}
		if len(children[p]) >= 2 {
			var lists [][]int32
			for _, c := range children[p] {
				lists = append(lists, top[c])
			}
			sd[l+1].add(onceShare(lists...))
		}
		if len(children[p]) > 0 { // a parent: its non-children at the next level
			for _, u := range byLevel[l+1] {
				if h.Parent[u] != p {
					pncd[l].add(onceShare(top[p], top[u]))
				}
			}
		}
	}
	return Affinity{PCC: meanOfLevels(pcc), PCD: meanOfLevels(pcd), SD: meanOfLevels(sd), PnCD: meanOfLevels(pncd)}
}

// crossNPMI returns the NPMI of every pair (w ∈ a∖b, w' ∈ b∖a) and −1 for
// each of the |a∩b|² pairs of shared words.
func (r *Reference) crossNPMI(a, b []int32) []float64 {
	inA, inB := set(a), set(b)
	var out []float64
	shared := 0
	for _, w := range a {
		if inB[w] {
			shared++
			continue
		}
		for _, v := range b {
			if !inA[v] {
				out = append(out, r.PairNPMI(w, v))
			}
		}
	}
	for range shared * shared {
		out = append(out, -1)
	}
	return out
}

// onceShare returns the share of the lists' words (all occurrences counted)
// that occur exactly once across them.
func onceShare(lists ...[]int32) float64 {
	count := map[int32]int{}
	total := 0
	for _, l := range lists {
		for _, w := range l {
			count[w]++
			total++
		}
	}
	if total == 0 {
		return math.NaN()
	}
	once := 0
	for _, c := range count {
		if c == 1 {
			once++
		}
	}
	return float64(once) / float64(total)
}

func set(l []int32) map[int32]bool {
	s := make(map[int32]bool, len(l))
	for _, w := range l {
		s[w] = true
	}
	return s
}

// levelMean accumulates one level's values.
type levelMean struct {
	sum float64
	n   int
}

func (m *levelMean) add(v float64) {
	if !math.IsNaN(v) {
		m.sum += v
		m.n++
	}
}

func (m *levelMean) addAll(vs []float64) {
	for _, v := range vs {
		m.add(v)
	}
}

// meanOfLevels averages the levels' means over the levels that have
// values (TopMost's mean of per-layer means); NaN when none has.
func meanOfLevels(ls []levelMean) float64 {
	var s float64
	n := 0
	for _, l := range ls {
		if l.n > 0 {
			s += l.sum / float64(l.n)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// PerLevel returns f applied to the topics of each level (their rows' top
// word lists), root level first: e.g. NPMI or TopicDiversity per level.
func PerLevel(top [][]int32, h Hierarchy, f func(topics [][]int32) float64) []float64 {
	out := make([]float64, h.Depth())
	for l := range out {
		var topics [][]int32
		for t, lt := range h.Level {
			if lt == l {
				topics = append(topics, top[t])
			}
		}
		out[l] = f(topics)
	}
	return out
}
