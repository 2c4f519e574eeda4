package corpus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gtformer/gtformer/internal/parallel"
)

// SetLinks replaces the graph's links with the undirected edges listed in
// pairs (either direction, duplicates and self-links allowed: they are
// dropped) and rebuilds the adjacency CSR. Every id must lie in
// [0, NumDocs()); SetLinks panics otherwise, since loaders check ids against
// the document count before calling it.
func (g *Graph) SetLinks(pairs [][2]int32) {
	n := g.NumDocs()
	keys := make([]uint64, 0, len(pairs))
	for _, p := range pairs {
		a, b := p[0], p[1]
		if a < 0 || b < 0 || int(a) >= n || int(b) >= n {
			panic(fmt.Sprintf("corpus: SetLinks: link %d-%d outside [0,%d)", a, b, n))
		}
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		keys = append(keys, uint64(a)<<32|uint64(b))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	links := make([][2]int32, len(keys))
	for k, key := range keys {
		links[k] = [2]int32{int32(key >> 32), int32(key & 0xffffffff)}
	}
	g.Links = links
	g.AdjPtr, g.AdjIdx = adjacency(n, links)
}

// adjacency builds the symmetric CSR of n nodes from sorted undirected
// links. Because links are sorted by (lo, hi), each row comes out sorted:
// the neighbours below i arrive first (as "hi" of earlier links, in
// increasing lo order), then those above (in increasing hi order).
func adjacency(n int, links [][2]int32) (ptr []int64, idx []int32) {
	ptr = make([]int64, n+1)
	for _, l := range links {
		ptr[l[0]+1]++
		ptr[l[1]+1]++
	}
	for i := 0; i < n; i++ {
		ptr[i+1] += ptr[i]
	}
	idx = make([]int32, 2*len(links))
	fill := make([]int64, n)
	copy(fill, ptr[:n])
	for _, l := range links {
		// l[1] gets l[0] (a smaller id) ...
		idx[fill[l[1]]] = l[0]
		fill[l[1]]++
	}
	for _, l := range links {
		// ... before l[0] gets its larger ids; both passes go in sorted order.
		idx[fill[l[0]]] = l[1]
		fill[l[0]]++
	}
	return ptr, idx
}

// NumLabels is the number of label classes (0 when unlabelled).
func (g *Graph) NumLabels() int {
	if g.Labels == nil {
		return 0
	}
	return len(g.LabelNames)
}

// NumTokens is the total number of word occurrences.
func (g *Graph) NumTokens() int64 { return int64(len(g.Tokens)) }

// Validate checks the graph's invariants: CSR shapes, ids in range, links
// normalised and matching the adjacency, labels named. Loaders produce
// valid graphs; Validate is for graphs built in memory (generators, tests).
func (g *Graph) Validate() error {
	n := g.NumDocs()
	if len(g.DocPtr) == 0 || g.DocPtr[0] != 0 {
		return errors.New("corpus: DocPtr must start with 0 and hold NumDocs+1 offsets")
	}
	if n == 0 {
		return ErrEmpty
	}
	for i := 0; i < n; i++ {
		if g.DocPtr[i+1] < g.DocPtr[i] {
			return fmt.Errorf("corpus: DocPtr decreases at document %d", i)
		}
	}
	if g.DocPtr[n] != int64(len(g.Tokens)) {
		return fmt.Errorf("corpus: DocPtr ends at %d but there are %d tokens", g.DocPtr[n], len(g.Tokens))
	}
	v := int32(len(g.Vocab))
	for k, w := range g.Tokens {
		if w < 0 || w >= v {
			return fmt.Errorf("corpus: token %d: word id %d outside the vocabulary of %d words", k, w, v)
		}
	}
	if g.DocIDs != nil && len(g.DocIDs) != n {
		return fmt.Errorf("corpus: %d DocIDs for %d documents", len(g.DocIDs), n)
	}
	for k, l := range g.Links {
		if l[0] < 0 || l[0] >= l[1] || int(l[1]) >= n {
			return fmt.Errorf("corpus: link %d (%d-%d) is not a normalised pair of document ids", k, l[0], l[1])
		}
		if k > 0 {
			p := g.Links[k-1]
			if p[0] > l[0] || (p[0] == l[0] && p[1] >= l[1]) {
				return fmt.Errorf("corpus: links not sorted and unique at %d", k)
			}
		}
	}
	ptr, idx := adjacency(n, g.Links)
	if !slices.Equal(ptr, g.AdjPtr) || !slices.Equal(idx, g.AdjIdx) {
		return errors.New("corpus: adjacency does not match Links (call SetLinks)")
	}
	if g.Labels != nil {
		if len(g.Labels) != n {
			return fmt.Errorf("corpus: %d labels for %d documents", len(g.Labels), n)
		}
		for i, l := range g.Labels {
			if l < 0 || int(l) >= len(g.LabelNames) {
				return fmt.Errorf("corpus: document %d: label %d has no name (%d label names)", i, l, len(g.LabelNames))
			}
		}
	}
	for _, f := range g.Fields {
		if len(f.Values) != n {
			return fmt.Errorf("corpus: field %q has %d values for %d documents", f.Name, len(f.Values), n)
		}
	}
	if g.WordVectors != nil && (g.WordDim <= 0 || len(g.WordVectors) != len(g.Vocab)*g.WordDim) {
		return fmt.Errorf("corpus: %d word-vector values for %d words of dimension %d", len(g.WordVectors), len(g.Vocab), g.WordDim)
	}
	return nil
}

// BoW holds bag-of-words counts per document in CSR form: document i has
// the distinct words Word[Ptr[i]:Ptr[i+1]] (ascending) with counts
// Count[Ptr[i]:Ptr[i+1]]. Counts are float32 because the model consumes
// them as such; they are exact integers (below 2^24).
type BoW struct {
	Ptr   []int64
	Word  []int32
	Count []float32
}

// Row returns the words and counts of document i.
func (b *BoW) Row(i int) ([]int32, []float32) {
	return b.Word[b.Ptr[i]:b.Ptr[i+1]], b.Count[b.Ptr[i]:b.Ptr[i+1]]
}

// BoW computes the bag-of-words counts. It allocates; callers keep the
// result rather than calling it per batch.
func (g *Graph) BoW() *BoW {
	n := g.NumDocs()
	b := &BoW{Ptr: make([]int64, n+1)}
	// Documents on every core, in two passes over a sorted copy of the
	// tokens: each document's distinct words are counted, then written at
	// their offsets. Every row is what sorting that document alone gives.
	sorted := make([]int32, len(g.Tokens))
	distinct := make([]int64, n)
	cost := len(g.Tokens)/max(n, 1)*8 + 1
	parallel.For(n, 64, cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := sorted[g.DocPtr[i]:g.DocPtr[i+1]]
			copy(s, g.Doc(i))
			slices.Sort(s)
			for k := range s {
				if k == 0 || s[k] != s[k-1] {
					distinct[i]++
				}
			}
		}
	})
	for i, c := range distinct {
		b.Ptr[i+1] = b.Ptr[i] + c
	}
	b.Word = make([]int32, b.Ptr[n])
	b.Count = make([]float32, b.Ptr[n])
	parallel.For(n, 64, cost/4+1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := sorted[g.DocPtr[i]:g.DocPtr[i+1]]
			o := b.Ptr[i]
			for k := 0; k < len(s); {
				j := k + 1
				for j < len(s) && s[j] == s[k] {
					j++
				}
				b.Word[o], b.Count[o] = s[k], float32(j-k)
				o++
				k = j
			}
		}
	})
	return b
}

