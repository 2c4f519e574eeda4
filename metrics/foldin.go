package metrics

import "fmt"

// FoldIn refines documents' topic distributions against fixed topics, as
// LDA folds in a document it did not train on: steps rounds of EM on each
// document's mixture weights θ_d under p(w|d) = mix(Σ_t θ_dt β_tw, w)
// (mix nil: p = q), the topics β (T,V) and the mixture held fixed. Each
// round raises the likelihood of the document's own words (or leaves it):
// the E step splits every token between the topics in proportion to
// θ_dt β_tw, after the background's share mix(0, w) / mix(q, w) is taken
// out; the M step sets θ_d to the topics' shares of the tokens.
//
// theta (N,T), one row per document of docs, is the start (an encoder's
// θ) and is not modified; the result is a new (N,T) slice. A document with
// no words, or whose words no topic with weight can produce, keeps its
// row. steps ≤ 0 returns a copy of theta.
func FoldIn(theta, beta []float32, nTopics int, docs Docs, mix func(q float64, w int32) float64, steps int) []float32 {
	n := docs.NumDocs()
	if nTopics <= 0 || len(theta) != n*nTopics || len(beta)%nTopics != 0 {
		panic(fmt.Sprintf("metrics: FoldIn: theta %d, beta %d values for %d docs, %d topics", len(theta), len(beta), n, nTopics))
	}
	out := append([]float32(nil), theta...)
	if steps <= 0 {
		return out
	}
	V := len(beta) / nTopics
	th := make([]float64, nTopics)
	acc := make([]float64, nTopics)
	for d := range n {
		row := out[d*nTopics : (d+1)*nTopics]
		for t, v := range row {
			th[t] = float64(v)
		}
		words := docs.Doc(d)
		for range steps {
			clear(acc)
			var total float64
			for _, w := range words {
				if int(w) < 0 || int(w) >= V {
					panic(fmt.Sprintf("metrics: FoldIn: word %d outside vocabulary of %d", w, V))
				}
				var q float64
				for t, v := range th {
					q += v * float64(beta[t*V+int(w)])
				}
				if !(q > 0) {
					continue
				}
				r := 1 / q // the topics' share of the token, over q
				if mix != nil {
					p := mix(q, w)
					r = (p - mix(0, w)) / (p * q)
				}
				for t, v := range th {
					a := r * v * float64(beta[t*V+int(w)])
					acc[t] += a
					total += a
				}
			}
			if !(total > 0) {
				break
			}
			for t := range th {
				th[t] = acc[t] / total
			}
		}
		for t, v := range th {
			row[t] = float32(v)
		}
	}
	return out
}
