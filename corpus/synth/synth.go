// Package synth generates the built-in corpus: a document graph with a
// planted topic tree, the default data when a user gives none, and the
// source of large graphs for scale tests.
//
// # Generative model
//
// The tree has Depth levels (level 0 is the root) and Branching children per
// non-leaf topic, numbered breadth-first: root 0, its children 1..B, then
// their children, so every subtree's leaves are contiguous. The default
// (depth 3, branching 3) has 13 topics. Topics speak readable English: the
// root general words, each level-1 topic a field (science, sports, cooking,
// music), each level-2 topic a sub-field (astronomy, football, baking, jazz,
// ...). Each topic owns a disjoint block of about Vocab/T words; its word
// distribution is Zipf over its own words (exponent 1, list order) mixed
// with a small uniform leak over the whole vocabulary:
//
//	β_t(w) = (1-ε)·[w owned by t]·r_t(w)^-1 / H_t + ε/V,   ε = 0.05
//
// where r_t(w) is w's rank in t's list and H_t the normaliser.
//
// A document picks a leaf (branch weights drawn once per tree from a
// symmetric Dirichlet(4), so classes are mildly unbalanced), then a level
// mixture δ ~ Dirichlet(c·m) whose mean m_l ∝ exp(s·l/(Depth-1)) depends on
// a per-document specificity s ~ Uniform(-1.5, 2.5): general documents (s <
// 0) put more mass near the root, specific ones near the leaf. Its length is
// log-normal (σ = 0.5) with mean MeanLength. Each token picks a level from δ
// and a word from that level's topic on the document's path.
//
// Links follow the tree and a heavy-tailed activity: each document has an
// activity a ~ LogNormal(0, 1); a link's first end is drawn ∝ a (except
// that when Links ≥ Docs the first Docs links start at each document in
// turn, so none is isolated), its second end ∝ a within the same leaf (probability 0.7), the same level-1
// branch (0.2) or the whole corpus (0.1). Self-links and repeats are
// redrawn, so the graph has exactly Links links. Degrees are then
// heavy-tailed: a few hubs, many documents with one or two links.
//
// Labels are the level-1 branch, named after its field.
//
// # Vocabulary beyond the word lists
//
// The hand-written lists hold about 50 words per topic for 4 fields of 4
// sub-fields. A topic that needs more words than its list (large Vocab), or
// has no list (Branching > 4, Depth > 3), gets compounds of the words on
// its path, own list first: "telescope-galaxy", "telescope-star", ... (pairs
// at increasing distance in the list), then numbered compounds
// "telescope-galaxy-2" if even those run out. Unthemed topics are named by
// their position, e.g. "topic-1.5". The vocabulary file is sorted
// alphabetically, so word ids carry no trace of the topics.
//
// Generation uses flat arrays only (no per-document allocation): 500,000
// documents and 1,000,000 links take seconds and well under 1 GB.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
)

// Model constants (see the package documentation).
const (
	// Leak is ε, the uniform share of every topic's word distribution.
	Leak = 0.05
	// ZipfExponent shapes a topic's distribution over its own words.
	ZipfExponent = 1.0
	// PSameLeaf and PSameBranch are the probabilities that a link's second
	// end is drawn from the first end's leaf or level-1 branch; the rest is
	// drawn from the whole corpus.
	PSameLeaf   = 0.7
	PSameBranch = 0.2

	branchAlpha      = 4.0 // Dirichlet concentration of child weights
	mixConcentration = 8.0 // c in δ ~ Dirichlet(c·m)
	lengthSigma      = 0.5
	activitySigma    = 1.0
)

// Limits keep configurations within what int32 ids and memory allow.
const (
	MaxDocs      = 50_000_000
	MaxDepth     = 6
	MaxBranching = 32
	MaxTopics    = 100_000
	MaxVocab     = 10_000_000
	MaxTokens    = 2_000_000_000
)

// Config sets the size and shape of a generated corpus.
type Config struct {
	Docs       int    `json:"docs"`        // number of documents
	Vocab      int    `json:"vocab"`       // vocabulary size
	Depth      int    `json:"depth"`       // levels of the planted tree, root included (≥ 2)
	Branching  int    `json:"branching"`   // children per non-leaf topic (≥ 2)
	Links      int    `json:"links"`       // number of undirected links (mean degree 2·Links/Docs)
	MeanLength int    `json:"mean_length"` // mean document length in tokens
	Seed       uint64 `json:"seed"`        // same seed, same corpus
}

// Default is the built-in corpus: small enough that training on it takes a
// short while on two cores, with the paper's initial tree shape (13 topics)
// and a mean degree of 4.
func Default() Config {
	return Config{Docs: 1500, Vocab: 600, Depth: 3, Branching: 3, Links: 3000, MeanLength: 60, Seed: 1}
}

