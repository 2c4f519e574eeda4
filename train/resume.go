package train

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// parseTrainerJSON reads trainer.json (name for messages). An option of
// earlier builds that this one does not have (removedOptions) is read away
// when it was off; a run trained with it on is refused.
func parseTrainerJSON(name string, raw []byte) (*trainerJSON, error) {
	raw, on, err := model.StripRemoved(name, raw, removedOptions)
	if err != nil {
		return nil, err
	}
	if on != "" {
		return nil, fmt.Errorf("%s: the run was trained with %s, which this build no longer has; use the build that wrote it", name, on)
	}
	var tj trainerJSON
	if err := decodeStrict(raw, &tj); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if tj.Format != trainerFormat {
		return nil, fmt.Errorf("%s: unknown format %q", name, tj.Format)
	}
	s := tj.State
	if s.Epoch < 0 || s.Step < 0 || s.Rollbacks < 0 || s.BestEpoch < 0 || s.BestEpoch > s.Epoch ||
		!(s.LRScale > 0 && s.LRScale <= 1) || math.IsNaN(s.BestScore) || math.IsInf(s.BestScore, 0) {
		return nil, fmt.Errorf("%s: inconsistent state %+v", name, s)
	}
	if p := tj.InEpoch; p != nil && (p.Batches < 0 || p.Docs < 0 || len(p.Dropout) == 0) {
		return nil, fmt.Errorf("%s: inconsistent position in the epoch %+v", name, *p)
	}
	if err := tj.Options.validate(); err != nil {
		return nil, fmt.Errorf("%s: options: %w", name, err)
	}
	return &tj, nil
}

// ErrNoCheckpoint is returned (wrapped) by Resume when the directory holds
// no complete checkpoint.
var ErrNoCheckpoint = errors.New("no complete checkpoint")

