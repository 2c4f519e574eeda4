package train

import (
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// snapshot is a copy of the trainable state: parameters by name, the tree,
// and (for roll-backs) the optimiser's moments and step count.
type snapshot struct {
	params  map[string][]float32
	tree    *topictree.Tree
	opt     map[string]*tensor.Tensor
	optStep int64
	step    int64
}

// snapshotParams copies the parameters and the tree (the best state).
func (t *Trainer) snapshotParams() *snapshot {
	s := &snapshot{params: map[string][]float32{}, tree: t.Model.Topics.Tree.Clone()}
	for _, p := range t.Model.Params() {
		s.params[p.Name] = append([]float32(nil), p.Data...)
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

func (t *Trainer) restoreParams(s *snapshot) {
	for _, p := range t.Model.Params() {
		copy(p.Data, s.params[p.Name])
	}
	t.Model.SetTree(s.tree.Clone())
}

func (t *Trainer) restore(s *snapshot) {
	t.restoreParams(s)
	if err := t.adam.LoadState(s.optStep, s.opt); err != nil {
		panic("train: restoring the optimiser's own snapshot failed: " + err.Error())
	}
	t.State.Step = s.step
}
