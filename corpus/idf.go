package corpus

import "math"

// IDF returns the smoothed inverse document frequency of every word over
// docs, scikit-learn's TfidfTransformer default:
// idf_w = ln((1+n)/(1+df_w)) + 1, with n = len(docs) and df_w the number
// of docs containing w (a word in none of them gets df = 0).
// It is the project's one idf: the model's tf-idf inputs, the baselines and
// the tf-idf kNN link graph all weigh words by it.
func (g *Graph) IDF(docs []int32) []float64 {
	v := len(g.Vocab)
	df := make([]int, v)
	seen := make([]int32, v) // last document counted for each word, +1
	count := func(d int32) {
		for _, w := range g.Doc(int(d)) {
			if seen[w] != d+1 {
				seen[w] = d + 1
				df[w]++
			}
		}
	}
	for _, d := range docs {
		count(d)
	}
	n := float64(len(docs))
	idf := make([]float64, v)
	for w, f := range df {
		idf[w] = math.Log((1+n)/(1+float64(f))) + 1
	}
	return idf
}

// AllDocs returns the ids of every document, 0..N-1.
func (g *Graph) AllDocs() []int32 {
	all := make([]int32, g.NumDocs())
	for i := range all {
		all[i] = int32(i)
	}
	return all
}
