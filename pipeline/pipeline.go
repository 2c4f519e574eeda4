// Package pipeline is one training run from its settings to its output
// folder: a new model (with the corpus's word vectors when asked) or the
// folder's checkpoint, training, evaluation on the test split, metrics,
// learning curves and the document map, and the outputs of
// `gtformer train --out`; or, for a run that must not read the test split,
// the validation-only outputs. `gtformer train` and `gtformer experiment`
// both run it, so the two cannot drift apart.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/phases"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/train"
)

// Resume says what Run does with a checkpoint in the run's folder.
type Resume int

const (
	// ResumeNever starts a new model; an earlier checkpoint is
	// overwritten by this run's.
	ResumeNever Resume = iota
	// ResumeRequired continues from the checkpoint, which must exist
	// (`gtformer train --resume`).
	ResumeRequired
	// ResumeIfPresent continues from a checkpoint when there is one and
	// starts a new model otherwise (an experiment's run, restarted).
	ResumeIfPresent
)

// Spec is one run.
type Spec struct {
	// Dir is the output folder, made when missing.
	Dir string
	// Dataset names the corpus in metrics.json and the plots' titles.
	Dataset string
	// Variant is an experiment's variant name, recorded in metrics.json
	// and the plots' titles ("": none, as for `gtformer train`).
	Variant string
	// Source says where the corpus came from, for the log ("": Dataset).
	Source string
	Graph  *corpus.Graph
	Split  *corpus.Split
	// Planted is each document's planted leaf for a corpus with a planted
	// tree (evaluate.Options.Planted); nil: none.
	Planted []int32

	// Config and Options are the run's settings; Run fills in the
	// vocabulary and label count from Graph. A resumed run takes both from
	// its checkpoint.
	Config  model.Config
	Options train.Options
	// Glove initialises a new model's word rows from the corpus's word
	// vectors, when it has them.
	Glove bool
	// Env is the trainer's environment. Its Checkpoint "" means
	// Dir/checkpoint; Phases nil means Run keeps its own record; Progress
	// also receives the final embedding's progress.
	Env    train.Env
	Resume Resume
	// CheckResume, when set, is called with a resumed trainer before it
	// runs (the command's check of its flags against the checkpoint; it
	// may extend the epochs).
	CheckResume func(tr *train.Trainer) error
	// Watch, when set, is called with the trainer just before it runs
	// (the command routes signals to its Interrupt); the returned stop
	// is called when training ends.
	Watch func(tr *train.Trainer) (stop func())

	// Queries is evaluate.Options.Queries (0: evaluate.DefaultQueries).
	Queries int
	// ValidOnly ends the run after training with the validation-only
	// outputs (WriteValid): the test split is never read.
	ValidOnly bool
	// Map draws the document map of the test documents (t-SNE, a few
	// seconds per thousand documents); false: no map.
	Map bool
	// OwnFiles are names the caller wrote into Dir itself before the run
	// (an experiment's run.json and train.log); any other file in a
	// folder that is not a gtformer output makes Run refuse the folder.
	OwnFiles []string
}

// Result is what a run produced.
type Result struct {
	Trainer *train.Trainer
	// Resumed is the epoch the run's checkpoint had reached when Run
	// continued from it (0: a new model).
	Resumed int
	// Seconds is this session's training time, evaluation excluded.
	Seconds float64
	// Eval is the test evaluation (nil for a validation-only run).
	Eval *evaluate.Result
	// Metrics is metrics.json as written (zero for a validation-only run).
	Metrics outputs.Metrics
	// Valid is valid.json as written (nil unless ValidOnly).
	Valid *ValidReport
	// Topics are the topics as topics.txt lists them.
	Topics []outputs.Topic
}

// SettingsError is a mistake of the run's settings or of their fit to the
// corpus, found before any training: a command reports it as a usage error.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }
func (e *SettingsError) Unwrap() error { return e.Err }

