package train

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/progress"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topicfit"
)

// State is the trainer's position, saved in checkpoints.
type State struct {
	Epoch     int     `json:"epoch"` // epochs completed
	Step      int64   `json:"step"`  // optimiser steps taken
	LRScale   float64 `json:"lr_scale"`
	Rollbacks int     `json:"rollbacks"`
	BestEpoch int     `json:"best_epoch"` // 0: none yet
	BestScore float64 `json:"best_score"`
}

// EpochLog is one line of the learning curve.
type EpochLog struct {
	Epoch  int     `json:"epoch"`
	Graph  float64 `json:"graph_loss"`
	Topic  float64 `json:"topic_loss"`
	Level  float64 `json:"level_loss,omitempty"`
	Branch float64 `json:"branch_loss,omitempty"`
	Div    float64 `json:"div_loss,omitempty"`
	Sup    float64 `json:"sup_loss"`
	Total  float64 `json:"total_loss"`
	// Validation metrics, on the held-out validation documents (Holdout):
	// kNN Micro- and Macro-F1, link AUC over the held-out links among them,
	// and their perplexity exponent.
	ValidF1      *float64 `json:"valid_knn_micro_f1,omitempty"`
	ValidMacroF1 *float64 `json:"valid_knn_macro_f1,omitempty"`
	ValidAUC     *float64 `json:"valid_link_auc,omitempty"`
	ValidLogPerp *float64 `json:"valid_log_perplexity,omitempty"`
	// ValidHalves score the validation documents in two halves (even and
	// odd positions; links within each half): a rule that selects an epoch
	// on one half can be judged on the other without the optimism of
	// judging it where it selected.
	ValidHalves []HalfScore `json:"valid_halves,omitempty"`
	// LevelShare is the share of the training words at each level of the
	// tree, root first (θ summed over a level's topics, weighted by
	// document length), over the training documents outside validation.
	LevelShare []float64 `json:"level_share,omitempty"`
	// Diagnostics of the validated state (not used to select it): the
	// mean norm of log_o d over the validation documents, and their kNN
	// Micro-F1 on log_o d instead of the hyperboloid coordinates (the two
	// agree near the origin; far from it the coordinates' Euclidean
	// distance stretches radial differences).
	ValidRadius     float64  `json:"valid_radius,omitempty"`
	ValidTangentKNN *float64 `json:"valid_tangent_knn_micro_f1,omitempty"`
	// ValidSupF1 is the supervised head's Micro-F1 on the validation
	// documents (supervised runs only).
	ValidSupF1 *float64 `json:"valid_sup_micro_f1,omitempty"`
	// ValidRecovery is the planted tree's recovery NMI (evaluate.Recovery)
	// on the validation sample's training documents, for a corpus with a
	// planted tree (Env.Planted); nil otherwise.
	ValidRecovery *float64 `json:"valid_recovery_nmi,omitempty"`
	Topics        int      `json:"topics"`
	Seconds       float64  `json:"seconds"`
	DocsPerSec    float64  `json:"docs_per_sec"`
	// Elapsed is the wall time from Env.Began to the end of this epoch's
	// validation, in seconds: with the validation figures, the run's time
	// to quality.
	Elapsed float64 `json:"elapsed_seconds,omitempty"`
}

