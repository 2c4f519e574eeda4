package train

import (
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// snapshot is a copy of the trainable state: parameters by name, the tree,
// and (for roll-backs) the optimiser's moments and step count.
type snapshot struct {
	params map[string][]float32
	shapes map[string][]int
	tree   *topictree.Tree
	// radius and temp are σ's r and t, which move during training when
	// the model tracks them (model.TreeConfig.FDTrack).
	radius, temp float64
	opt          map[string]*tensor.Tensor
	optStep      int64
	step         int64
}

// snapshotParams copies the parameters and the tree (the best state).
func (t *Trainer) snapshotParams() *snapshot {
	s := &snapshot{params: map[string][]float32{}, shapes: map[string][]int{}, tree: t.Model.Topics.Tree.Clone(),
		radius: t.Model.Cfg.Tree.FDRadius, temp: t.Model.Cfg.Tree.FDTemp}
	for _, p := range t.Model.Params() {
		s.params[p.Name] = append([]float32(nil), p.Data...)
		s.shapes[p.Name] = append([]int(nil), p.Shape...)
	}
	return s
}

// snapshot copies parameters, tree and optimiser state (an epoch start, for
// roll-back after a non-finite loss).
func (t *Trainer) snapshot() *snapshot {
	s := t.snapshotParams()
	s.opt = map[string]*tensor.Tensor{}
	for name, v := range t.adam.State() {
		c := tensor.New(v.Shape...)
		copy(c.Data, v.Data)
		c.Name = v.Name
		s.opt[name] = c
	}
	s.optStep = t.adam.StepCount()
	s.step = t.State.Step
	return s
}

// restoreParams puts the snapshot's tree and parameters back; per-topic
// parameters take the snapshot tree's number of rows.
func (t *Trainer) restoreParams(s *snapshot) {
	if rho := t.Model.Topics.Mix; rho != nil && s.params[rho.Name] == nil {
		// A state from before Options.BackgroundMixAtEnd switched the
		// mixture on (the best of an earlier epoch) comes back without it,
		// as it comes back without the refit that the mixture was for.
		t.Model.StopMix()
		t.adam.Remove(rho.Name)
	}
	t.Model.SetTree(s.tree.Clone())
	t.Model.SetSimilarity(s.radius, s.temp)
	for _, p := range t.Model.Params() {
		copy(p.Data, s.params[p.Name])
	}
	// Other weights: the neighbour cache no longer holds their refresh.
	t.cacheFresh = false
}

func (t *Trainer) restore(s *snapshot) {
	t.restoreParams(s)
	// The per-topic tensor may have been replaced (the tree grew since the
	// snapshot): register the current one, whose shape matches the state.
	in := t.Model.Topics.Input
	t.adam.Remove(in.Name)
	if err := t.adam.Add(in); err != nil {
		panic("train: re-registering " + in.Name + ": " + err.Error())
	}
	if err := t.adam.LoadState(s.optStep, s.opt); err != nil {
		panic("train: restoring the optimiser's own snapshot failed: " + err.Error())
	}
	t.State.Step = s.step
}
