package baseline

import (
	"errors"
	"fmt"
	"math"

	"github.com/gtformer/gtformer/corpus"
)

// TFIDF returns the tf-idf vectors (N,V) of all documents with scikit-learn
// TfidfTransformer's defaults: raw counts times the smoothed idf
// ln((1+n)/(1+df))+1, rows L2-normalised. The idf is fitted on the training
// documents of s only (n of them, df counting those containing the word), so
// nothing about the test documents leaks into the representation; a word
// absent from training gets df = 0.
func TFIDF(g *corpus.Graph, s *corpus.Split) *Vectors {
	bow := g.BoW()
	V := len(g.Vocab)
	idf := g.IDF(s.Train)
	v := &Vectors{Dim: V, Ptr: make([]int64, 1, g.NumDocs()+1), Idx: make([]int32, 0, len(bow.Word)), Val: make([]float32, 0, len(bow.Word))}
	for i := range g.NumDocs() {
		words, counts := bow.Row(i)
		for k, w := range words {
			v.Idx = append(v.Idx, w)
			v.Val = append(v.Val, float32(float64(counts[k])*idf[w]))
		}
		v.Ptr = append(v.Ptr, int64(len(v.Idx)))
	}
	l2Normalize(v)
	return v
}

// ErrNoWordVectors is returned by MeanWordVectors for a corpus without word
// vectors.
var ErrNoWordVectors = errors.New("baseline: the dataset has no word vectors (word_embeddings_glove_300d.txt)")

// MeanWordVectors returns each document's mean word vector (N,WordDim): the
// average over its tokens (a repeated word counts each time) of the rows of
// g.WordVectors. An empty document gets the zero vector.
func MeanWordVectors(g *corpus.Graph) (*Vectors, error) {
	if g.WordVectors == nil || g.WordDim == 0 {
		return nil, ErrNoWordVectors
	}
	D := g.WordDim
	v := &Vectors{Dim: D, Ptr: make([]int64, 1, g.NumDocs()+1)}
	acc := newAccumulator(D)
	all := make([]int32, D)
	for c := range all {
		all[c] = int32(c)
	}
	for i := range g.NumDocs() {
		doc := g.Doc(i)
		for _, w := range doc {
			acc.add(all, g.WordVectors[int(w)*D:int(w+1)*D])
		}
		acc.flush(v, 1/math.Max(1, float64(len(doc))))
	}
	return v, nil
}

// Smooth averages each row with its neighbours' rows, itself included,
// hops times: x_i ← (x_i + Σ_{j∈N(i)} x_j) / (1 + |N(i)|), with N(i) the
// split's neighbour lists (a training document's training neighbours; a test
// document's training neighbours). Links among test documents are never
// used, so the held-out links stay unseen and test documents do not feed
// each other. Each hop reads the previous hop's rows.
func Smooth(x *Vectors, s *corpus.Split, hops int) *Vectors {
	if len(s.NbrPtr)-1 != x.NumRows() {
		panic(fmt.Sprintf("baseline: Smooth: %d rows, split of %d documents", x.NumRows(), len(s.NbrPtr)-1))
	}
	acc := newAccumulator(x.Dim)
	for range hops {
		y := &Vectors{Dim: x.Dim, Ptr: make([]int64, 1, x.NumRows()+1)}
		for i := range x.NumRows() {
			acc.add(x.Row(i))
			nb := s.TrainNeighbors(i)
			for _, j := range nb {
				acc.add(x.Row(int(j)))
			}
			acc.flush(y, 1/float64(1+len(nb)))
		}
		x = y
	}
	return x
}

// SIGN returns, per document, the mean over k = 0..hops of its row of
// Smooth(x, s, k) scaled to unit norm: the precomputed multi-hop features
// of SIGN (Frasca et al., 2020) and SGC (Wu et al., 2019) with equal,
// untrained weights. Normalising each hop before averaging keeps a
// document's own words (hop 0) from being drowned by the denser, larger
// averages of its neighbourhood, and the deeper hops reach documents the
// two-hop average does not.
func SIGN(x *Vectors, s *corpus.Split, hops int) *Vectors {
	// Each hop is normalised in place once the next one is computed from
	// it, so no hop is stored twice (at 100K documents of 600 words a hop
	// holds 38 million entries); hop 0, the caller's x, is copied.
	out := make([]*Vectors, 0, hops+1)
	h := x
	for k := 0; ; k++ {
		var next *Vectors
		if k < hops {
			next = Smooth(h, s, 1)
		}
		if k == 0 {
			h = h.Clone()
		}
		l2Normalize(h)
		out = append(out, h)
		if k == hops {
			break
		}
		h = next
	}
	acc := newAccumulator(x.Dim)
	res := &Vectors{Dim: x.Dim, Ptr: make([]int64, 1, x.NumRows()+1)}
	for i := range x.NumRows() {
		for _, v := range out {
			acc.add(v.Row(i))
		}
		acc.flush(res, 1/float64(hops+1))
	}
	return res
}