// NumTopics is the number of topics in the planted tree.
func (c Config) NumTopics() int {
	n, p := 0, 1
	for l := 0; l < c.Depth; l++ {
		n += p
		p *= c.Branching
	}
	return n
}

// Validate reports the first parameter out of range, in user terms.
func (c Config) Validate() error {
	switch {
	case c.Docs < 2 || c.Docs > MaxDocs:
		return fmt.Errorf("synth: documents must be between 2 and %d, got %d", MaxDocs, c.Docs)
	case c.Depth < 2 || c.Depth > MaxDepth:
		return fmt.Errorf("synth: depth must be between 2 (root and one level) and %d, got %d", MaxDepth, c.Depth)
	case c.Branching < 2 || c.Branching > MaxBranching:
		return fmt.Errorf("synth: branching must be between 2 and %d, got %d", MaxBranching, c.Branching)
	case c.MeanLength < 1:
		return fmt.Errorf("synth: mean document length must be at least 1, got %d", c.MeanLength)
	case c.Links < 0:
		return fmt.Errorf("synth: links must be non-negative, got %d", c.Links)
	}
	t := c.NumTopics()
	if t > MaxTopics {
		return fmt.Errorf("synth: depth %d and branching %d make %d topics, more than %d", c.Depth, c.Branching, t, MaxTopics)
	}
	if c.Vocab < 3*t || c.Vocab > MaxVocab {
		return fmt.Errorf("synth: vocabulary must be between %d (3 words per topic for %d topics) and %d, got %d", 3*t, t, MaxVocab, c.Vocab)
	}
	if float64(c.Docs)*float64(c.MeanLength)*1.1 > MaxTokens {
		return fmt.Errorf("synth: %d documents of mean length %d exceed %d tokens", c.Docs, c.MeanLength, MaxTokens)
	}
	// Links are drawn mostly inside leaves; ask for at most a quarter of all
	// possible pairs so that rejection of repeats stays cheap.
	if maxLinks := float64(c.Docs) * float64(c.Docs-1) / 8; float64(c.Links) > maxLinks {
		return fmt.Errorf("synth: %d links is too dense for %d documents (at most %d)", c.Links, c.Docs, int64(maxLinks))
	}
	return nil
}

// Truth is the planted structure, for tests of topic recovery and for users
// who want to see what a model should find.
type Truth struct {
	Depth, Branching int

	// Per topic, breadth-first (root 0): parent (-1 for the root), level,
	// name ("science/astronomy") and owned word ids, most probable first.
	Parent []int32
	Level  []int32
	Names  []string
	Words  [][]int32
	Vocab  int // vocabulary size, for WordDist

	// Per document: its planted leaf and its level mixture δ, Depth weights
	// per document, row-major (Docs, Depth), root level first.
	Leaf []int32
	Mix  []float32
}

// NumTopics is the number of planted topics.
func (t *Truth) NumTopics() int { return len(t.Parent) }

// Path returns the topics from the root down to leaf.
func (t *Truth) Path(leaf int32) []int32 {
	p := make([]int32, t.Level[leaf]+1)
	for k := leaf; k >= 0; k = t.Parent[k] {
		p[t.Level[k]] = k
	}
	return p
}

// Branch returns the level-1 topic above topic k (k itself at level 1), or
// -1 for the root. Document labels are Branch(Leaf[i]) - 1.
func (t *Truth) Branch(k int32) int32 {
	if k <= 0 {
		return -1
	}
	for t.Level[k] > 1 {
		k = t.Parent[k]
	}
	return k
}

// WordDist returns β_t, topic t's distribution over the whole vocabulary.
func (t *Truth) WordDist(topic int) []float64 {
	beta := make([]float64, t.Vocab)
	for w := range beta {
		beta[w] = Leak / float64(t.Vocab)
	}
	z := zipfWeights(len(t.Words[topic]), nil)
	for r, w := range t.Words[topic] {
		beta[w] += (1 - Leak) * z[r]
	}
	return beta
}

// Theta returns document i's planted distribution over all topics: the
// level mixture placed on the topics of its path.
func (t *Truth) Theta(i int) []float64 {
	theta := make([]float64, t.NumTopics())
	for l, k := range t.Path(t.Leaf[i]) {
		theta[k] = float64(t.Mix[i*t.Depth+l])
	}
	return theta
}

// zipfWeights returns n normalised weights ∝ (rank+1)^-ZipfExponent,
// reusing out when it is large enough.
func zipfWeights(n int, out []float64) []float64 {
	if cap(out) < n {
		out = make([]float64, n)
	}
	out = out[:n]
	sum := 0.0
	for r := range out {
		out[r] = math.Pow(float64(r+1), -ZipfExponent)
		sum += out[r]
	}
	for r := range out {
		out[r] /= sum
	}
	return out
}

