package optim

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

// Names of the state tensors of parameter p: PrefixM+p, PrefixV+p, PrefixT+p.
const (
	PrefixM = "adam.m/" // first moment, p's shape
	PrefixV = "adam.v/" // second moment, p's shape
	PrefixT = "adam.t/" // update count per leading row, shape (rows)
)

// Metadata keys SaveState writes.
const (
	MetaStep = "optim.step" // StepCount, decimal
	MetaKind = "optim.kind" // "adam" or "adamw"
)

func (o *Adam) kind() string {
	if o.decoupled {
		return "adamw"
	}
	return "adam"
}

// State returns the per-parameter state as named float32 tensors (see the
// Prefix constants). They alias the live state: save them before the next
// Step. Together with StepCount this is everything a resumed run needs.
func (o *Adam) State() map[string]*tensor.Tensor {
	st := make(map[string]*tensor.Tensor, 3*len(o.slots))
	for _, s := range o.slots {
		st[PrefixM+s.name] = named(PrefixM+s.name, s.m, s.shape)
		st[PrefixV+s.name] = named(PrefixV+s.name, s.v, s.shape)
		st[PrefixT+s.name] = named(PrefixT+s.name, s.t, []int{s.rows()})
	}
	return st
}

func named(name string, data []float32, shape []int) *tensor.Tensor {
	t := tensor.FromData(data, shape...)
	t.Name = name
	return t
}

// LoadState replaces the step count and the state of every registered
// parameter with copies from state, which must hold exactly the tensors
// State would return for the registered parameters, with their shapes
// (register the parameters, at their checkpointed shapes, first). Nothing
// changes on error.
func (o *Adam) LoadState(step int64, state map[string]*tensor.Tensor) error {
	if step < 0 {
		return fmt.Errorf("optim: LoadState: negative step %d", step)
	}
	want := make(map[string]bool, len(state))
	for _, s := range o.slots {
		for _, prefix := range []string{PrefixM, PrefixV, PrefixT} {
			key := prefix + s.name
			want[key] = true
			t, ok := state[key]
			if !ok || t == nil {
				return fmt.Errorf("optim: LoadState: no %q for parameter %v", key, s.p)
			}
			shape := s.shape
			if prefix == PrefixT {
				shape = []int{s.rows()}
			}
			n := len(s.m)
			if prefix == PrefixT {
				n = s.rows()
			}
			if !slices.Equal(t.Shape, shape) || len(t.Data) != n {
				return fmt.Errorf("optim: LoadState: %q has shape %v, parameter %v needs %v", key, t.Shape, s.p, shape)
			}
			if prefix == PrefixT {
				for r, c := range t.Data {
					if !(c >= 0 && c <= maxCount) || c != float32(int32(c)) {
						return fmt.Errorf("optim: LoadState: %q row %d: count %v is not an integer in [0, %d]", key, r, c, maxCount)
					}
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(state)) {
		if !want[key] {
			return fmt.Errorf("optim: LoadState: %q matches no registered parameter", key)
		}
	}
	for _, s := range o.slots {
		copy(s.m, state[PrefixM+s.name].Data)
		copy(s.v, state[PrefixV+s.name].Data)
		copy(s.t, state[PrefixT+s.name].Data)
	}
	o.step = step
	return nil
}

// SaveState writes State, the step count and the optimiser kind to a
// safetensors file (atomically), adding metadata (which may be nil).
func (o *Adam) SaveState(path string, metadata map[string]string) error {
	meta := maps.Clone(metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[MetaStep] = strconv.FormatInt(o.step, 10)
	meta[MetaKind] = o.kind()
	st := o.State()
	ts := make([]*tensor.Tensor, 0, len(st))
	for _, k := range slices.Sorted(maps.Keys(st)) {
		ts = append(ts, st[k])
	}
	return safetensors.WriteFile(path, ts, meta)
}

// LoadStateFile reads a file written by SaveState into the optimiser (see
// LoadState) and returns the file's metadata.
func (o *Adam) LoadStateFile(path string) (map[string]string, error) {
	st, meta, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if k := meta[MetaKind]; k != o.kind() {
		return nil, fmt.Errorf("optim: %s holds %q state, this optimiser is %s", path, k, o.kind())
	}
	step, err := strconv.ParseInt(meta[MetaStep], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("optim: %s: metadata %s = %q: %w", path, MetaStep, meta[MetaStep], err)
	}
	for k := range st {
		if !strings.HasPrefix(k, PrefixM) && !strings.HasPrefix(k, PrefixV) && !strings.HasPrefix(k, PrefixT) {
			return nil, fmt.Errorf("optim: %s: tensor %q is not optimiser state", path, k)
		}
	}
	if err := o.LoadState(step, st); err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, path)
	}
	return meta, nil
}
