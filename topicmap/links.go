package topicmap

import (
	"cmp"
	"fmt"
	"slices"
)

// LinkMap is the link map of one level of the tree: for the level's
// topics i, j the link mass
//
//	M_ij = Σ over links (a, b) of θ_a,i θ_b,j + θ_b,i θ_a,j
//
// with θ restricted to the level and renormalised (every document counts
// once per level; a document with no mass at the level is left out, and
// so are its links), against what the topics' sizes alone would give,
//
//	E_ij = (Σ M) s_i s_j,
//
// s being the topics' share of the link ends' θ; Lift = M / E. M and E
// have the same row sums, so a lift above 1 is a pair linked more than its
// topics' sizes explain.
type LinkMap struct {
	Level   int   `json:"level"`
	Topics  []int `json:"topics"`  // the level's topic ids, in tree order
	Parents []int `json:"parents"` // each one's parent id
	// Links counts the links both of whose ends have mass at the level.
	Links    int         `json:"links"`
	Share    []float64   `json:"share"` // s
	Mass     [][]float64 `json:"mass"`
	Expected [][]float64 `json:"expected"`
	Lift     [][]float64 `json:"lift"` // 0 where E is 0
	// Inside and Across are the mean lift over the unordered pairs of
	// topics inside a branch (the same parent, a topic with itself
	// included; at level 1 only a topic with itself, since every topic
	// there shares the root) and across branches; Self is the mean over a
	// topic with itself, Siblings over distinct topics of one parent (0
	// when there are none). Pairs with E = 0 are left out.
	Inside   float64 `json:"inside"`
	Across   float64 `json:"across"`
	Self     float64 `json:"self"`
	Siblings float64 `json:"siblings"`
	// Pairs are the strongest cross-branch pairs, by lift, among those
	// holding at least MinPairMass of the mass.
	Pairs []Pair `json:"pairs"`
}

// Pair is one pair of topics of a link map.
type Pair struct {
	A        int     `json:"a"` // topic ids
	B        int     `json:"b"`
	Mass     float64 `json:"mass"`
	Expected float64 `json:"expected"`
	Lift     float64 `json:"lift"`
}

// MinPairMass is the least share of a level's link mass a pair must hold
// to be listed among the strongest: a lift over a sliver of mass is noise.
const MinPairMass = 1e-3

