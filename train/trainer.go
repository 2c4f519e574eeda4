package train

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/internal/progress"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topicstart"
	"github.com/gtformer/gtformer/topictree"
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
	Topics     int      `json:"topics"`
	Seconds    float64  `json:"seconds"`
	DocsPerSec float64  `json:"docs_per_sec"`
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
	t.Start = m.Cfg
	t.Start.SkipGate = clonePtr(m.Cfg.SkipGate)
	t.Start.Tree.BackgroundLevels = slices.Clone(m.Cfg.Tree.BackgroundLevels)
	return t, nil
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
		return nil, fmt.Errorf("training options: %w", err)
	}
	if env.StopAfter < 0 {
		return nil, fmt.Errorf("stop after %d epochs: must be non-negative (0 = all)", env.StopAfter)
	}
	// A checkpoint resumed on other data would index past the model's
	// tables; say so instead.
	if m.Cfg.Vocab != len(g.Vocab) {
		return nil, fmt.Errorf("the model has a vocabulary of %d words and the corpus %d: a model trains only on the corpus it was built for", m.Cfg.Vocab, len(g.Vocab))
	}
	if m.Cfg.Supervised && (g.Labels == nil || g.NumLabels() != m.Cfg.NumLabels) {
		return nil, fmt.Errorf("the supervised model has %d labels and the corpus %d: a model trains only on the corpus it was built for", m.Cfg.NumLabels, g.NumLabels())
	}
	if len(g.Vocab) < minVocab {
		return nil, fmt.Errorf("the corpus has a vocabulary of %d word: topics are distributions over words and need at least %d to differ", len(g.Vocab), minVocab)
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
		return nil, errors.New("no links among the training documents outside validation: the graph loss has nothing to learn from (use --knn-links to induce links from text similarity)")
	}
	stop = env.Phases.Start("tf-idf")
	if m.IDF == nil {
		m.IDF = model.IDF(g, s.Train)
	}
	if m.Cfg.Tree.Background && m.Topics.Background == nil {
		m.Topics.Background = model.LogUnigram(g, s.Train)
	}
	if m.Topics.Mix != nil && m.Topics.Unigram == nil {
		m.Topics.Unigram = model.Unigram(g, s.Train)
	}
	in := model.NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	stop()
	// The hop features' basis reads the training documents' text (as the
	// idf does); their propagation, like everything training sees, only
	// the links among training documents outside validation.
	stop = env.Phases.Start("features")
	if err := m.FitFeatures(in, s.Train, opt.Seed); err != nil {
		return nil, err
	}
	m.PropagateFeatures(in, h.TrainNeighbors32)
	stop()
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
			return nil, err
		}
	}
	if opt.Nesting == NestingCache {
		t.cache = m.NewCache(g.NumDocs())
	}
	return t, nil
}

