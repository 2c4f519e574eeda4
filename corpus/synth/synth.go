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

// LabelByLeaf relabels g, drawn with truth t, by each document's planted
// leaf instead of its level-1 branch: labels 0..leaves-1 in topic order,
// named after the leaves ("science/astronomy"). Leaf labels make kNN and
// classification measure the specific topics, which field labels (three
// classes on the default tree) cannot tell apart.
func (t *Truth) LabelByLeaf(g *corpus.Graph) {
	first := int32(len(t.Parent))
	for k := range t.Parent {
		if int(t.Level[k]) == t.Depth-1 {
			first = int32(k)
			break
		}
	}
	g.LabelNames = slices.Clone(t.Names[first:])
	g.Labels = make([]int32, len(t.Leaf))
	for i, leaf := range t.Leaf {
		g.Labels[i] = leaf - first
	}
}
