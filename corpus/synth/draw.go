package synth

// Drawing the documents and links from the planted tree.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gtformer/gtformer/corpus"
)

// leafWeights draws child weights for every non-leaf topic and returns the
// probability of each leaf (product along its path), indexed by leaf-firstLeaf.
func (tr *tree) leafWeights(rng *rand.Rand) []float64 {
	t := tr.truth
	T := len(t.Parent)
	B := t.Branching
	mass := make([]float64, T)
	mass[0] = 1
	alpha := make([]float64, B)
	for i := range alpha {
		alpha[i] = branchAlpha
	}
	w := make([]float64, B)
	for k := 0; k < int(tr.firstLeaf); k++ {
		dirichlet(rng, alpha, w)
		first := 1 + k*B // breadth-first numbering
		for c := 0; c < B; c++ {
			mass[first+c] = mass[k] * w[c]
		}
	}
	return mass[tr.firstLeaf:]
}

// drawDocs draws each document's leaf, level mixture and length, then its
// tokens, filling g.DocPtr, g.Tokens and the truth.
func (tr *tree) drawDocs(rng *rand.Rand, cfg Config, leafProb []float64, g *corpus.Graph) {
	t := tr.truth
	N, D := cfg.Docs, cfg.Depth
	nLeaves := len(leafProb)
	scratch := make([]int32, 2*max(nLeaves, cfg.Vocab))
	leaves := newAliasTable(nLeaves)
	leaves.build(0, leafProb, scratch[:nLeaves], scratch[nLeaves:2*nLeaves])

	t.Leaf = make([]int32, N)
	t.Mix = make([]float32, N*D)
	g.DocPtr = make([]int64, N+1)
	mu := math.Log(float64(cfg.MeanLength)) - lengthSigma*lengthSigma/2
	maxLen := 20 * cfg.MeanLength
	alpha := make([]float64, D)
	delta := make([]float64, D)
	for i := 0; i < N; i++ {
		t.Leaf[i] = tr.firstLeaf + int32(leaves.sample(rng, 0, nLeaves))
		s := -1.5 + 4*rng.Float64()
		sum := 0.0
		for l := range alpha {
			alpha[l] = math.Exp(s * float64(l) / float64(D-1))
			sum += alpha[l]
		}
		for l := range alpha {
			alpha[l] *= mixConcentration / sum
		}
		dirichlet(rng, alpha, delta)
		for l, x := range delta {
			t.Mix[i*D+l] = float32(x)
		}
		n := int(math.Round(math.Exp(mu + lengthSigma*rng.NormFloat64())))
		n = min(max(n, 1), maxLen)
		g.DocPtr[i+1] = g.DocPtr[i] + int64(n)
	}

	// Word samplers: one alias window per topic over its own words.
	T := len(t.Parent)
	wordOff := make([]int, T+1)
	for k := range T {
		wordOff[k+1] = wordOff[k] + len(t.Words[k])
	}
	words := newAliasTable(wordOff[T])
	var z []float64
	for k := range T {
		n := len(t.Words[k])
		z = zipfWeights(n, z)
		words.build(wordOff[k], z, scratch[:n], scratch[n:2*n])
	}

	g.Tokens = make([]int32, g.DocPtr[N])
	path := make([]int32, D)
	cum := make([]float32, D)
	V := uint64(cfg.Vocab)
	for i := 0; i < N; i++ {
		for k, l := t.Leaf[i], D-1; l >= 0; k, l = t.Parent[k], l-1 {
			path[l] = k
		}
		c := float32(0)
		for l := range cum {
			c += t.Mix[i*D+l]
			cum[l] = c
		}
		cum[D-1] = 2 // the last level takes the rest, whatever the rounding
		for p := g.DocPtr[i]; p < g.DocPtr[i+1]; p++ {
			r := rng.Uint64()
			u := float32(uint32(r)) * (1.0 / (1 << 32))
			if u < Leak {
				g.Tokens[p] = int32((r >> 32) * V >> 32)
				continue
			}
			u = (u - Leak) / (1 - Leak) // reuse the uniform for the level
			l := 0
			for u >= cum[l] {
				l++
			}
			k := path[l]
			n := wordOff[k+1] - wordOff[k]
			g.Tokens[p] = t.Words[k][words.sample(rng, wordOff[k], n)]
		}
	}
}