// Links computes the link map of tree level level (1 ... depth-1; level 0
// is the root alone) from θ (N, T) and the undirected links, listing at
// most top cross-branch pairs (0: none).
func Links(theta []float32, tree Tree, level int, links [][2]int32, top int) (*LinkMap, error) {
	if err := tree.Check(); err != nil {
		return nil, err
	}
	T := len(tree.ID)
	if len(theta)%T != 0 {
		return nil, fmt.Errorf("topicmap: θ holds %d values, not a multiple of %d topics", len(theta), T)
	}
	N := len(theta) / T
	if d := tree.Depth(); level < 1 || level >= d {
		return nil, fmt.Errorf("%w: level %d: the tree has levels 1 to %d below the root", ErrBadRequest, level, d-1)
	}
	var rows []int
	for r, l := range tree.Level {
		if l == level {
			rows = append(rows, r)
		}
	}
	K := len(rows)
	lm := &LinkMap{Level: level, Share: make([]float64, K)}
	for _, r := range rows {
		lm.Topics = append(lm.Topics, tree.ID[r])
		lm.Parents = append(lm.Parents, tree.ID[tree.Parent[r]])
	}
	// Each document's θ at the level, renormalised; nil without mass.
	at := func(i int, dst []float64) bool {
		th := theta[i*T : (i+1)*T]
		var s float64
		for k, r := range rows {
			dst[k] = float64(th[r])
			s += dst[k]
		}
		if !(s > 0) {
			return false
		}
		for k := range dst {
			dst[k] /= s
		}
		return true
	}
	// M = Σ_i θ_i (Σ_{j linked to i} θ_j)ᵀ over an adjacency list holding
	// each link in both directions: 2·links·K + N·K² multiply-adds rather
	// than links·K² for an outer product per link, and no N×K copy of θ.
	for _, l := range links {
		if int(l[0]) >= N || int(l[1]) >= N || l[0] < 0 || l[1] < 0 {
			return nil, fmt.Errorf("topicmap: link %d-%d outside the %d documents", l[0], l[1], N)
		}
	}
	has := make([]bool, N)
	tmp := make([]float64, K)
	for i := range N {
		has[i] = at(i, tmp)
	}
	ptr := make([]int, N+1)
	for _, l := range links {
		if has[l[0]] && has[l[1]] {
			ptr[l[0]+1]++
			ptr[l[1]+1]++
			lm.Links++
		}
	}
	for i := range N {
		ptr[i+1] += ptr[i]
	}
	adj := make([]int32, ptr[N])
	fill := slices.Clone(ptr[:N])
	for _, l := range links {
		if has[l[0]] && has[l[1]] {
			adj[fill[l[0]]], adj[fill[l[1]]] = l[1], l[0]
			fill[l[0]]++
			fill[l[1]]++
		}
	}
	m := make([]float64, K*K)
	a, b, nb := make([]float64, K), make([]float64, K), make([]float64, K)
	for i := range N {
		if ptr[i] == ptr[i+1] {
			continue
		}
		clear(nb)
		for _, j := range adj[ptr[i]:ptr[i+1]] {
			at(int(j), b)
			for k, x := range b {
				nb[k] += x
			}
		}
		at(i, a)
		for p, x := range a {
			if x == 0 {
				continue
			}
			row := m[p*K : (p+1)*K]
			for q, y := range nb {
				row[q] += x * y
			}
			// Each link end adds its θ to the share once.
			lm.Share[p] += x * float64(ptr[i+1]-ptr[i])
		}
	}
	var total float64
	for _, s := range lm.Share {
		total += s
	}
	for i := range lm.Share {
		if total > 0 {
			lm.Share[i] /= total
		}
	}
	// Σ M = 2 · links (each link's two outer products sum to 1 each).
	sum := 2 * float64(lm.Links)
	lm.Mass, lm.Expected, lm.Lift = square(K), square(K), square(K)
	for i := range K {
		for j := range K {
			e := sum * lm.Share[i] * lm.Share[j]
			lm.Mass[i][j], lm.Expected[i][j] = m[i*K+j], e
			if e > 0 {
				lm.Lift[i][j] = m[i*K+j] / e
			}
		}
	}
	lm.means(top, sum)
	return lm, nil
}

// means sets Inside, Across, Self, Siblings and Pairs.
func (lm *LinkMap) means(top int, sum float64) {
	type acc struct {
		s float64
		n int
	}
	var inside, across, self, sib acc
	add := func(a *acc, x float64) { a.s, a.n = a.s+x, a.n+1 }
	var pairs []Pair
	K := len(lm.Topics)
	for i := range K {
		for j := i; j < K; j++ {
			if lm.Expected[i][j] <= 0 {
				continue
			}
			x := lm.Lift[i][j]
			same := i == j || (lm.Level > 1 && lm.Parents[i] == lm.Parents[j])
			switch {
			case i == j:
				add(&self, x)
				add(&inside, x)
			case same:
				add(&sib, x)
				add(&inside, x)
			default:
				add(&across, x)
				// Each unordered pair's mass is M_ij + M_ji.
				if 2*lm.Mass[i][j] >= MinPairMass*sum {
					pairs = append(pairs, Pair{A: lm.Topics[i], B: lm.Topics[j], Mass: lm.Mass[i][j], Expected: lm.Expected[i][j], Lift: x})
				}
			}
		}
	}
	mean := func(a acc) float64 {
		if a.n == 0 {
			return 0
		}
		return a.s / float64(a.n)
	}
	lm.Inside, lm.Across, lm.Self, lm.Siblings = mean(inside), mean(across), mean(self), mean(sib)
	slices.SortStableFunc(pairs, func(p, q Pair) int { return cmp.Compare(q.Lift, p.Lift) })
	lm.Pairs = pairs[:min(max(top, 0), len(pairs))]
	if lm.Pairs == nil {
		lm.Pairs = []Pair{}
	}
}

func square(k int) [][]float64 {
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, k)
	}
	return out
}