// Trainer trains one model on one corpus and split.
//
// Training runs on the split's Holdout (H): only links among the training
// documents that are not validation documents are trained on, validation
// documents are embedded through their links to those alone, and
// validation link AUC ranks the held-out links among validation documents,
// exactly as the test split is scored afterwards on S.
type Trainer struct {
	Opt Options
	Env Env
	// Start is the model configuration the run started from. The model's
	// own (Model.Cfg) changes as training sets σ's radius and temperature
	// and switches on the background mixture; Start is what the caller
	// asked for, saved in checkpoints so that a resumed run can be
	// checked against it.
	Start model.Config
	Model *model.Model
	G     *corpus.Graph
	S     *corpus.Split // the split the model is evaluated on afterwards
	H     *corpus.Split // S.Holdout: what training sees and validation scores
	In    *model.Inputs

	State   State
	History []EpochLog

	// vs is the split that validation scores, the topic start fits and the
	// tree grows from: H, or H reduced to Opt.SampleDocs evenly spaced
	// training and validation documents (and the held-out links among the
	// latter) when H has more.
	vs *corpus.Split

	adam    *optim.Adam
	sampler *corpus.Sampler
	cache   *model.Cache
	// cacheFresh says the cache already holds the refresh of the current
	// weights: validation (or the topic start) built it over the same
	// documents and neighbour lists that the next epoch's refresh would,
	// so that epoch skips its own, and so does a validation or topic start
	// that follows with nothing changed. Training steps clear it, and so
	// does a change of the topic side when the cache reads it
	// (model.Config.CacheReadsTopics: two hops).
	cacheFresh bool
	best       *snapshot
	log        io.Writer
	// sess is this trainer's checkpoint bookkeeping and stop request
	// (checkpoint.go, interrupt.go).
	sess session
	// clock times this session's epochs for the progress line's whole-run
	// estimate (eta.go).
	clock runClock

	// GrowFrom, when set, are the documents whose word shares decide
	// where growth adds topics (a topic's own share of their words above
	// the tree's SAdd); pruning still reads every training document
	// outside validation. gtformer update sets it to the new documents
	// (SetGrowFrom), so that the tree grows where they need topics. nil:
	// the training documents.
	GrowFrom []int32

	// continued says the model was trained before (Continue): Run
	// keeps its topics, skipping the topic start and its refit.
	continued bool

	// beforeStep, when set (tests only: the NaN guard's test poisons a
	// parameter through it), runs before each step's forward pass with the
	// number the step will have (1-based, as in the guard's messages).
	beforeStep func(step int64)
	// onBatch, when set (tests only), sees every training batch before its
	// forward pass.
	onBatch func(b *model.Batch)
}

// minVocab is the smallest vocabulary a model trains on: with one word
// every topic is the same distribution and the topic metrics are undefined.
const minVocab = 2

// New prepares training: inputs (idf from the training documents), the
// neighbour sampler and the optimiser. m must be freshly built for g.
func New(m *model.Model, g *corpus.Graph, s *corpus.Split, opt Options, env Env) (*Trainer, error) {
	t, err := setup(m, g, s, opt, env)
	if err != nil {
		return nil, err
	}
	t.Start = startOf(m.Cfg)
	return t, nil
}