// Run carries out the run. A trainer that stops early (train.Interrupted)
// returns that error with its checkpoint written and no outputs.
func Run(sp Spec) (*Result, error) {
	env := sp.Env
	env.Planted = sp.Planted
	if env.Checkpoint == "" {
		env.Checkpoint = filepath.Join(sp.Dir, "checkpoint")
	}
	if env.Phases == nil {
		env.Phases = phases.New()
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	if sp.Dir == "" {
		return nil, errNoDir
	}
	release, err := claimDir(sp.Dir, append(slices.Clone(sp.OwnFiles), FilesManifest))
	if err != nil {
		return nil, err
	}
	defer release()
	if err := checkOwned(sp.Dir); err != nil {
		return nil, err
	}
	tr, resumed, err := start(sp, env, log)
	if err != nil {
		return nil, err
	}
	r := &Result{Trainer: tr}
	if resumed {
		r.Resumed = tr.State.Epoch
	}
	if env.Progress != nil {
		tr.Model.Progress = env.Progress
	}
	src := sp.Source
	if src == "" {
		src = sp.Dataset
	}
	g, s := sp.Graph, sp.Split
	epoch := "epochs of one pass"
	switch {
	case tr.Opt.StepsPerEpoch > 0:
		epoch = fmt.Sprintf("epochs of %d steps", tr.Opt.StepsPerEpoch)
	case tr.Opt.Budget > 0:
		epoch = "epochs as long as --budget allows"
	}
	fmt.Fprintf(log, "training on %s: %d documents, %d training links (%d validation documents and their links held out), %s, %s BLAS: %s\n",
		src, g.NumDocs(), len(tr.H.TrainLinks), len(s.Valid), epoch, tensor.BLASName(), tensor.BLASSource())
	began := time.Now()
	stop := func() {}
	if sp.Watch != nil {
		stop = sp.Watch(tr)
	}
	err = tr.Run()
	stop()
	if err != nil {
		return r, err
	}
	r.Seconds = time.Since(began).Seconds()
	if sp.ValidOnly {
		return r, finishValid(sp, r, log)
	}
	return r, finish(sp, env.Phases, r, log)
}

// start resumes the trainer from the checkpoint or makes a new model.
func start(sp Spec, env train.Env, log io.Writer) (tr *train.Trainer, resumed bool, err error) {
	resumed = sp.Resume == ResumeRequired || sp.Resume == ResumeIfPresent && train.HasCheckpoint(env.Checkpoint)
	if resumed {
		tr, err := train.Resume(env.Checkpoint, sp.Graph, sp.Split, env)
		if err != nil {
			return nil, true, err
		}
		if sp.CheckResume != nil {
			if err := sp.CheckResume(tr); err != nil {
				return nil, true, err
			}
		}
		fmt.Fprintf(log, "resuming %s after step %d (epoch %d of %d done)\n", env.Checkpoint, tr.State.Step, tr.State.Epoch, tr.Opt.Epochs)
		return tr, true, nil
	}
	g := sp.Graph
	cfg, opt := sp.Config, sp.Options
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	if cfg.Supervised && g.Labels == nil {
		return nil, false, &SettingsError{fmt.Errorf("pipeline: supervised training needs labels, and %s has none", sp.Dataset)}
	}
	m, err := model.New(cfg, opt.Seed)
	if err != nil {
		return nil, false, &SettingsError{err}
	}
	if sp.Glove && g.WordVectors != nil {
		if err := m.InitWordVectors(g.WordVectors, g.WordDim, opt.Seed); err != nil {
			return nil, false, err
		}
	}
	tr, err = train.New(m, g, sp.Split, opt, env)
	return tr, false, err
}

// finish evaluates the trained model on the test split and writes the
// outputs: the plots first, then outputs.Write, whose metrics.json comes
// last and marks the run finished (an experiment skips such a run), then
// metrics.json again with every phase's time.
func finish(sp Spec, ph *phases.Record, r *Result, log io.Writer) error {
	tr, g, s := r.Trainer, sp.Graph, sp.Split
	seed := tr.Opt.Seed
	res := evaluate.Run(tr.Model, g, s, tr.In, evaluate.Options{MaxNbrs: tr.Opt.MaxNbrs, EmbedBatch: tr.Opt.EmbedBatch,
		Phases: ph, Planted: sp.Planted, Queries: sp.Queries, Seed: seed})
	r.Eval = res
	met := outputs.Metrics{
		Dataset: sp.Dataset, Seed: seed, Supervised: tr.Model.Cfg.Supervised, Variant: sp.Variant,
		TrainSeconds: trainSeconds(tr.History, r.Seconds), Epochs: tr.State.Epoch, BLAS: tensor.BLASName(),
	}
	if n := len(tr.History); n > 0 {
		met.DocsPerSec = tr.History[n-1].DocsPerSec
	}
	met.KeptEpoch, met.Valid = tr.Kept()
	written := outputs.Written(tr.Model, g)
	stop := ph.Start("plots")
	drew, err := drawCurves(sp.Dir, title(sp, seed), tr.History)
	if err == nil && drew {
		written = append(written, "curves.png", "curves.svg")
	}
	if err == nil && sp.Map {
		drew, err = drawMap(sp.Dir, fmt.Sprintf("%s test documents (t-SNE of log_o d), seed %d", sp.Dataset, seed), g, s, res.Emb, seed)
		if drew {
			written = append(written, "map.png", "map.svg")
		}
	}
	stop()
	if err != nil {
		return err
	}
	stop = ph.Start("outputs")
	err = outputs.Write(sp.Dir, tr.Model, seed, g, tr.In, res, met)
	stop()
	if err != nil {
		return err
	}
	met.Test, met.Topics = res.Test, res.Topics
	met.Phases = ph.Seconds()
	if peaks := ph.PeakRSS(); peaks != nil {
		met.PhasePeakRSS = map[string]float64{}
		for k, v := range peaks {
			met.PhasePeakRSS[k] = math.Round(v/1e7) / 100
		}
	}
	if err := outputs.WriteMetrics(filepath.Join(sp.Dir, outputs.MetricsFile), met); err != nil {
		return err
	}
	r.Metrics = met
	r.Topics = outputs.Topics(tr.Model, g, res.Emb.Theta, tr.In.Len)
	return removeStale(sp.Dir, written, log)
}

// title is the learning curves' title: the dataset, the variant if any,
// the seed.
func title(sp Spec, seed uint64) string {
	t := sp.Dataset
	if sp.Variant != "" {
		t += ", " + sp.Variant
	}
	return fmt.Sprintf("%s, seed %d", t, seed)
}

// removeStale removes from dir an earlier run's files that this run, which
// wrote written, did not write: they would sit beside its outputs as if
// they were its own.
func removeStale(dir string, written []string, log io.Writer) error {
	man, err := readManifest(dir)
	if err != nil {
		return err
	}
	stale, err := staleFiles(dir, written, man)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	var removed []string
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		removed = append(removed, name)
	}
	if len(removed) > 0 {
		fmt.Fprintf(log, "removed %s of an earlier run from %s\n", strings.Join(removed, ", "), dir)
	}
	return recordWritten(dir, written)
}

// trainSeconds sums the epochs' times (across resumed sessions); fallback
// when the history holds none.
func trainSeconds(h []train.EpochLog, fallback float64) float64 {
	var s float64
	for _, e := range h {
		s += e.Seconds
	}
	if s == 0 {
		return fallback
	}
	return s
}

// errNoDir is returned for a Spec without an output folder.
var errNoDir = errors.New("pipeline: no output folder")
