package train

import (
	"math"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/topictree"
)

// ReconstructionScores is, per topic of tab, how poorly the words of the
// documents in its subtree are explained: the mean over the documents of
// their per-token negative log-likelihood
//
//	nll_d = −(1/|d|) Σ_{w ∈ d} log p(w|d),  p(w|d) = mix.Prob(Σ_t θ_dt β_tw, w)
//
// (Σ_t θ_dt β_tw itself without the background mixture, mix's zero value)
// weighted by |d|·m_dp, m_dp the document's θ mass on the topic and its
// descendants (0 for a topic no document uses). theta is (len(words), T)
// row-major, beta (T, V); words[i] lists document i's word ids (an empty
// document counts for nothing). Options.GrowBy "nll" gives children only
// to the large topics whose score is at least their mean.
func ReconstructionScores(tab *topictree.Tables, theta, beta []float32, mix model.WordMix, words [][]int32) []float64 {
	T := tab.T
	V := len(beta) / T
	nll := make([]float64, len(words))
	parallel.For(len(words), 16, 100*T, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := theta[i*T : (i+1)*T]
			var s float64
			for _, w := range words[i] {
				var p float64
				for t, th := range row {
					p += float64(th) * float64(beta[t*V+int(w)])
				}
				s -= math.Log(max(mix.Prob(p, w), 1e-300))
			}
			if len(words[i]) > 0 {
				nll[i] = s / float64(len(words[i]))
			}
		}
	})
	num := make([]float64, T)
	den := make([]float64, T)
	mass := make([]float64, T)
	for i, ws := range words {
		row := theta[i*T : (i+1)*T]
		for t, th := range row {
			mass[t] = float64(th)
		}
		tab.SubtreeSums(mass)
		n := float64(len(ws))
		for t := range T {
			num[t] += n * mass[t] * nll[i]
			den[t] += n * mass[t]
		}
	}
	score := make([]float64, T)
	for t := range score {
		if den[t] > 0 {
			score[t] = num[t] / den[t]
		}
	}
	return score
}