// refreshCache rebuilds the neighbour cache (cache nesting) from the
// current weights, as every epoch starts with it: the rows of all training
// documents, or with StepsPerEpoch those the epoch's batches read (links
// and nbrTable, k per document, are the epoch's).
func (t *Trainer) refreshCache(links [][2]int32, nbrTable []int32, k int) {
	if t.cache == nil {
		return
	}
	defer t.Env.Phases.Start("cache refresh")()
	docs := t.H.Train
	if t.Opt.StepsPerEpoch > 0 {
		// An epoch of a few hundred steps on a large graph reads a
		// small part of the cache: refresh only that part.
		docs = t.readDocs(links, nbrTable, k)
	}
	t.Model.RefreshNeighbors(t.cache, t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
}

// trainNeighbors lists d's neighbours among the documents training sees
// (the training documents outside validation).
func (t *Trainer) trainNeighbors(d int32) []int32 { return t.H.TrainNeighbors32(d) }

func (t *Trainer) stepsPerEpoch() int64 {
	if t.Opt.StepsPerEpoch > 0 {
		return int64(t.Opt.StepsPerEpoch)
	}
	return int64((len(t.H.TrainLinks) + t.Opt.BatchLinks - 1) / t.Opt.BatchLinks)
}

// epochLinks returns epoch e's training links in step order. By default
// that is every training link, shuffled by (Seed, e). With StepsPerEpoch
// it is the epoch's StepsPerEpoch·BatchLinks links of one stream made of
// successive passes over the training links, pass p shuffled by (Seed, p):
// every link comes once before any comes twice, and an epoch's links
// depend only on its number (a resumed run draws the same ones).
func (t *Trainer) epochLinks(e int) [][2]int32 {
	all := t.H.TrainLinks
	if t.Opt.StepsPerEpoch == 0 {
		return shuffledLinks(all, t.Opt.Seed, int64(e))
	}
	n := int64(len(all))
	want := int64(t.Opt.StepsPerEpoch) * int64(t.Opt.BatchLinks)
	out := make([][2]int32, 0, want)
	for pos := int64(e) * want; int64(len(out)) < want; {
		pass, off := pos/n, pos%n
		take := min(n-off, want-int64(len(out)))
		out = append(out, shuffledLinks(all, t.Opt.Seed, pass)[off:off+take]...)
		pos += take
	}
	return out
}

// shuffledLinks returns a copy of links shuffled by (seed, pass).
func shuffledLinks(links [][2]int32, seed uint64, pass int64) [][2]int32 {
	out := slices.Clone(links)
	rng := rand.New(rand.NewPCG(seed, uint64(pass)<<1|1))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// readDocs returns the documents whose cache rows the batches of links
// read: the sampled neighbours (nbrTable, k per document) of the links'
// ends, and with MaskTargets every training neighbour of those ends (and
// the ends themselves), from which masked slots are refilled. Sorted,
// distinct.
func (t *Trainer) readDocs(links [][2]int32, nbrTable []int32, k int) []int32 {
	var docs []int32
	for _, l := range links {
		for _, d := range l {
			docs = append(docs, nbrTable[int(d)*k:int(d+1)*k]...)
			if t.Opt.MaskTargets {
				docs = append(docs, d)
				docs = append(docs, t.trainNeighbors(d)...)
			}
		}
	}
	slices.Sort(docs)
	return slices.Compact(docs)
}

// sampleSplit returns h reduced to at most max evenly spaced training and
// validation (test-side) documents and the held-out links among the kept
// validation documents; h itself when neither list is longer (or max is 0).
func sampleSplit(h *corpus.Split, max int) *corpus.Split {
	if max <= 0 || (len(h.Train) <= max && len(h.Test) <= max) {
		return h
	}
	r := *h
	r.Train = evenSample(h.Train, max)
	r.Test = evenSample(h.Test, max)
	r.TestLinks = linksWithin(h.TestLinks, r.Test)
	return &r
}

// evenSample returns at most max of docs, evenly spaced (docs itself when
// it is short enough).
func evenSample(docs []int32, max int) []int32 {
	if len(docs) <= max {
		return docs
	}
	out := make([]int32, max)
	for i := range out {
		out[i] = docs[int64(i)*int64(len(docs))/int64(max)]
	}
	return out
}

// linksWithin returns the links whose two ends are both in docs.
func linksWithin(links [][2]int32, docs []int32) [][2]int32 {
	in := make(map[int32]bool, len(docs))
	for _, d := range docs {
		in[d] = true
	}
	var out [][2]int32
	for _, l := range links {
		if in[l[0]] && in[l[1]] {
			out = append(out, l)
		}
	}
	return out
}

func (t *Trainer) schedule() optim.Schedule {
	total := t.stepsPerEpoch() * int64(t.Opt.Epochs)
	return optim.Schedule{Peak: t.Opt.LR, Floor: t.Opt.LRFloor, Warmup: int64(min(t.Opt.Warmup, int(total/2))), Total: total, Decay: optim.Cosine}
}

// Run trains from the current state to Opt.Epochs and leaves the model at its
// best validated state. With Opt.StopAfter > 0 it returns after that many
// epochs of this session and, if Opt.Epochs is not reached yet, leaves the
// model at its current state (the checkpoint continues from there).
//
// Interrupt makes Run return an *Interrupted error once the step in
// progress is done, after writing a checkpoint of that state (when
// Opt.Checkpoint is set).
func (t *Trainer) Run() error {
	if !t.sess.resumed && t.State.Epoch == 0 && t.State.Step == 0 {
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
				return fmt.Errorf("%w; stopped after %d roll-backs (the model was not written)", err, t.State.Rollbacks)
			}
			t.restore(start)
			t.State.Rollbacks++
			t.State.LRScale /= 2
			fmt.Fprintf(t.log, "%v: rolled back to the start of epoch %d, learning rate ×%g\n", err, t.State.Epoch+1, t.State.LRScale)
			continue
		}
		t.State.Epoch++
		ran++
		if t.Opt.placesTopics() && t.State.Epoch == t.Opt.TopicRefit && t.State.Epoch < t.Opt.Epochs {
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

// initTopics starts the topic side as Opt.TopicInit says (see Options).
func (t *Trainer) initTopics() error {
	if !t.Opt.placesTopics() {
		return nil
	}
	defer t.Env.Phases.Start("topic start")()
	m := t.Model
	// Through the trainer's cache, as validation embeds: a cache that does
	// not read the topics is then still fresh for the epoch or validation
	// that follows.
	emb := t.embedCurrent(t.vs.Train)
	if t.cache != nil && m.Cfg.CacheReadsTopics() {
		t.cacheFresh = false
	}
	if err := topicstart.Place(m, emb.Tangent, t.Opt.Seed); err != nil {
		return err
	}
	if t.Opt.TopicInit != TopicInitFit {
		return nil
	}
	r, temp := topicstart.Calibrate(m, emb.Tangent)
	m.Cfg.Tree.FDTrack = t.Opt.SimilarityTrack
	fmt.Fprintf(t.log, "topics placed at k-means clusters of the training documents; σ calibrated: r = %.3g, t = %.3g (tracked at rate %g)\n", r, temp, t.Opt.SimilarityTrack)
	if t.Opt.TopicWarmup == 0 {
		return nil
	}
	began := time.Now()
	nll, err := topicstart.Fit(m, emb.Tangent, t.In, t.vs.Train, topicstart.Options{
		Steps: t.Opt.TopicWarmup, LR: t.Opt.TopicWarmupLR, Batch: t.Opt.TopicWarmupBatch,
		Seed: t.Opt.Seed, DecoderOnly: true,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(t.log, "decoder warm-up: %d steps, topic NLL %.3f per token (%.1fs)\n", t.Opt.TopicWarmup, nll, time.Since(began).Seconds())
	return nil
}

// finalPrune is the last tree update (Options.FinalPrune,
// Options.FinalPruneBelow): the pruning of growTree without its additions,
// on the training documents as the final weights embed them.
func (t *Trainer) finalPrune() error {
	defer t.Env.Phases.Start("growth")()
	docs := t.vs.Train
	return t.growTree(t.embedCurrent(docs).Scatter(docs, t.G.NumDocs()), false)
}

// refitDecoder runs Opt.DecoderRefit decoder-only steps on the training
// documents outside validation as emb (row-aligned with t.vs.Train) embeds
// them (see Options.DecoderRefit).
func (t *Trainer) refitDecoder(emb *model.Embeddings) error {
	defer t.Env.Phases.Start("topic start")()
	began := time.Now()
	nll, err := topicstart.Fit(t.Model, emb.Tangent, t.In, t.vs.Train, topicstart.Options{
		Steps: t.Opt.DecoderRefit, LR: t.Opt.TopicWarmupLR, Batch: t.Opt.TopicWarmupBatch,
		Seed: t.Opt.Seed + 1, DecoderOnly: true,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(t.log, "decoder refit: %d steps, topic NLL %.3f per token (%.1fs)\n", t.Opt.DecoderRefit, nll, time.Since(began).Seconds())
	return nil
}

// finish runs the end-of-training fits that Options ask for: the
// similarity fit (σ to the final θ's words), the decoder refit (U to that
// θ), and, when both, the similarity fit once more to the refitted
// decoder.
func (t *Trainer) finish() error {
	if x := t.Opt.BackgroundMixAtEnd; x > 0 && t.Opt.DecoderRefit > 0 && t.Model.Topics.Mix == nil {
		rho, err := t.Model.StartMix(x, model.Unigram(t.G, t.S.Train))
		if err != nil {
			return err
		}
		// Held at x by the refit (it trains U alone); registered so
		// that the optimiser's state, which checkpoints save, covers
		// every parameter, as a model trained with the mixture has it.
		if err := t.adam.Add(rho); err != nil {
			return fmt.Errorf("train: the background mixture's weight: %w", err)
		}
		fmt.Fprintf(t.log, "the background mixture from here on, λ %.4g\n", x)
	}
	fit := t.fitsSimilarity()
	if fit {
		if err := t.fitSimilarity(t.embedCurrent(t.vs.Train)); err != nil {
			return err
		}
	}
	if t.Opt.DecoderRefit > 0 {
		// Embedded after the fit: θ, which σ sets, weights the tree
		// embedding that the encoder reads.
		emb := t.embedCurrent(t.vs.Train)
		if err := t.refitDecoder(emb); err != nil {
			return err
		}
		if fit {
			// The encoder does not read the decoder: the refit leaves
			// the embeddings as they were.
			return t.fitSimilarity(emb)
		}
	}
	return nil
}

func (t *Trainer) fitsSimilarity() bool { return t.Opt.FitSimilarity != "" }

// fitSimilarity fits σ's r and t to the words of the training documents
// outside validation as emb (row-aligned with t.vs.Train) embeds them
// (see Options.FitSimilarity).
func (t *Trainer) fitSimilarity(emb *model.Embeddings) error {
	defer t.Env.Phases.Start("topic start")()
	r0, t0 := t.Model.Topics.Similarity()
	f, err := topicstart.FitSimilarity(t.Model, emb.Tangent, t.In, t.vs.Train, t.Opt.FitSimilarity == SimilarityFitLevels)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.log, "similarity fit to the words (%s): r %.4g → %.4g, t %.4g → %.4g, levels' r %.4g, t %.4g; topic NLL %.4f → %.4f per token\n",
		t.Opt.FitSimilarity, r0, f.R, t0, f.T, f.LevelR, f.LevelT, f.Before, f.After)
	return nil
}

// embedCurrent embeds docs with the current weights as validation does:
// through the trainer's cache when training keeps one (embedCached), else
// each through its links to the training documents (embedTrain).
func (t *Trainer) embedCurrent(docs []int32) *model.Embeddings {
	if t.cache != nil {
		return t.embedCached(docs)
	}
	return t.embedTrain(docs)
}

// embedTrain embeds docs with the current weights, each through its links
// to the training documents outside validation (validation and test links
// stay unseen).
func (t *Trainer) embedTrain(docs []int32) *model.Embeddings {
	return t.Model.Embed(t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
}

// embedCached embeds docs (the validation split's, or its sample's)
// through the trainer's cache. Unless the cache is fresh it refreshes it
// first: over every training document when t.vs is H itself, exactly as
// the next epoch would, so the cache is then fresh and that epoch skips
// its refresh; over the rows docs read when t.vs is a sample (the next
// epoch refreshes what it reads itself).
func (t *Trainer) embedCached(docs []int32) *model.Embeddings {
	m := t.Model
	if !t.cacheFresh {
		if t.vs == t.H {
			m.RefreshNeighbors(t.cache, t.In, t.H.Train, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
			t.cacheFresh = true
		} else {
			m.RefreshNeighbors(t.cache, t.In, model.ReadBy(docs, t.trainNeighbors, t.Opt.MaxNbrs), t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
		}
	}
	return m.EmbedCached(t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch, t.cache)
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
	var bar *progress.Bar
	if t.Env.Progress != nil {
		bar = progress.New(t.Env.Progress, fmt.Sprintf("epoch %d/%d", e+1, t.Opt.Epochs), steps)
	}
	sched := t.schedule()
	tp := tensor.NewTape()
	params := m.Params()
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
		loss, parts, err := m.Loss(tp, t.In, b, t.cache)
		if err != nil {
			return nil, err
		}
		names, vals := parts.Names()
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &nonFinite{step: t.State.Step + 1, part: names[i] + " loss", val: v}
			}
		}
		tp.Backward(loss)
		norm := t.adam.ClipGradNorm(t.clip())
		if math.IsNaN(norm) || math.IsInf(norm, 0) {
			for _, p := range params {
				p.ZeroGrad()
			}
			return nil, &nonFinite{step: t.State.Step + 1, part: "gradient norm", val: norm}
		}
		t.adam.Step(sched.At(t.State.Step) * t.State.LRScale)
		topicstart.Track(m, parts.Out.Points, parts.Out.Z)
		for _, p := range params {
			p.ZeroGrad()
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

func (t *Trainer) clip() float64 {
	if t.Opt.Clip <= 0 {
		return math.Inf(1)
	}
	return t.Opt.Clip
}

// batch builds one step's batch from a slice of training links
// (model.LinkBatch: both ends are centres; each link gives two anchors whose
// candidates are all centres but the anchor and its other known training
// neighbours), then hides the targets (MaskTargets) and sets the labels of
// the supervised head (−1 for held-out documents).
func (t *Trainer) batch(links [][2]int32, nbrTable []int32, k int) *model.Batch {
	b := model.LinkBatch(links, nbrTable, k, func(d int32) []int32 { return t.H.TrainNeighbors(int(d)) })
	if t.Opt.MaskTargets {
		t.maskTargets(b, links)
	}
	if t.Model.Cfg.Supervised {
		b.Labels = make([]int32, len(b.Centres))
		for i, d := range b.Centres {
			b.Labels[i] = -1
			if t.G.Labels != nil && !t.H.IsTest[d] && !t.S.IsTest[d] {
				b.Labels[i] = t.G.Labels[d]
			}
		}
	}
	return b
}

// maskTargets hides each of the batch's target links from the inputs of
// its two ends: a centre's sampled neighbour slots holding one of its
// partners in this batch are refilled from its other neighbours (itself
// when it has none left, as an isolated document), and its hop features are
// recomputed without those links (features.Without). At test time a held-out
// link is in nobody's inputs; without the mask a training link sits in both
// ends' neighbours and features, and the graph loss can be met by reading
// it there instead of by placing the documents well.
func (t *Trainer) maskTargets(b *model.Batch, links [][2]int32) {
	partners := map[int32][]int32{}
	for _, l := range links {
		partners[l[0]] = append(partners[l[0]], l[1])
		partners[l[1]] = append(partners[l[1]], l[0])
	}
	k := b.Nbrs.K
	rng := rand.New(rand.NewPCG(t.Opt.Seed^0x6d61736b, uint64(t.State.Step)))
	in := t.In
	if in.Hop != nil {
		b.Hop = make([]float32, len(b.Centres)*in.HopWidth)
	}
	var rest []int32
	for i, d := range b.Centres {
		drop := partners[d]
		nbrs := t.trainNeighbors(d)
		rest = rest[:0]
		for _, n := range nbrs {
			if !slices.Contains(drop, n) {
				rest = append(rest, n)
			}
		}
		for j := i * k; j < (i+1)*k; j++ {
			if !slices.Contains(drop, b.Nbrs.Docs[j]) {
				continue
			}
			if len(rest) == 0 {
				b.Nbrs.Docs[j] = d
			} else {
				b.Nbrs.Docs[j] = rest[rng.IntN(len(rest))]
			}
		}
		if b.Hop != nil {
			w := in.HopWidth
			features.Without(in.Hop, in.HopWidth/(t.Model.Cfg.FeatureHops+1), t.Model.Cfg.FeatureHops, d, nbrs, drop, b.Hop[i*w:(i+1)*w])
		}
	}
}

// validate scores the epoch on the held-out validation documents, keeps
// the best state, and (when grow) updates the topic tree.
func (t *Trainer) validate(rec *EpochLog, grow bool) error {
	stop := t.Env.Phases.Start("validation")
	emb := t.scoreValidation(rec)
	if t.Opt.Select != SelectLast {
		t.keepBest(rec)
	}
	stop()
	if !grow {
		return nil
	}
	defer t.Env.Phases.Start("growth")()
	return t.growTree(emb, true)
}

// scoreValidation embeds the training documents outside validation and the
// validation documents, each through its links to the former (H's
// neighbours), and scores the validation documents as the test documents
// are scored on S afterwards: kNN Micro-/Macro-F1 against the other
// training documents, the supervised head, link AUC over the held-out
// links among validation documents, and the perplexity exponent. It returns
// the embeddings, indexed by document id (rows of documents outside H are
// zero). With the cache nesting it embeds through the trainer's cache,
// refreshed exactly as the next epoch would refresh it, so that epoch
// reuses it.
func (t *Trainer) scoreValidation(rec *EpochLog) *model.Embeddings {
	m := t.Model
	vs := t.vs
	docs := slices.Concat(vs.Train, vs.Test)
	slices.Sort(docs)
	emb := t.embedCurrent(docs).Scatter(docs, t.G.NumDocs())
	rec.LevelShare = t.levelShare(emb)
	if len(vs.Test) == 0 {
		return emb
	}
	v := evaluate.Score(m, t.G, vs, emb, metrics.DefaultK)
	t.diagnose(rec, emb)
	rec.ValidF1, rec.ValidMacroF1, rec.ValidSupF1 = v.KNNMicroF1, v.KNNMacroF1, v.SupMicroF1
	rec.ValidAUC, rec.ValidLogPerp = v.LinkAUC, v.LogPerplexity
	for half := range 2 {
		hv := evaluate.Score(m, t.G, t.validHalf(half), emb, metrics.DefaultK)
		rec.ValidHalves = append(rec.ValidHalves, HalfScore{KNNMicroF1: hv.KNNMicroF1, LinkAUC: hv.LinkAUC})
	}
	return emb
}

// diagnose fills rec's diagnostics (ValidRadius, ValidTangentKNN) from
// the validation split's embeddings emb (indexed by document; vs, the
// holdout or its sample).
func (t *Trainer) diagnose(rec *EpochLog, emb *model.Embeddings) {
	n := emb.Width
	var sum float64
	for _, d := range t.vs.Test {
		var ss float64
		for _, v := range emb.Tangent[int(d)*n : int(d+1)*n] {
			ss += float64(v) * float64(v)
		}
		sum += math.Sqrt(ss)
	}
	if len(t.vs.Test) > 0 {
		rec.ValidRadius = sum / float64(len(t.vs.Test))
	}
	if t.G.Labels == nil || len(t.vs.Test) == 0 {
		return
	}
	rowsOf := func(docs []int32) ([]float32, []int32) {
		x := make([]float32, 0, len(docs)*n)
		y := make([]int32, len(docs))
		for i, d := range docs {
			x = append(x, emb.Tangent[int(d)*n:int(d+1)*n]...)
			y[i] = t.G.Labels[d]
		}
		return x, y
	}
	xTr, yTr := rowsOf(t.vs.Train)
	xTe, yTe := rowsOf(t.vs.Test)
	f1 := metrics.MicroF1(yTe, metrics.KNN(xTr, yTr, xTe, n, metrics.DefaultK))
	rec.ValidTangentKNN = &f1
}

// HoldoutEmbeddings embeds, with the current weights, the training
// documents outside validation and the validation documents, each through
// its links to the former (as scoreValidation does), indexed by document id
// (other rows zero). It reads nothing of the test split.
func (t *Trainer) HoldoutEmbeddings() *model.Embeddings {
	docs := slices.Concat(t.H.Train, t.H.Test)
	slices.Sort(docs)
	return t.embedTrain(docs).Scatter(docs, t.G.NumDocs())
}

// HalfScore is the validation kNN Micro-F1 and link AUC of one half of the
// validation documents.
type HalfScore struct {
	KNNMicroF1 *float64 `json:"knn_micro_f1,omitempty"`
	LinkAUC    *float64 `json:"link_auc,omitempty"`
}

// validHalf returns the validation split (vs) with its test side (the
// validation documents) reduced to those at even (half 0) or odd (half 1)
// positions, and the held-out links to those among them.
func (t *Trainer) validHalf(half int) *corpus.Split {
	h := *t.vs
	h.Test, h.TestLinks = nil, nil
	in := make(map[int32]bool)
	for i, d := range t.vs.Test {
		if i%2 == half {
			h.Test = append(h.Test, d)
			in[d] = true
		}
	}
	for _, l := range t.vs.TestLinks {
		if in[l[0]] && in[l[1]] {
			h.TestLinks = append(h.TestLinks, l)
		}
	}
	return &h
}

// levelShare is EpochLog.LevelShare from embeddings indexed by document.
func (t *Trainer) levelShare(emb *model.Embeddings) []float64 {
	tab := t.Model.Topics.Tables()
	share := make([]float64, tab.Depth)
	var total float64
	for _, d := range t.vs.Train {
		l := float64(t.In.Len[d])
		for r, v := range emb.Theta[int(d)*emb.Topics : int(d+1)*emb.Topics] {
			share[tab.Level[r]] += l * float64(v)
		}
		total += l
	}
	for h := range share {
		share[h] /= max(total, 1)
	}
	return share
}

// keepBest keeps the state that maximises the validation score (Score),
// or, without validation metrics, minimises the training loss.
func (t *Trainer) keepBest(rec *EpochLog) {
	score, ok := rec.Score()
	if !ok {
		score = -rec.Total
	}
	if t.State.BestEpoch == 0 || score > t.State.BestScore {
		t.State.BestScore = score
		t.State.BestEpoch = t.State.Epoch
		t.best = t.snapshotParams()
	}
}

// Kept returns the epoch of the state Run left the model in and that
// epoch's validation metrics (nil when it was not validated).
func (t *Trainer) Kept() (epoch int, valid *evaluate.Test) {
	epoch = t.State.Epoch
	if t.best != nil {
		epoch = t.State.BestEpoch
	}
	for _, h := range t.History {
		if h.Epoch == epoch && (h.ValidF1 != nil || h.ValidAUC != nil) {
			return epoch, &evaluate.Test{KNNMicroF1: h.ValidF1, KNNMacroF1: h.ValidMacroF1,
				SupMicroF1: h.ValidSupF1, LinkAUC: h.ValidAUC, LogPerplexity: h.ValidLogPerp}
		}
	}
	return epoch, nil
}

// Score is the validation score that selects the kept state: the mean of
// the validation metrics present, kNN Micro-F1, link AUC and, for
// supervised runs, the head's Micro-F1, all in percent (a saturated F1 on
// an easy corpus then still lets AUC decide). ok is false without any.
func (r *EpochLog) Score() (score float64, ok bool) {
	var sum float64
	var cnt int
	for _, v := range []*float64{r.ValidF1, r.ValidAUC, r.ValidSupF1} {
		if v != nil {
			sum += *v
			cnt++
		}
	}
	if cnt == 0 {
		return 0, false
	}
	return sum / float64(cnt), true
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
	res, err := m.Topics.Tree.Update(shares, uo)
	if err != nil {
		return fmt.Errorf("tree update after epoch %d: %w", t.State.Epoch, err)
	}
	for _, c := range res.Changes {
		fmt.Fprintf(t.log, "epoch %d: %v\n", t.State.Epoch, c)
	}
	if !res.Changed() {
		return nil
	}
	return t.remapTopics(res)
}

// trainShares returns the word shares s_t (dense rows) of the training
// documents outside validation, with their θ rows (in t.vs.Train's order)
// and lengths, from emb (indexed by document id).
func (t *Trainer) trainShares(emb *model.Embeddings) (shares []float64, theta []float32, lengths []int, err error) {
	docs := t.vs.Train
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
		return nil, nil, nil, fmt.Errorf("tree update after epoch %d: %w", t.State.Epoch, err)
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
		return fmt.Errorf("tree update after epoch %d: %w", t.State.Epoch, err)
	}
	if err := t.adam.Rebind(in); err != nil {
		return fmt.Errorf("tree update after epoch %d: %w", t.State.Epoch, err)
	}
	return nil
}

func (t *Trainer) logEpoch(r *EpochLog) {
	line := fmt.Sprintf("epoch %d/%d  loss %.4f (graph %.4f topic %.4f", r.Epoch, t.Opt.Epochs, r.Total, r.Graph, r.Topic)
	if t.Model.Cfg.Supervised {
		line += fmt.Sprintf(" sup %.4f", r.Sup)
	}
	if r.Level != 0 {
		line += fmt.Sprintf(" level %.4f", r.Level)
	}
	if r.Branch != 0 {
		line += fmt.Sprintf(" branch %.4f", r.Branch)
	}
	if r.Div != 0 {
		line += fmt.Sprintf(" overlap %.4f", r.Div)
	}
	line += fmt.Sprintf(")  topics %d  %.0f docs/s  %.1fs", r.Topics, r.DocsPerSec, r.Seconds)
	if r.ValidF1 != nil {
		line += fmt.Sprintf("  valid kNN Micro-F1 %.2f", *r.ValidF1)
	}
	if r.ValidSupF1 != nil {
		line += fmt.Sprintf("  valid supervised Micro-F1 %.2f", *r.ValidSupF1)
	}
	if r.ValidAUC != nil {
		line += fmt.Sprintf("  valid link AUC %.2f", *r.ValidAUC)
	}
	if r.LevelShare != nil {
		line += fmt.Sprintf("  level share %.2f", r.LevelShare)
	}
	fmt.Fprintln(t.log, line)
}
