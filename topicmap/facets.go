package topicmap

import (
	"fmt"
	"slices"
)

// Series is one topic's share per bin of a facet.
type Series struct {
	ID int `json:"id"` // topic id
	// Self marks the node's own θ, without its children's subtrees; false
	// for a subtree's total.
	Self bool `json:"self,omitempty"`
	// Words holds per bin Σ|d|θ / Σ|d| over the bin's documents, θ summed
	// over the subtree (or the node alone for Self): the share of the
	// bin's words; 0 for an empty bin.
	Words []float64 `json:"words"`
	// Docs holds per bin Σθ / (documents in the bin): the share of the
	// bin's documents.
	Docs []float64 `json:"docs"`
}

// Facet is a node's share per bin of a field, its children stacked.
type Facet struct {
	Binning
	Topic   int `json:"topic"`
	Missing int `json:"missing"` // documents without the field
	// Total is the node's subtree; Stack splits it: the node's own θ
	// first (Self), then each child's subtree, in tree order. The stack
	// sums to Total in every bin.
	Total Series   `json:"total"`
	Stack []Series `json:"stack"`
}

// Facets computes the facet of tree row node over the documents binned by
// b: θ is (N, T) in the tree's rows, lengths each document's word count.
func Facets(theta []float32, lengths []int, tree Tree, node int, b *Binning) (*Facet, error) {
	if err := tree.Check(); err != nil {
		return nil, err
	}
	T, N := len(tree.ID), len(lengths)
	switch {
	case len(theta) != N*T:
		return nil, fmt.Errorf("topicmap: θ holds %d values for %d documents and %d topics", len(theta), N, T)
	case len(b.Of) != N:
		return nil, fmt.Errorf("topicmap: field %q has %d documents, θ %d", b.Field, len(b.Of), N)
	case node < 0 || node >= T:
		return nil, fmt.Errorf("%w: topic row %d of %d", ErrUnknown, node, T)
	}
	children := tree.Children(node)
	group := tree.under(node, children)
	// The rows of node's subtree with their series, so that the loop over
	// documents skips the rest of the tree.
	var rows, rowGroup []int
	for r, g := range group {
		if g >= 0 {
			rows, rowGroup = append(rows, r), append(rowGroup, g)
		}
	}
	G, K := len(children)+1, len(b.Bins)
	f := &Facet{Binning: *b, Topic: tree.ID[node]}
	f.Bins = slices.Clone(b.Bins)
	words := make([]float64, G*K) // [series][bin] Σ|d|θ
	docs := make([]float64, G*K)  // [series][bin] Σθ
	mass := make([]float64, G)
	for i := range N {
		k := int(b.Of[i])
		if k < 0 {
			f.Missing++
			continue
		}
		clear(mass)
		th := theta[i*T : (i+1)*T]
		for j, r := range rows {
			mass[rowGroup[j]] += float64(th[r])
		}
		l := float64(lengths[i])
		for g, m := range mass {
			words[g*K+k] += l * m
			docs[g*K+k] += m
		}
		f.Bins[k].Docs++
		f.Bins[k].Words += l
	}
	series := func(id int, self bool) Series {
		return Series{ID: id, Self: self, Words: make([]float64, K), Docs: make([]float64, K)}
	}
	f.Total = series(tree.ID[node], false)
	f.Stack = append(f.Stack, series(tree.ID[node], true))
	for _, c := range children {
		f.Stack = append(f.Stack, series(tree.ID[c], false))
	}
	for g := range G {
		for k, bin := range f.Bins {
			var w, d float64
			if bin.Words > 0 {
				w = words[g*K+k] / bin.Words
			}
			if bin.Docs > 0 {
				d = docs[g*K+k] / float64(bin.Docs)
			}
			f.Stack[g].Words[k], f.Stack[g].Docs[k] = w, d
			f.Total.Words[k] += w
			f.Total.Docs[k] += d
		}
	}
	return f, nil
}
