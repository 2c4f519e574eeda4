package train

import (
	"math"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// placeNew puts each topic a tree update added (GrowFrom's growth) where
// the growing documents are: at the mean of the GrowFrom documents'
// tangent vectors, each weighted by its θ on the new topic's parent
// before the update (old rows of emb). Left where Remap put it (beside
// its parent), a new topic is as near the parent's documents as the
// parent itself and gets few of them in a short continued training; put
// at the new documents that drove its addition, it starts as their
// cluster, as the topic start places every topic (topicfit.Place).
//
// A topic's point follows its input a_t through the Doubly-RNN:
// log_o z_t = tanh(W·u_t + a_t), with u_t from its parent and its left
// sibling. A new topic is its parent's last child, so setting its a_t
// moves no other topic.
func (t *Trainer) placeNew(emb *model.Embeddings, res topictree.UpdateResult) {
	m := t.Model
	tab := m.Topics.Tables()
	n := m.Cfg.Width
	T := emb.Topics
	for r, old := range res.OldRow {
		if old >= 0 {
			continue
		}
		p := int(tab.Parent[r])
		op := res.OldRow[p]
		if op < 0 {
			continue
		}
		c := make([]float64, n)
		var wsum float64
		for _, d := range t.GrowFrom {
			w := float64(emb.Theta[int(d)*T+op])
			wsum += w
			for j, v := range emb.Tangent[int(d)*n : int(d+1)*n] {
				c[j] += w * float64(v)
			}
		}
		if !(wsum > 0) {
			continue
		}
		for j := range c {
			c[j] /= wsum
		}
		t.setTopicAt(tab, r, c)
	}
}

// setTopicAt sets row r's input so that log_o z_r is c (coordinates
// clipped to ±0.95), given the current points of its parent and left
// sibling.
func (t *Trainer) setTopicAt(tab *topictree.Tables, r int, c []float64) {
	tp := tensor.NewTape()
	tp.NoGrad = true
	top := t.Model.Topics
	n := t.Model.Cfg.Width
	z, _ := top.Embeddings(tp)
	origin := top.M.Origin(tp, 1, n)
	zz := tp.Concat(0, origin, z)
	left := int32(0) // the origin: no left sibling
	for s := r - 1; s >= 0; s-- {
		if tab.Parent[s] == tab.Parent[r] {
			left = int32(s) + 1
			break
		}
	}
	u := top.DRNN.PreCombine(tp, tp.Gather(zz, []int32{tab.Parent[r] + 1}), tp.Gather(zz, []int32{left}))
	wu := tp.MatMul(u, top.DRNN.W, false, true)
	for j := range n {
		cj := math.Max(-0.95, math.Min(0.95, c[j]))
		top.Input.Data[r*n+j] = float32(math.Atanh(cj) - float64(wu.Data[j]))
	}
}
