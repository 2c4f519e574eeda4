package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// Checkpoint files beside the model's own (config.json, tree.json,
// weights.safetensors). trainer.json is written last: a checkpoint without
// it is incomplete and Resume refuses it.
const (
	optimizerFile = "optimizer.safetensors"
	bestFile      = "best.safetensors"
	bestTreeFile  = "best_tree.json"
	// Metadata keys of the best state's σ radius and temperature.
	metaRadius  = "fd_radius"
	metaTemp    = "fd_temp"
	trainerFile = "trainer.json"
)

type trainerJSON struct {
	Format  string     `json:"format"` // "gtformer-trainer/1"
	Options Options    `json:"options"`
	State   State      `json:"state"`
	History []EpochLog `json:"history"`
}

// SaveCheckpoint writes everything Resume needs into dir, each file
// atomically.
func (t *Trainer) SaveCheckpoint(dir string) error {
	if err := t.Model.Save(dir, t.Opt.Seed); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := t.adam.SaveState(filepath.Join(dir, optimizerFile), nil); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if t.best != nil {
		var ts []*tensor.Tensor
		for _, p := range t.Model.Params() {
			// The best state may predate a change of the tree: its
			// per-topic tensors keep their own shapes.
			ts = append(ts, &tensor.Tensor{Name: p.Name, Shape: t.best.shapes[p.Name], Data: t.best.params[p.Name]})
		}
		meta := map[string]string{
			metaRadius: strconv.FormatFloat(t.best.radius, 'g', -1, 64),
			metaTemp:   strconv.FormatFloat(t.best.temp, 'g', -1, 64),
		}
		if err := safetensors.WriteFile(filepath.Join(dir, bestFile), ts, meta); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, bestTreeFile), t.best.tree.WriteJSON); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, trainerFile), trainerJSON{Format: "gtformer-trainer/1", Options: t.Opt, State: t.State, History: t.History}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Resume rebuilds a trainer from a checkpoint directory: model weights and
// tree, optimiser state, trainer state and history, and the best state so
// far. The data and split must be the ones the checkpoint was trained on.
// The options saved in the checkpoint are used, except the output writers,
// the checkpoint directory and StopAfter, which come from opt.
func Resume(dir string, g *corpus.Graph, s *corpus.Split, opt Options) (*Trainer, error) {
	raw, err := os.ReadFile(filepath.Join(dir, trainerFile))
	if err != nil {
		return nil, fmt.Errorf("resume: %w (is %s a complete checkpoint?)", err, dir)
	}
	var tj trainerJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tj); err != nil || tj.Format != "gtformer-trainer/1" {
		if err == nil {
			err = fmt.Errorf("unknown format %q", tj.Format)
		}
		return nil, fmt.Errorf("resume: %s: %w", filepath.Join(dir, trainerFile), err)
	}
	m, _, err := model.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	saved := tj.Options
	saved.Log, saved.Progress, saved.Checkpoint, saved.StopAfter, saved.Phases = opt.Log, opt.Progress, opt.Checkpoint, opt.StopAfter, opt.Phases
	t, err := New(m, g, s, saved)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if _, err := t.adam.LoadStateFile(filepath.Join(dir, optimizerFile)); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	t.State, t.History = tj.State, tj.History
	if t.State.BestEpoch > 0 {
		ts, meta, err := safetensors.ReadFile(filepath.Join(dir, bestFile))
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		tree, err := topictree.ReadFile(filepath.Join(dir, bestTreeFile))
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		b := &snapshot{params: map[string][]float32{}, shapes: map[string][]int{}, tree: tree,
			radius: m.Cfg.Tree.FDRadius, temp: m.Cfg.Tree.FDTemp}
		var errs []error
		// Checkpoints written before σ could move carry no r and t with
		// the best state: theirs were the model's.
		for key, dst := range map[string]*float64{metaRadius: &b.radius, metaTemp: &b.temp} {
			if v, ok := meta[key]; ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || x < 0 || math.IsInf(x, 0) {
					errs = append(errs, fmt.Errorf("best state: metadata %s = %q is not a non-negative number", key, v))
				}
				*dst = x
			}
		}
		for _, p := range m.Params() {
			v, ok := ts[p.Name]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("best state: tensor %q missing", p.Name))
			case p.Name == m.Topics.Input.Name && (len(v.Shape) != 2 || v.Shape[0] != tree.Len() || v.Shape[1] != p.Shape[1]):
				errs = append(errs, fmt.Errorf("best state: tensor %q has shape %v for a tree of %d topics", p.Name, v.Shape, tree.Len()))
			case p.Name != m.Topics.Input.Name && !tensor.SameShape(v, p):
				errs = append(errs, fmt.Errorf("best state: tensor %q has shape %v, want %v", p.Name, v.Shape, p.Shape))
			default:
				b.params[p.Name] = v.Data
				b.shapes[p.Name] = v.Shape
			}
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("resume: %s: %w", filepath.Join(dir, bestFile), err)
		}
		t.best = b
	}
	return t, nil
}
