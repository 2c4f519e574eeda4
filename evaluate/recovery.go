package evaluate

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/gtformer/gtformer/model"
)

// Recovery measures how well the learned paths recover a planted tree over
// docs (the training documents: the tree is fitted to them, and a test
// document's path is a prediction): the normalised mutual information
// I(A;P) / ((H(A)+H(P))/2) between a document's planted leaf A and its
// learned leaf P, where P is drawn from the
// document's distribution over learned leaves (θ on the leaves,
// renormalised: a leaf's θ is its path's probability times the leaf level's,
// so for leaves of one depth this is the path distribution π). 1: the
// documents of each planted leaf put all their mass on one learned path of
// their own; 0: the learned paths say nothing about the planted leaves.
//
// The soft assignment matters: under the paper's stick-breaking with
// Fermi-Dirac similarities σ ≤ 1/2, the last child keeps at least
// Π(1−σ) of its parent's mass, so the single most probable leaf is the last
// one for almost every document and an argmax-based score would read 0
// whatever the model learned.
//
// planted has one entry per document of emb (indexed by document id); NaN
// when docs is empty or the lengths disagree.
func Recovery(m *model.Model, emb *model.Embeddings, planted []int32, docs []int32) float64 {
	tab := m.Topics.Tables()
	T := emb.Topics
	n := len(docs)
	if n == 0 || len(emb.Theta) != len(planted)*T {
		return math.NaN()
	}
	joint := map[[2]int32]float64{}
	pa := map[int32]float64{}
	pp := map[int32]float64{}
	for _, d := range docs {
		if d < 0 || int(d) >= len(planted) {
			return math.NaN()
		}
		i := int(d)
		row := emb.Theta[i*T : (i+1)*T]
		var s float64
		for _, l := range tab.Leaf {
			s += float64(row[l])
		}
		if s <= 0 {
			continue
		}
		pa[planted[i]] += 1 / float64(n)
		for _, l := range tab.Leaf {
			q := float64(row[l]) / s / float64(n)
			joint[[2]int32{planted[i], l}] += q
			pp[l] += q
		}
	}
	// Sums run over sorted keys: map order is random, and the same model
	// must report the same figure to the last bit.
	h := func(p map[int32]float64) float64 {
		var e float64
		for _, k := range slices.Sorted(maps.Keys(p)) {
			if v := p[k]; v > 0 {
				e -= v * math.Log(v)
			}
		}
		return e
	}
	ha, hp := h(pa), h(pp)
	if ha+hp == 0 {
		return 1
	}
	var mi float64
	keys := slices.SortedFunc(maps.Keys(joint), func(a, b [2]int32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	for _, k := range keys {
		if v := joint[k]; v > 0 {
			mi += v * math.Log(v/(pa[k[0]]*pp[k[1]]))
		}
	}
	return math.Max(0, mi/((ha+hp)/2))
}
