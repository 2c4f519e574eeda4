package evaluate

import (
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
)

// LearnedLeaves returns each document's most probable learned leaf: the
// leaf topic (dense row) with the largest θ. A leaf's θ is its path's
// probability times the leaf level's, so for trees whose leaves share one
// depth this is the document's most probable path.
func LearnedLeaves(m *model.Model, emb *model.Embeddings) []int32 {
	tab := m.Topics.Tables()
	T := emb.Topics
	n := len(emb.Theta) / T
	out := make([]int32, n)
	for i := 0; i < n; i++ {
		row := emb.Theta[i*T : (i+1)*T]
		best := int32(-1)
		for _, l := range tab.Leaf {
			if best < 0 || row[l] > row[best] {
				best = l
			}
		}
		out[i] = best
	}
	return out
}

// Recovery measures how well learned paths recover planted ones: the
// normalised mutual information between each document's planted leaf and
// its learned leaf (1: the same partition of the documents; 0: unrelated).
func Recovery(planted, learned []int32) float64 { return metrics.NMI(planted, learned) }