// Resume rebuilds a trainer from the newest usable generation of a
// checkpoint directory: model weights and tree, optimiser state, trainer
// state and history, the best state so far, and, for a generation written
// inside an epoch, the position in it, so that Run continues to the same
// numbers as an uninterrupted run. A generation that does not match its
// manifest is passed over for the one before, with a line in env.Log
// saying why; when none is usable the error lists each and why.
//
// The corpus must be the one the checkpoint was trained on: its
// fingerprint (env.Corpus, or one computed from g and s) is compared with
// the recorded one, and a *corpus.MismatchError names the differences. The
// options and the start configuration saved in the checkpoint are used;
// env is this session's.
func Resume(dir string, g *corpus.Graph, s *corpus.Split, env Env) (*Trainer, error) {
	gens, tmps, legacy, err := listCheckpoint(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("train: resume: %s does not exist: no run wrote a checkpoint there (%w)", dir, ErrNoCheckpoint)
	}
	if err != nil {
		return nil, fmt.Errorf("train: resume: %w (%w)", err, ErrNoCheckpoint)
	}
	if len(gens) == 0 {
		switch {
		case legacy:
			return nil, fmt.Errorf("train: resume: %s holds a checkpoint in the layout of older versions (its files directly in the folder, without a manifest), which cannot be checked for completeness: train again without resuming (%w)", dir, ErrNoCheckpoint)
		case len(tmps) > 0:
			return nil, fmt.Errorf("train: resume: %s: the run stopped while writing its first checkpoint (%s is incomplete and never used): train again without resuming (%w)", dir, tmps[len(tmps)-1], ErrNoCheckpoint)
		default:
			return nil, fmt.Errorf("train: resume: %s holds no checkpoint: one is written after every epoch (%w)", dir, ErrNoCheckpoint)
		}
	}
	log := env.log()
	var reasons []string
	for i := len(gens) - 1; i >= 0; i-- {
		gdir := filepath.Join(dir, gens[i].name)
		t, err := resumeGeneration(gdir, g, s, env)
		var damaged *damagedError
		if errors.As(err, &damaged) {
			reasons = append(reasons, fmt.Sprintf("%s: %v", gens[i].name, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("train: resume: %s: %w", gdir, err)
		}
		for _, r := range reasons {
			fmt.Fprintf(log, "checkpoint %s is damaged and not used\n", r)
		}
		t.sess.generation = gens[i].name
		return t, nil
	}
	return nil, fmt.Errorf("train: resume: no usable checkpoint in %s: %s (%w)", dir, strings.Join(reasons, "; "), ErrNoCheckpoint)
}

// resumeGeneration rebuilds a trainer from one generation; a
// *damagedError says the files are not as written.
func resumeGeneration(dir string, g *corpus.Graph, s *corpus.Split, env Env) (*Trainer, error) {
	if _, err := verify(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, trainerFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tj, err := parseTrainerJSON(path, raw)
	if err != nil {
		return nil, err
	}
	m, _, err := model.Load(dir)
	if err != nil {
		return nil, err
	}
	if m.Corpus != nil {
		got := env.Corpus
		if got == nil {
			got = corpus.NewFingerprint(g, s, nil, "")
		}
		if err := m.Corpus.Check(got); err != nil {
			return nil, err
		}
	}
	t, err := setup(m, g, s, tj.Options, env)
	if err != nil {
		return nil, err
	}
	t.Start = m.Cfg
	if tj.Start != nil {
		t.Start = *tj.Start
	}
	if _, err := t.adam.LoadStateFile(filepath.Join(dir, optimizerFile)); err != nil {
		return nil, err
	}
	if err := checkStateFinite(t.adam.State(), filepath.Join(dir, optimizerFile)); err != nil {
		return nil, err
	}
	t.State, t.History = tj.State, tj.History
	if t.State.BestEpoch > 0 {
		if t.best, err = t.readSnapshot(dir, bestFile, bestTreeFile, false); err != nil {
			return nil, err
		}
	}
	if p := tj.InEpoch; p != nil {
		start, err := t.readSnapshot(dir, startFile, startTreeFile, true)
		if err != nil {
			return nil, err
		}
		if start.tree.Len() != m.Topics.Tree.Len() {
			return nil, fmt.Errorf("%s: the epoch's start has %d topics, the model %d: the tree changes only between epochs", filepath.Join(dir, startTreeFile), start.tree.Len(), m.Topics.Tree.Len())
		}
		t.sess.part = &partialEpoch{batches: p.Batches, graph: p.Graph, topic: p.Topic, level: p.Level, branch: p.Branch, div: p.Div, sup: p.Sup,
			total: p.Total, docs: p.Docs, seconds: p.Seconds, dropout: p.Dropout, start: start}
		if int64(p.Batches) > t.stepsPerEpoch() {
			return nil, fmt.Errorf("%s: %d steps done in an epoch of %d", path, p.Batches, t.stepsPerEpoch())
		}
		if err := m.SetDropoutState(p.Dropout); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// The epoch built its neighbour cache from the weights at its
		// start: build it the same way, then put the current weights back.
		if t.cache != nil {
			cur := t.snapshotParams()
			t.restoreParams(start)
			e := t.State.Epoch
			t.refreshCache(t.epochLinks(e), t.sampler.Resample(e), t.sampler.K())
			t.restoreParams(cur)
			t.cacheFresh = true
		}
	}
	t.sess.resumed, t.sess.saved = true, true
	return t, nil
}

// readSnapshot reads a snapshot written by writeSnapshot, with the
// optimiser state when withOpt (the epoch's start). Per-topic tensors take
// the shape of the snapshot's own tree; every other tensor must have the
// model's shape; every value must be finite.
func (t *Trainer) readSnapshot(dir, file, treeFile string, withOpt bool) (*snapshot, error) {
	path := filepath.Join(dir, file)
	ts, meta, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tree, err := topictree.ReadFile(filepath.Join(dir, treeFile))
	if err != nil {
		return nil, err
	}
	m := t.Model
	b := &snapshot{params: map[string][]float32{}, shapes: map[string][]int{}, tree: tree,
		radius: m.Cfg.Tree.FDRadius, temp: m.Cfg.Tree.FDTemp}
	var errs []error
	number := func(key string, dst *float64) {
		v, ok := meta[key]
		if !ok {
			errs = append(errs, fmt.Errorf("metadata %s missing", key))
			return
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			errs = append(errs, fmt.Errorf("metadata %s = %q is not a non-negative number", key, v))
		}
		*dst = x
	}
	number(metaRadius, &b.radius)
	number(metaTemp, &b.temp)
	want := map[string]bool{}
	for _, p := range m.Params() {
		want[p.Name] = true
		v, ok := ts[p.Name]
		switch {
		case !ok && p.Name == model.MixParam:
			// A state from before the background mixture was switched on
			// (Options.BackgroundMixAtEnd): restored without it.
		case !ok:
			errs = append(errs, fmt.Errorf("tensor %q missing", p.Name))
		case p.Name == m.Topics.Input.Name && (len(v.Shape) != 2 || v.Shape[0] != tree.Len() || v.Shape[1] != p.Shape[1]):
			errs = append(errs, fmt.Errorf("tensor %q has shape %v for a tree of %d topics", p.Name, v.Shape, tree.Len()))
		case p.Name != m.Topics.Input.Name && !tensor.SameShape(v, p):
			errs = append(errs, fmt.Errorf("tensor %q has shape %v, want %v", p.Name, v.Shape, p.Shape))
		default:
			if err := model.CheckFinite(v); err != nil {
				errs = append(errs, err)
			}
			b.params[p.Name] = v.Data
			b.shapes[p.Name] = v.Shape
		}
	}
	if withOpt {
		b.opt = map[string]*tensor.Tensor{}
		for name, v := range t.adam.State() {
			want[name] = true
			x, ok := ts[name]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("tensor %q missing", name))
			case !slices.Equal(x.Shape, v.Shape):
				errs = append(errs, fmt.Errorf("tensor %q has shape %v, want %v", name, x.Shape, v.Shape))
			default:
				if err := model.CheckFinite(x); err != nil {
					errs = append(errs, err)
				}
				b.opt[name] = x
			}
		}
		for key, dst := range map[string]*int64{metaOptStep: &b.optStep, metaStep: &b.step} {
			x, err := strconv.ParseInt(meta[key], 10, 64)
			if err != nil || x < 0 {
				errs = append(errs, fmt.Errorf("metadata %s = %q is not a step count", key, meta[key]))
			}
			*dst = x
		}
	}
	for name := range ts {
		if !want[name] {
			errs = append(errs, fmt.Errorf("tensor %q is not part of the state", name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// checkStateFinite reports a NaN or infinity in the optimiser's state.
func checkStateFinite(st map[string]*tensor.Tensor, path string) error {
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if err := model.CheckFinite(st[k]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}