// Harder returns a copy of g made harder on purpose, to check that a
// method's defaults hold up beyond the corpora they were chosen on: each
// link is dropped with probability dropLinks (seeded, independently per
// link), and every document is cut to its first maxWords words (0: no cut).
// g itself is unchanged; word vectors and labels are shared.
func (g *Graph) Harder(dropLinks float64, maxWords int, seed uint64) *Graph {
	h := *g
	h.Tokens, h.DocPtr = g.Tokens, g.DocPtr
	if maxWords > 0 {
		h.Tokens = make([]int32, 0, len(g.Tokens))
		h.DocPtr = make([]int64, 1, len(g.DocPtr))
		for i := range g.NumDocs() {
			d := g.Doc(i)
			h.Tokens = append(h.Tokens, d[:min(len(d), maxWords)]...)
			h.DocPtr = append(h.DocPtr, int64(len(h.Tokens)))
		}
	}
	if dropLinks > 0 {
		rng := rand.New(rand.NewPCG(seed, 0x64726f70))
		var kept [][2]int32
		for _, l := range g.Links {
			if rng.Float64() >= dropLinks {
				kept = append(kept, l)
			}
		}
		h.SetLinks(kept)
	}
	return &h
}

// WithDocs returns a copy of g in which document ids[i] reads docs[i]
// instead of its own words (links, labels and the rest are shared): for
// instance a held-out document reduced to the half of its words a topic
// model may observe. g itself is unchanged.
func (g *Graph) WithDocs(ids []int32, docs [][]int32) *Graph {
	if len(ids) != len(docs) {
		panic(fmt.Sprintf("corpus: WithDocs: %d ids for %d documents", len(ids), len(docs)))
	}
	repl := make(map[int32][]int32, len(ids))
	for i, d := range ids {
		repl[d] = docs[i]
	}
	h := *g
	h.Tokens = make([]int32, 0, len(g.Tokens))
	h.DocPtr = make([]int64, 1, len(g.DocPtr))
	for i := range g.NumDocs() {
		d, ok := repl[int32(i)]
		if !ok {
			d = g.Doc(i)
		}
		h.Tokens = append(h.Tokens, d...)
		h.DocPtr = append(h.DocPtr, int64(len(h.Tokens)))
	}
	return &h
}