// startOf is a copy of c that shares nothing with it, for Trainer.Start:
// the configuration a run started from, which later changes to the
// model's must not reach.
func startOf(c model.Config) model.Config {
	c.SkipGate = clonePtr(c.SkipGate)
	c.Tree.BackgroundLevels = slices.Clone(c.Tree.BackgroundLevels)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// setup is New without recording the start (Resume reads it from
// the checkpoint).
func setup(m *model.Model, g *corpus.Graph, s *corpus.Split, opt Options, env Env) (*Trainer, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if env.StopAfter < 0 {
		return nil, fmt.Errorf("train: stop after %d epochs: must be non-negative (0 = all)", env.StopAfter)
	}
	// A checkpoint resumed on other data would index past the model's
	// tables; say so instead.
	if m.Cfg.Vocab != len(g.Vocab) {
		return nil, fmt.Errorf("train: the model has a vocabulary of %d words and the corpus %d: a model trains only on the corpus it was built for", m.Cfg.Vocab, len(g.Vocab))
	}
	if m.Cfg.Supervised && (g.Labels == nil || g.NumLabels() != m.Cfg.NumLabels) {
		return nil, fmt.Errorf("train: the supervised model has %d labels and the corpus %d: a model trains only on the corpus it was built for", m.Cfg.NumLabels, g.NumLabels())
	}
	if len(g.Vocab) < minVocab {
		return nil, fmt.Errorf("train: the corpus has a vocabulary of %d word: topics are distributions over words and need at least %d to differ", len(g.Vocab), minVocab)
	}
	if err := opt.CheckModel(&m.Cfg); err != nil {
		return nil, err
	}
	if m.Corpus == nil {
		m.Corpus = env.Corpus
		if m.Corpus == nil {
			m.Corpus = corpus.NewFingerprint(g, s, nil, g.Name)
		}
	}
	stop := env.Phases.Start("split and sampler")
	h := s.Holdout(g)
	stop()
	if len(h.TrainLinks) == 0 {
		if g.LinksInduced {
			return nil, fmt.Errorf("train: the text-similarity links (--knn-links) join no two training documents outside validation among the corpus's %d documents: the graph loss has nothing to learn from; a corpus this small cannot be trained", g.NumDocs())
		}
		return nil, errors.New("train: no links among the training documents outside validation: the graph loss has nothing to learn from (use --knn-links to induce links from text similarity)")
	}
	// The idf, the hop features' basis and the decoder's background read
	// the text of the training documents outside validation, as the
	// features' propagation reads only the links among them: validation
	// scores documents the model has never read, topics included.
	in, err := m.PrepareInputs(g, h.Train, opt.Seed, env.Phases.Start)
	if err != nil {
		return nil, err
	}
	stop = env.Phases.Start("features")
	m.PropagateFeatures(in, h.TrainNeighbors32)
	stop()
	if env.Began.IsZero() {
		env.Began = time.Now()
	}
	stop = env.Phases.Start("split and sampler")
	t := &Trainer{
		Opt: opt, Env: env, Model: m, G: g, S: s, H: h,
		In:      in,
		State:   State{LRScale: 1},
		vs:      sampleSplit(h, opt.SampleDocs),
		sampler: corpus.NewSampler(h, m.Cfg.Neighbors, opt.Seed),
		log:     env.log(),
	}
	stop()
	if opt.Budget == 0 {
		t.Opt.StepsPerEpoch = opt.capSteps(len(h.TrainLinks))
	}
	cfg := optim.DefaultConfig()
	cfg.WeightDecay = opt.WeightDecay
	cfg.NoDecay = optim.MatchNames("*.b", "*.gamma", "*.beta", "embed.*", "scale.*", "tree.root_in", "tree.level_start", model.MixParam)
	scales := map[string]float64{}
	if f := opt.DecoderLRScale; f > 0 && f != 1 {
		scales[model.DecoderParam] = f
	}
	if len(scales) > 0 {
		cfg.LRScale = model.LRScales(scales)
	}
	t.adam = optim.NewAdamW(cfg)
	for _, p := range m.Params() {
		if err := t.adam.Add(p); err != nil {
			return nil, fmt.Errorf("train: optimiser: %w", err)
		}
	}
	if opt.Nesting == NestingCache {
		t.cache = m.NewCache(g.NumDocs())
	}
	return t, nil
}

func (t *Trainer) schedule() optim.Schedule {
	total := t.stepsPerEpoch() * int64(t.Opt.Epochs)
	return optim.Schedule{Peak: t.Opt.LR, Floor: t.Opt.LRFloor, Warmup: int64(min(t.Opt.Warmup, int(total/2))), Total: total, Decay: optim.Cosine}
}

// Run trains from the current state to Opt.Epochs and leaves the model at its
// best validated state. With Env.StopAfter > 0 it returns after that many
// epochs of this session and, if Opt.Epochs is not reached yet, leaves the
// model at its current state (the checkpoint continues from there).
//
// Interrupt makes Run return an *Interrupted error once the step in
// progress is done, after writing a checkpoint of that state (when
// Env.Checkpoint is set).
func (t *Trainer) Run() error {
	if !t.sess.resumed && !t.continued && t.State.Epoch == 0 && t.State.Step == 0 {
		if err := t.initTopics(); err != nil {
			return err
		}
		if t.Opt.ValidateStart {
			// Epoch 0: the start, scored for the record (the learning curve
			// shows what training adds); never a kept state.
			rec := &EpochLog{}
			stop := t.Env.Phases.Start("validation")
			t.scoreValidation(rec)
			stop()
			rec.Topics = t.Model.Topics.Tables().T
			t.History = append(t.History, *rec)
			t.logEpoch(rec)
		}
	}
	if t.Opt.Budget > 0 && t.Opt.StepsPerEpoch == 0 && t.State.Step == 0 {
		if err := t.planBudget(t.Env.Began); err != nil {
			return err
		}
	}
	if t.continued && !t.sess.resumed && t.State.Step == 0 && t.Model.Cfg.Tree.Mode == "grow" && t.GrowFrom != nil {
		if err := t.growFirst(); err != nil {
			return err
		}
	}
	for ran := 0; t.State.Epoch < t.Opt.Epochs; {
		if t.Env.StopAfter > 0 && ran == t.Env.StopAfter {
			fmt.Fprintf(t.log, "stopped after epoch %d of %d as asked (resume to continue)\n", t.State.Epoch, t.Opt.Epochs)
			return nil
		}
		if t.sess.stop.Load() {
			return t.stopped()
		}
		start := t.snapshot()
		if p := t.sess.part; p != nil {
			start = p.start // resumed inside this epoch
		}
		t.sess.saved = false
		rec, err := t.epoch()
		if errors.Is(err, errStopped) {
			t.sess.part.start = start
			return t.stopped()
		}
		if err != nil {
			var nf *nonFinite
			if !errors.As(err, &nf) {
				return err
			}
			if t.State.Rollbacks >= 3 {
				return fmt.Errorf("train: training diverged (%w) and stayed so after %d roll-backs with the learning rate halved each time; lower --lr or --init-scale (the model was not written)", err, t.State.Rollbacks)
			}
			t.restore(start)
			t.State.Rollbacks++
			t.State.LRScale /= 2
			fmt.Fprintf(t.log, "%v: rolled back to the start of epoch %d, learning rate ×%g\n", err, t.State.Epoch+1, t.State.LRScale)
			continue
		}
		t.State.Epoch++
		ran++
		if t.Opt.placesTopics() && !t.continued && t.State.Epoch == t.Opt.TopicRefit && t.State.Epoch < t.Opt.Epochs {
			fmt.Fprintf(t.log, "epoch %d: topic start redone on the trained document embeddings\n", t.State.Epoch)
			if err := t.initTopics(); err != nil {
				return err
			}
		}
		last := t.State.Epoch == t.Opt.Epochs
		if last && (t.Opt.FinalPrune || t.Opt.FinalPruneBelow > 0) && t.Model.Cfg.Tree.Mode == "grow" {
			if err := t.finalPrune(); err != nil {
				return err
			}
		}
		if last {
			if err := t.finish(); err != nil {
				return err
			}
		}
		grow := t.Model.Cfg.Tree.Mode == "grow" && t.Opt.growsAfter(t.State.Epoch)
		valid := t.State.Epoch%t.Opt.ValidEvery == 0 || last
		if valid || grow {
			if err := t.validate(rec, grow); err != nil {
				return err
			}
		}
		rec.Topics = t.Model.Topics.Tables().T
		rec.Elapsed = time.Since(t.Env.Began).Seconds()
		t.History = append(t.History, *rec)
		t.logEpoch(rec)
		if t.Env.Checkpoint != "" {
			if err := t.SaveCheckpoint(t.Env.Checkpoint); err != nil {
				return err
			}
			t.sess.saved = true
		}
	}
	if t.best != nil {
		t.restoreParams(t.best)
		fmt.Fprintf(t.log, "kept the state of epoch %d (best validation score %.2f)\n", t.State.BestEpoch, t.State.BestScore)
		// The kept state's σ is fitted to its own θ, as the last state's
		// was before its validation.
		if t.fitsSimilarity() && t.State.Epoch == t.Opt.Epochs && t.State.BestEpoch != t.State.Epoch {
			return t.fitSimilarity(t.embedCurrent(t.vs.Train))
		}
	}
	return nil
}

// nonFinite reports a NaN or Inf in a loss part or the gradient norm.
type nonFinite struct {
	step int64
	part string
	val  float64
}

func (e *nonFinite) Error() string {
	return fmt.Sprintf("step %d: %s is %v", e.step, e.part, e.val)
}

func (t *Trainer) epoch() (*EpochLog, error) {
	m := t.Model
	e := t.State.Epoch
	m.SeedDropout(t.Opt.Seed, uint64(e))
	began := time.Now()
	stop := t.Env.Phases.Start("split and sampler")
	nbrTable := t.sampler.Resample(e)
	k := t.sampler.K()
	links := t.epochLinks(e)
	stop()
	if !t.cacheFresh {
		t.refreshCache(links, nbrTable, k)
	}
	t.cacheFresh = false
	defer t.Env.Phases.Start("steps")()

	steps := t.stepsPerEpoch()
	perEpoch := t.clock.epochBegins()
	var bar *progress.Bar
	if t.Env.Progress != nil {
		bar = progress.New(t.Env.Progress, fmt.Sprintf("epoch %d/%d steps", e+1, t.Opt.Epochs), steps)
		bar.SetRun(t.Opt.Epochs-e-1, perEpoch)
	}
	sched := t.schedule()
	tp := tensor.NewTape()
	rec := &EpochLog{Epoch: e + 1}
	var docs int
	first := t.resumeInEpoch(rec, &docs, &began)
	if bar != nil {
		bar.Add(int64(first))
	}
	for lo := first * t.Opt.BatchLinks; lo < len(links); lo += t.Opt.BatchLinks {
		b := t.batch(links[lo:min(lo+t.Opt.BatchLinks, len(links))], nbrTable, k)
		tp.Reset()
		if t.beforeStep != nil {
			t.beforeStep(t.State.Step + 1)
		}
		if t.onBatch != nil {
			t.onBatch(b)
		}
		parts, err := t.step(tp, b, sched.At(t.State.Step)*t.State.LRScale)
		if err != nil {
			return nil, err
		}
		t.State.Step++
		rec.Graph += parts.Graph
		rec.Topic += parts.Topic
		rec.Level += parts.Level
		rec.Branch += parts.Branch
		rec.Div += parts.Div
		rec.Sup += parts.Sup
		rec.Total += parts.Total
		docs += len(b.Centres)
		if bar != nil {
			el := time.Since(began).Seconds()
			bar.SetFloat("graph", parts.Graph)
			bar.SetFloat("topic", parts.Topic)
			if m.Cfg.Supervised {
				bar.SetFloat("sup", parts.Sup)
			}
			bar.SetFloat("docs/s", float64(docs)/el)
			bar.Add(1)
		}
		if t.sess.stop.Load() && lo+t.Opt.BatchLinks < len(links) {
			if bar != nil {
				bar.Finish()
			}
			return nil, t.stopInEpoch(lo/t.Opt.BatchLinks+1, rec, docs, began)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	ns := float64(steps)
	rec.Graph /= ns
	rec.Topic /= ns
	rec.Level /= ns
	rec.Branch /= ns
	rec.Div /= ns
	rec.Sup /= ns
	rec.Total /= ns
	rec.Seconds = time.Since(began).Seconds()
	rec.DocsPerSec = float64(docs) / rec.Seconds
	return rec, nil
}

// step takes one optimiser step on batch b at learning rate lr: the loss,
// its gradient (clipped), the update, σ's tracking, and the gradients
// cleared. A non-finite loss part or gradient norm is a *nonFinite error,
// with nothing updated.
func (t *Trainer) step(tp *tensor.Tape, b *model.Batch, lr float64) (model.Parts, error) {
	m := t.Model
	loss, parts, err := m.Loss(tp, t.In, b, t.cache)
	if err != nil {
		return parts, err
	}
	names, vals := parts.Names()
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return parts, &nonFinite{step: t.State.Step + 1, part: names[i] + " loss", val: v}
		}
	}
	tp.Backward(loss)
	norm := t.adam.ClipGradNorm(t.clip())
	if !math.IsNaN(norm) && !math.IsInf(norm, 0) {
		t.adam.Step(lr)
		topicfit.Track(m, parts.Out.Points, parts.Out.Z)
	}
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return parts, &nonFinite{step: t.State.Step + 1, part: "gradient norm", val: norm}
	}
	return parts, nil
}

func (t *Trainer) clip() float64 {
	if t.Opt.Clip <= 0 {
		return math.Inf(1)
	}
	return t.Opt.Clip
}
