package train

import (
	"fmt"
	"math"
	"slices"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// finalPrune is the last tree update (Options.FinalPrune,
// Options.FinalPruneBelow): the pruning of growTree without its additions,
// on the training documents as the final weights embed them.
func (t *Trainer) finalPrune() error {
	defer t.Env.Phases.Start("final prune")()
	docs := t.vs.Train
	return t.growTree(t.embedCurrent(docs).Scatter(docs, t.G.NumDocs()), false)
}

// growTree grows and prunes the tree from the shares s_t of the training
// documents outside validation (their θ in emb, indexed by document id),
// and moves the per-topic parameters and their optimiser state along.
func (t *Trainer) growTree(emb *model.Embeddings, add bool) error {
	m := t.Model
	shares, theta, lengths, err := t.trainShares(emb)
	if err != nil {
		return err
	}
	tc := m.Cfg.Tree
	uo := topictree.UpdateOptions{Add: tc.SAdd, Prune: tc.SPrune, GrowLeaves: tc.GrowLeaves, KeepDepth: tc.KeepDepth}
	if !add {
		uo.Add = 1 // no topic's share exceeds 1: prune only
	}
	byPath := tc.PruneBy == "path"
	if !add && t.Opt.FinalPruneBelow > 0 {
		uo.Prune = t.Opt.FinalPruneBelow // the subtree's words against the floor
		byPath = false
	}
	if byPath {
		uo.Path = topictree.PathShares(m.Topics.Tables(), theta, lengths)
	}
	if add && t.continued {
		// Continued training's rounds only add: a topic added for a
		// few new documents holds little of all the words and would be
		// pruned before it has taken them; the final prune (its floor
		// on the words) judges every topic at the end.
		uo.Prune = 0
	}
	if add && t.GrowFrom != nil {
		// Prune by every training document's words, add by GrowFrom's:
		// Update adds by its shares and prunes by Path when given.
		if uo.Path == nil {
			uo.Path = slices.Clone(shares)
			m.Topics.Tables().SubtreeSums(uo.Path)
		}
		if shares, _, _, err = t.sharesOf(emb, t.GrowFrom); err != nil {
			return err
		}
	}
	res, err := m.Topics.Tree.Update(shares, uo)
	if err != nil {
		return fmt.Errorf("train: tree update after epoch %d: %w", t.State.Epoch, err)
	}
	for _, c := range res.Changes {
		fmt.Fprintf(t.log, "epoch %d: %v\n", t.State.Epoch, c)
	}
	if !res.Changed() {
		return nil
	}
	if err := t.remapTopics(res); err != nil {
		return err
	}
	if add && t.GrowFrom != nil {
		t.placeNew(emb, res)
	}
	return nil
}

// trainShares returns the word shares s_t (dense rows) of the training
// documents outside validation, with their θ rows (in t.vs.Train's order)
// and lengths, from emb (indexed by document id).
func (t *Trainer) trainShares(emb *model.Embeddings) (shares []float64, theta []float32, lengths []int, err error) {
	return t.sharesOf(emb, t.vs.Train)
}

// sharesOf is trainShares over the documents docs (emb must hold them).
func (t *Trainer) sharesOf(emb *model.Embeddings, docs []int32) (shares []float64, theta []float32, lengths []int, err error) {
	acc := topictree.NewShareAccumulator(emb.Topics)
	lengths = make([]int, len(docs))
	theta = make([]float32, 0, len(docs)*emb.Topics)
	for i, d := range docs {
		lengths[i] = t.In.Len[d]
		theta = append(theta, emb.Theta[int(d)*emb.Topics:int(d+1)*emb.Topics]...)
	}
	acc.Add(tensor.FromData(theta, len(docs), emb.Topics), lengths)
	shares, err = acc.Shares()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("train: tree update after epoch %d: %w", t.State.Epoch, err)
	}
	for _, v := range shares {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			// The steps' own guard saw finite losses, but the documents'
			// topics came out of the weights as NaN: the run diverged.
			return nil, nil, nil, fmt.Errorf("train: training diverged by step %d (epoch %d): the documents' topic shares are %v; lower --lr or --init-scale", t.State.Step, t.State.Epoch, v)
		}
	}
	return shares, theta, lengths, nil
}

// remapTopics moves the per-topic parameters and their optimiser state
// along a tree update that changed the tree.
func (t *Trainer) remapTopics(res topictree.UpdateResult) error {
	m := t.Model
	// With two hops the nested pass reads the tree embedding: the
	// validation refresh is stale now.
	if m.Cfg.CacheReadsTopics() {
		t.cacheFresh = false
	}
	// Per-topic inputs follow the tree; so does their optimiser state.
	name := m.Topics.Input.Name
	in := m.Topics.Remap(res.OldRow)
	if err := t.adam.RemapRows(name, in.Shape, res.OldRow); err != nil {
		return fmt.Errorf("train: tree update after epoch %d: %w", t.State.Epoch, err)
	}
	if err := t.adam.Rebind(in); err != nil {
		return fmt.Errorf("train: tree update after epoch %d: %w", t.State.Epoch, err)
	}
	return nil
}