// Generate draws a corpus from cfg. The graph satisfies the corpus
// invariants (sorted unique links, adjacency built) and is named "builtin".
func Generate(cfg Config) (*corpus.Graph, *Truth, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed_c0de_9e37_79b9))
	tr := newTree(cfg)
	vocab := tr.assignWords(cfg.Vocab)

	g := &corpus.Graph{Name: "builtin", Vocab: vocab}
	leafProb := tr.leafWeights(rng)
	tr.drawDocs(rng, cfg, leafProb, g)
	links, err := drawLinks(rng, cfg, tr, tr.truth.Leaf)
	if err != nil {
		return nil, nil, err
	}
	g.SetLinks(links)

	g.Labels = make([]int32, cfg.Docs)
	for i, leaf := range tr.truth.Leaf {
		g.Labels[i] = tr.truth.Branch(leaf) - 1
	}
	g.LabelNames = make([]string, cfg.Branching)
	for b := range g.LabelNames {
		g.LabelNames[b] = tr.truth.Names[b+1]
	}
	return g, tr.truth, nil
}

// tree holds the planted topics while generating.
type tree struct {
	truth     *Truth
	themes    []*theme // per topic; nil when unthemed
	firstLeaf int32    // leaves are topics firstLeaf..T-1
}

func newTree(cfg Config) *tree {
	T := cfg.NumTopics()
	tr := &tree{truth: &Truth{Depth: cfg.Depth, Branching: cfg.Branching, Vocab: cfg.Vocab,
		Parent: make([]int32, T), Level: make([]int32, T), Names: make([]string, T), Words: make([][]int32, T)},
		themes: make([]*theme, T)}
	t := tr.truth
	t.Parent[0], t.Names[0], tr.themes[0] = -1, general.name, &general
	pos := []string{""} // dotted child-index path, for unthemed names
	next := 1
	for k := 0; next < T; k++ {
		for c := 0; c < cfg.Branching; c++ {
			id := next
			next++
			t.Parent[id], t.Level[id] = int32(k), t.Level[k]+1
			var subs []theme
			switch {
			case k == 0:
				subs = fields
			case tr.themes[k] != nil:
				subs = tr.themes[k].subs
			}
			p := strconv.Itoa(c + 1)
			if pos[k] != "" {
				p = pos[k] + "." + p
			}
			pos = append(pos, p)
			name := "topic-" + p
			if c < len(subs) {
				tr.themes[id] = &subs[c]
				name = subs[c].name
			}
			if k != 0 {
				name = t.Names[k] + "/" + name
			}
			t.Names[id] = name
		}
	}
	tr.firstLeaf = int32(T - pow(cfg.Branching, cfg.Depth-1))
	return tr
}

func pow(b, e int) int {
	p := 1
	for range e {
		p *= b
	}
	return p
}

// assignWords gives each topic its block of words (see the package
// documentation), sorts the vocabulary, and records each topic's word ids.
func (tr *tree) assignWords(V int) []string {
	t := tr.truth
	T := len(t.Parent)
	used := make(map[string]bool, V)
	owned := make([][]string, T)
	for k := 0; k < T; k++ {
		quota := V / T
		if k < V%T {
			quota++
		}
		owned[k] = tr.wordsFor(k, quota, used)
	}
	vocab := make([]string, 0, V)
	for _, ws := range owned {
		vocab = append(vocab, ws...)
	}
	sort.Strings(vocab)
	id := make(map[string]int32, V)
	for i, w := range vocab {
		id[w] = int32(i)
	}
	for k, ws := range owned {
		t.Words[k] = make([]int32, len(ws))
		for r, w := range ws {
			t.Words[k][r] = id[w]
		}
	}
	return vocab
}

// wordsFor returns n unused words for topic k: its list, then compounds.
func (tr *tree) wordsFor(k, n int, used map[string]bool) []string {
	out := make([]string, 0, n)
	take := func(w string) bool {
		if !used[w] {
			used[w] = true
			out = append(out, w)
		}
		return len(out) == n
	}
	if th := tr.themes[k]; th != nil {
		for _, w := range th.words {
			if take(w) {
				return out
			}
		}
	}
	// Compound base: the word lists on the path, own list first.
	var base []string
	for a := int32(k); a >= 0; a = tr.truth.Parent[a] {
		if th := tr.themes[a]; th != nil {
			base = append(base, th.words...)
		}
	}
	m := len(base)
	for d := 1; d < m; d++ {
		for i := 0; i < m; i++ {
			if take(base[i] + "-" + base[(i+d)%m]) {
				return out
			}
		}
	}
	for num := 2; ; num++ {
		for d := 1; d < m; d++ {
			for i := 0; i < m; i++ {
				if take(base[i] + "-" + base[(i+d)%m] + "-" + strconv.Itoa(num)) {
					return out
				}
			}
		}
	}
}

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