// drawLinks draws cfg.Links distinct undirected links (see the package
// documentation).
func drawLinks(rng *rand.Rand, cfg Config, tr *tree, leaf []int32) ([][2]int32, error) {
	N := cfg.Docs
	if cfg.Links == 0 {
		return nil, nil
	}
	nLeaves := len(tr.truth.Parent) - int(tr.firstLeaf)
	B := cfg.Branching
	leavesPerBranch := nLeaves / B

	// Documents ordered by leaf (counting sort); leaves of a branch are
	// contiguous, so leaf and branch groups are windows of one order.
	leafStart := make([]int, nLeaves+1)
	for _, l := range leaf {
		leafStart[int(l-tr.firstLeaf)+1]++
	}
	for j := 0; j < nLeaves; j++ {
		leafStart[j+1] += leafStart[j]
	}
	order := make([]int32, N)
	pos := make([]int32, N) // document -> index in order
	fill := slices.Clone(leafStart[:nLeaves])
	for i, l := range leaf {
		j := int(l - tr.firstLeaf)
		order[fill[j]] = int32(i)
		pos[i] = int32(fill[j])
		fill[j]++
	}
	fill = nil

	// Activities are i.i.d., so they are drawn directly in order's order.
	act := make([]float64, N)
	for k := range act {
		act[k] = math.Exp(activitySigma * rng.NormFloat64())
	}
	small := make([]int32, N)
	large := make([]int32, N)
	global := newAliasTable(N)
	global.build(0, act, small, large)
	byLeaf := newAliasTable(N)
	for j := 0; j < nLeaves; j++ {
		if a, b := leafStart[j], leafStart[j+1]; b > a {
			byLeaf.build(a, act[a:b], small, large)
		}
	}
	byBranch := newAliasTable(N)
	for br := 0; br < B; br++ {
		a, b := leafStart[br*leavesPerBranch], leafStart[(br+1)*leavesPerBranch]
		if b > a {
			byBranch.build(a, act[a:b], small, large)
		}
	}
	act, small, large = nil, nil, nil

	seen := make(map[uint64]struct{}, cfg.Links)
	links := make([][2]int32, 0, cfg.Links)
	maxAttempts := 50*int64(cfg.Links) + 10_000
	for attempts := int64(0); len(links) < cfg.Links; attempts++ {
		if attempts == maxAttempts {
			return nil, fmt.Errorf("synth: drew only %d distinct links of %d after %d attempts; ask for fewer links or more documents", len(links), cfg.Links, attempts)
		}
		// While there are at least as many links as documents, the first N
		// links start at each document in turn, so no document is isolated
		// (as in the citation benchmarks, where every paper cites or is
		// cited); the rest start at documents drawn by activity.
		var src int // index in order
		if cfg.Links >= N && len(links) < N {
			src = int(pos[len(links)])
		} else {
			src = global.sample(rng, 0, N)
		}
		j := int(leaf[order[src]] - tr.firstLeaf)
		var a, b int
		var tab *aliasTable
		switch u := rng.Float64(); {
		case u < PSameLeaf:
			a, b, tab = leafStart[j], leafStart[j+1], byLeaf
		case u < PSameLeaf+PSameBranch:
			br := j / leavesPerBranch
			a, b, tab = leafStart[br*leavesPerBranch], leafStart[(br+1)*leavesPerBranch], byBranch
		default:
			a, b, tab = 0, N, global
		}
		dst := a + tab.sample(rng, a, b-a)
		x, y := order[src], order[dst]
		if x == y {
			continue
		}
		if x > y {
			x, y = y, x
		}
		key := uint64(x)<<32 | uint64(y)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		links = append(links, [2]int32{x, y})
	}
	return links, nil
}
