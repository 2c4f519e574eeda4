package corpus

import (
	"math"
	"slices"

	"github.com/gtformer/gtformer/internal/parallel"
)

// KNNOptions configure the induced link graph.
type KNNOptions struct {
	K int // neighbours per document (κ); 0 means DefaultKNN

	// Budget bounds the work, Σ df(w)² multiply-adds over the words used to
	// find candidates; 0 means DefaultKNNBudget. When the corpus exceeds it,
	// the most document-frequent words stop proposing candidates (they still
	// count in the norms), so similarities through them alone are missed.
	// Below the budget the graph is exact.
	Budget int64
}

// DefaultKNNBudget keeps the kNN graph exact for corpora of the paper's
// size (Σ df² is 2.4·10^7 for COVID, 3.4·10^7 for ML) and bounds the work
// for large ones to a few seconds of CPU (about 3 ns per multiply-add).
const DefaultKNNBudget = 1_000_000_000

// KNNWork is the work of an exact kNN graph of g, Σ df(w)² over the
// vocabulary: KNNGraph is exact when it does not exceed the budget.
func KNNWork(g *Graph) int64 {
	df := make([]int64, len(g.Vocab))
	last := make([]int32, len(g.Vocab))
	for i := range last {
		last[i] = -1
	}
	for i := 0; i < g.NumDocs(); i++ {
		for _, w := range g.Doc(i) {
			if last[w] != int32(i) {
				last[w] = int32(i)
				df[w]++
			}
		}
	}
	var work int64
	for _, d := range df {
		work += d * d
	}
	return work
}

// KNNGraph links every document to its K most similar other documents by
// the cosine similarity of tf-idf vectors, as the paper did for COVID, and
// returns the links (one per document and neighbour; pass them to SetLinks,
// which makes them undirected and drops repeats). A document that shares no
// word with any other gets no links.
//
// tf-idf follows scikit-learn's TfidfVectorizer defaults: raw counts times
// idf(w) = ln((1+N)/(1+df(w))) + 1, then L2-normalised rows. Similarities
// are sparse dot products through an inverted index (word -> documents), so
// memory is O(tokens + N per worker), never O(N²). Ties go to the smaller
// document id; the result is the same for any number of workers.
func KNNGraph(g *Graph, opt KNNOptions) [][2]int32 {
	k := opt.K
	if k <= 0 {
		k = DefaultKNN
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultKNNBudget
	}
	n := g.NumDocs()
	v := len(g.Vocab)
	bow := g.BoW()

	// tf-idf weights, L2-normalised per document, in BoW order.
	df := make([]int64, v)
	for _, w := range bow.Word {
		df[w]++
	}
	idf := g.IDF(g.AllDocs())
	weight := make([]float32, len(bow.Word))
	for i := 0; i < n; i++ {
		lo, hi := bow.Ptr[i], bow.Ptr[i+1]
		var ss float64
		for p := lo; p < hi; p++ {
			x := float64(bow.Count[p]) * idf[bow.Word[p]]
			ss += x * x
		}
		if ss == 0 {
			continue
		}
		inv := 1 / math.Sqrt(ss)
		for p := lo; p < hi; p++ {
			weight[p] = float32(float64(bow.Count[p]) * idf[bow.Word[p]] * inv)
		}
	}

	// Words that propose candidates: the rarest first while Σ df² fits the
	// budget.
	order := make([]int32, v)
	for w := range order {
		order[w] = int32(w)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if df[a] != df[b] {
			return int(df[a] - df[b])
		}
		return int(a - b)
	})
	use := make([]bool, v)
	var work int64
	for _, w := range order {
		if work+df[w]*df[w] > budget {
			break
		}
		work += df[w] * df[w]
		use[w] = true
	}

	// Inverted index over the used words: postings of w are
	// (postDoc, postWt)[postPtr[w]:postPtr[w+1]], documents ascending.
	postPtr := make([]int64, v+1)
	for w := range v {
		if use[w] {
			postPtr[w+1] = df[w]
		}
	}
	for w := range v {
		postPtr[w+1] += postPtr[w]
	}
	postDoc := make([]int32, postPtr[v])
	postWt := make([]float32, postPtr[v])
	fill := slices.Clone(postPtr[:v])
	for i := 0; i < n; i++ {
		for p := bow.Ptr[i]; p < bow.Ptr[i+1]; p++ {
			if w := bow.Word[p]; use[w] {
				postDoc[fill[w]] = int32(i)
				postWt[fill[w]] = weight[p]
				fill[w]++
			}
		}
	}

	// nbr is (N, k): document i's neighbours, best first, -1 when fewer.
	nbr := make([]int32, n*k)
	for i := range nbr {
		nbr[i] = -1
	}
	parallel.Each(n, func() func(i int) {
		acc := make([]float32, n)
		var touched []int32
		best := make([]int32, 0, k)
		bestS := make([]float32, 0, k)
		return func(i int) {
			touched = touched[:0]
			for p := bow.Ptr[i]; p < bow.Ptr[i+1]; p++ {
				w := bow.Word[p]
				if !use[w] {
					continue
				}
				wi := weight[p]
				docs := postDoc[postPtr[w]:postPtr[w+1]]
				wts := postWt[postPtr[w]:postPtr[w+1]]
				wts = wts[:len(docs)]
				for q, j := range docs {
					a := acc[j]
					if a == 0 {
						touched = append(touched, j)
					}
					acc[j] = a + wi*wts[q]
				}
			}
			best, bestS = best[:0], bestS[:0]
			for _, j := range touched {
				s := acc[j]
				acc[j] = 0
				if int(j) == i || s <= 0 {
					continue
				}
				best, bestS = insertTop(best, bestS, j, s, k)
			}
			copy(nbr[i*k:], best)
		}
	})

	links := make([][2]int32, 0, n*k)
	for i := 0; i < n; i++ {
		for _, j := range nbr[i*k : (i+1)*k] {
			if j >= 0 {
				links = append(links, [2]int32{int32(i), j})
			}
		}
	}
	return links
}

// insertTop keeps (ids, scores) the k best by score descending, ties by
// smaller id.
func insertTop(ids []int32, scores []float32, j int32, s float32, k int) ([]int32, []float32) {
	better := func(p int) bool { // (j, s) ranks before entry p
		return s > scores[p] || (s == scores[p] && j < ids[p])
	}
	if len(ids) == k && !better(k-1) {
		return ids, scores
	}
	if len(ids) < k {
		ids, scores = append(ids, 0), append(scores, 0)
	}
	p := len(ids) - 1
	for p > 0 && better(p-1) {
		ids[p], scores[p] = ids[p-1], scores[p-1]
		p--
	}
	ids[p], scores[p] = j, s
	return ids, scores
}
