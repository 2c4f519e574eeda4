// Package train runs GTFormer's training loop (the paper's Algorithm 1):
// mini-batches of training links with in-batch negatives, neighbours
// resampled every epoch, AdamW with warm-up and decay, validation that keeps
// the best state, tree growth and pruning, a guard against NaN/Inf, and
// checkpoints that resume to the same numbers as an uninterrupted run.
package train

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gtformer/gtformer/model"
)

// Options are the training hyperparameters (the architecture is in
// model.Config).
type Options struct {
	Epochs      int     `json:"epochs"`
	BatchLinks  int     `json:"batch_links"` // positive links per step; their ends are the centres
	LR          float64 `json:"lr"`          // peak learning rate
	LRFloor     float64 `json:"lr_floor"`    // final learning rate (cosine decay)
	Warmup      int     `json:"warmup"`      // warm-up steps
	WeightDecay float64 `json:"weight_decay"`
	Clip        float64 `json:"clip"` // max global gradient norm (0 = off)
	// DecoderLRScale multiplies the learning rate of the topic decoder's
	// word rows U (0 means 1). Each row of the (V,n) table sees only the
	// gradient of its word, so at the shared rate the decoder falls behind
	// θ as the documents move (docs/design.md, "Choices beyond the paper").
	DecoderLRScale float64 `json:"decoder_lr_scale,omitempty"`
	Seed           uint64  `json:"seed"`

	// Nesting is how a step reads the neighbours (NestingFull,
	// NestingCache).
	Nesting Nesting `json:"nesting"`

	// MaskTargets hides every training batch's target links from the
	// inputs of their ends (Trainer.maskTargets): the neighbour slots and
	// hop features of a link's two documents are built without that link,
	// as a held-out link is at test time.
	MaskTargets bool `json:"mask_targets,omitempty"`

	// TopicInit is how the topic side starts (TopicInitFit, the default;
	// TopicInitKMeans; TopicInitRandom, the paper; "": random).
	TopicInit TopicInit `json:"topic_init"`
	// TopicWarmup is the number of decoder-only steps of TopicInitFit,
	// each over TopicWarmupBatch training documents at learning rate
	// TopicWarmupLR.
	TopicWarmup      int     `json:"topic_warmup,omitempty"`
	TopicWarmupBatch int     `json:"topic_warmup_batch,omitempty"`
	TopicWarmupLR    float64 `json:"topic_warmup_lr,omitempty"`
	// SimilarityTrack is what TopicInitFit sets the model's Tree.FDTrack to, so
	// that r and t follow the documents' spread as training moves them (0:
	// fixed at the initial calibration).
	SimilarityTrack float64 `json:"similarity_track,omitempty"`
	// TopicRefit, when positive, redoes the topic start (TopicInitFit or
	// TopicInitKMeans) after that epoch, on the documents as the model then
	// embeds them: where the initial embeddings say little about the
	// documents' topics, the graph loss has organised them by then
	// (docs/design.md, "Topic start"). The topic parameters' optimiser
	// moments are kept. 0: never.
	TopicRefit int `json:"topic_refit,omitempty"`
	// DecoderRefit, when positive, ends training with that many
	// decoder-only steps (topicfit.Fit, as the warm-up: TopicWarmupBatch
	// documents at TopicWarmupLR) on the training documents as the final
	// weights embed them, before the last validation: the words' fit of
	// the final θ, which the joint steps leave behind as the documents
	// move (docs/design.md, "End of training"). 0: none.
	DecoderRefit int `json:"decoder_refit,omitempty"`
	// BackgroundMixAtEnd, when positive, turns the background mixture
	// (model.TreeConfig.BackgroundMix) on when training ends, at this
	// fixed weight λ, before the similarity fit and the decoder refit:
	// the refit then fits the decoder's words to θ with the corpus's
	// word frequencies explaining λ of every document's words, so the
	// topics need not carry the general words. Training itself, and with
	// it the encoder, runs without the mixture (the encoder does not read
	// the decoder). It belongs to the refit: without one (DecoderRefit 0)
	// nothing is switched, and when SelectBest keeps an earlier
	// epoch's state, that state comes back without the mixture, as it
	// comes back without the refit. 0: off.
	BackgroundMixAtEnd float64 `json:"background_mix_at_end,omitempty"`
	// FitSimilarity ends training by fitting σ's radius r and temperature
	// t to the training documents' words (topicfit.FitSimilarity), before
	// the last validation (and with DecoderRefit, once before the refit and
	// once after it): r and t are set from
	// the documents' distances for the embeddings' sake and never see the
	// words; fitted last, they change θ (perplexity, level shares) and
	// the embeddings only through the tree embedding that θ weights.
	// With SelectBest the kept state is fitted again after it is
	// restored.
	// SimilarityFitShared or SimilarityFitLevels; "": no fit.
	FitSimilarity SimilarityFit `json:"fit_similarity,omitempty"`
	// FinalPrune ends a growing tree's training with one more tree update
	// that prunes (as growth does) but adds nothing, before the last
	// validation: the topics added by the last growth had no pruning
	// after them, and some end with no documents.
	FinalPrune bool `json:"final_prune,omitempty"`
	// FinalPruneBelow, when positive, makes that last update prune by
	// the words themselves: every topic whose subtree holds less than
	// this share of the training words is removed (with KeepDepth, each
	// kept topic's largest child stays). It removes the topics that
	// training left with next to no words (growth's last additions, or
	// leaves their documents deserted after the last update: their top
	// words drift to rare terms), not the small leaves that growth's
	// path-share rule judges, which documents still use.
	FinalPruneBelow float64 `json:"final_prune_below,omitempty"`
	// Select is which state Run leaves the model in (SelectBest,
	// SelectLast); "": best.
	Select Select `json:"select,omitempty"`

	// StepsPerEpoch, when positive, makes every epoch that many steps of
	// BatchLinks links, taken in order from a stream of successive
	// shuffles of the training links (each link once before any twice),
	// so that an epoch on a huge graph is as long as the user asks; the
	// neighbour cache refresh then re-encodes only the documents the
	// epoch's batches read. 0: one pass over the training links per epoch.
	StepsPerEpoch int `json:"steps_per_epoch,omitempty"`
	// StepsRoot, when positive and StepsPerEpoch is 0, caps an epoch at
	// ⌈StepsRoot·T^(1/3)⌉ steps for T training links (drawn then as
	// StepsPerEpoch draws them): a training budget that grows with the
	// cube root of the graph instead of with the graph. 0: one pass.
	StepsRoot float64 `json:"steps_root,omitempty"`
	// Budget, when positive, is the wall time the whole run should take:
	// before the first epoch, training times a few steps and a
	// validation and sets StepsPerEpoch so that the epochs and the
	// phases after them fit (planBudget). 0: no budget.
	Budget time.Duration `json:"budget,omitempty"`
	// SampleDocs caps the documents that the topic start, validation and
	// tree growth read: at most that many training documents outside
	// validation and at most that many validation documents, evenly spaced
	// over each (sorted) list. 0: all. The default (DefaultSampleDocs) is
	// above every corpus of the paper's small three, where it changes
	// nothing; on a corpus of 445K documents it keeps those phases from
	// growing with the corpus.
	SampleDocs int `json:"sample_docs,omitempty"`

	ValidEvery int `json:"valid_every"` // epochs between validations (the last epoch always validates)
	// ValidateStart scores the start (after the topic start, before the
	// first step) as epoch 0 of the history, for the record.
	ValidateStart bool `json:"validate_start,omitempty"`
	GrowEvery     int  `json:"grow_every"`  // epochs between tree updates (tree mode "grow")
	EmbedBatch    int  `json:"embed_batch"` // documents per inference batch
	MaxNbrs       int  `json:"max_nbrs"`    // neighbours a document aggregates at inference
}

// CheckModel reports options that cannot train a model of configuration c.
func (o *Options) CheckModel(c *model.Config) error {
	if o.Nesting != NestingCache && c.NestedNeighbors() {
		return fmt.Errorf("train: %d hops need the cache nesting (the nested neighbours are read from it), not %q: use --hops 1 with --nesting full", c.Hops, o.Nesting)
	}
	return nil
}

// DefaultSampleDocs is the default SampleDocs: above the 2,222 training
// documents outside validation of ML, the largest of the paper's small
// corpora (so nothing changes there), and small enough that embedding the
// sample with two hops (its neighbours nested over theirs: about 10 times
// as many document passes on a graph of mean degree 4) stays a few
// minutes on two cores.
const DefaultSampleDocs = 4000

// growsAfter reports whether a growing tree is updated after the given
// epoch (1-based): every GrowEvery epochs, never after the last (the final
// prune, FinalPruneBelow, is not a growth step).
func (o *Options) growsAfter(epoch int) bool {
	return epoch%o.GrowEvery == 0 && epoch < o.Epochs
}

// placesTopics reports whether TopicInit places the topics at the
// documents (TopicInitFit or TopicInitKMeans), which a refit then redoes.
func (o *Options) placesTopics() bool {
	return o.TopicInit == TopicInitFit || o.TopicInit == TopicInitKMeans
}

// DefaultOptions returns the defaults used by `gtformer train`.
func DefaultOptions() Options {
	return Options{
		Epochs: 6, BatchLinks: 32, MaskTargets: true, Select: SelectLast, LR: 1e-3, LRFloor: 1e-5, Warmup: 100,
		WeightDecay: 0.01, Clip: 1, Seed: 1, Nesting: NestingCache, TopicInit: TopicInitFit, DecoderLRScale: 10,
		TopicWarmup: 300, TopicWarmupBatch: 256, TopicWarmupLR: 0.03, SimilarityTrack: 0.05, TopicRefit: 1, FitSimilarity: SimilarityFitShared, DecoderRefit: 50,
		ValidEvery: 1, GrowEvery: 2, EmbedBatch: 128, MaxNbrs: 64, SampleDocs: DefaultSampleDocs,
		// Readable topics at the end: the topics that training left with
		// under 0.5% of the words removed, then the refit with the
		// corpus's word frequencies explaining 40% of every document's
		// words (docs/design.md, "Choices beyond the paper").
		FinalPruneBelow: 0.005, BackgroundMixAtEnd: 0.4,
		// An epoch is one pass, or ⌈12·T^(1/3)⌉ steps when fewer: a pass
		// on ML, PL and COVID, 964 steps at 445K documents (docs/design.md,
		// "Training").
		StepsRoot: 12,
	}
}

// Validate reports inconsistent options.
func (o *Options) Validate() error {
	if err := o.validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// validate is Validate without the package's prefix.
func (o *Options) validate() error {
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"learning rate", o.LR}, {"final learning rate", o.LRFloor}, {"weight decay", o.WeightDecay}, {"clip", o.Clip},
		{"decoder learning-rate scale", o.DecoderLRScale}, {"topic warm-up learning rate", o.TopicWarmupLR}, {"similarity tracking rate", o.SimilarityTrack}} {
		// An infinite rate reached the optimiser and panicked there.
		check(!math.IsNaN(f.v) && !math.IsInf(f.v, 0), "%s %v is not a finite number", f.name, f.v)
	}
	check(o.Epochs >= 1, "epochs %d must be positive", o.Epochs)
	check(o.BackgroundMixAtEnd >= 0 && o.BackgroundMixAtEnd < 1, "background mixture at the end %g outside [0, 1)", o.BackgroundMixAtEnd)
	check(o.FinalPruneBelow >= 0 && o.FinalPruneBelow < 1, "final prune share %g outside [0, 1)", o.FinalPruneBelow)
	check(o.BatchLinks >= 1, "batch of %d links must be positive", o.BatchLinks)
	check(o.LR > 0 && o.LRFloor >= 0 && o.LRFloor <= o.LR, "learning rates %g → %g must satisfy 0 ≤ floor ≤ peak, peak > 0", o.LR, o.LRFloor)
	check(o.Warmup >= 0, "warm-up %d must be non-negative", o.Warmup)
	check(o.WeightDecay >= 0 && o.Clip >= 0, "weight decay and clip must be non-negative")
	check(o.DecoderLRScale >= 0 && !math.IsInf(o.DecoderLRScale, 0), "decoder learning-rate scale %g must be non-negative and finite", o.DecoderLRScale)
	check(o.Nesting == NestingFull || o.Nesting == NestingCache, "nesting %q: want full or cache", o.Nesting)
	check(o.Select == "" || o.Select == SelectBest || o.Select == SelectLast, "select %q: want best or last", o.Select)
	check(o.TopicInit == "" || o.TopicInit == TopicInitFit || o.TopicInit == TopicInitKMeans || o.TopicInit == TopicInitRandom, "topic init %q: want fit, kmeans or random", o.TopicInit)
	check(o.TopicWarmup >= 0 && o.TopicWarmupBatch >= 0, "topic warm-up of %d steps × %d documents must be non-negative", o.TopicWarmup, o.TopicWarmupBatch)
	check(o.TopicWarmupLR >= 0 && !math.IsInf(o.TopicWarmupLR, 0), "topic warm-up learning rate %g must be non-negative and finite", o.TopicWarmupLR)
	check(o.FitSimilarity == "" || o.FitSimilarity == SimilarityFitShared || o.FitSimilarity == SimilarityFitLevels, "similarity fit %q: want none, shared or levels", string(o.FitSimilarity))
	check(o.DecoderRefit >= 0, "decoder refit of %d steps must be non-negative", o.DecoderRefit)
	check(o.TopicRefit >= 0, "topic refit epoch %d must be non-negative", o.TopicRefit)
	check(o.SimilarityTrack >= 0 && o.SimilarityTrack <= 1, "similarity tracking rate %g outside [0,1]", o.SimilarityTrack)
	check(o.TopicInit != TopicInitFit || o.TopicWarmup == 0 || o.TopicWarmupLR > 0, "topic warm-up of %d steps needs a positive learning rate", o.TopicWarmup)
	check(o.StepsPerEpoch >= 0, "steps per epoch %d must be non-negative (0: one pass over the training links)", o.StepsPerEpoch)
	check(o.StepsRoot >= 0 && !math.IsInf(o.StepsRoot, 0), "steps root %g must be non-negative and finite", o.StepsRoot)
	check(o.Budget >= 0, "budget %v must be non-negative", o.Budget)
	check(o.Budget == 0 || o.StepsPerEpoch == 0, "a budget (%v) and steps per epoch (%d) both set the epoch's length: give one", o.Budget, o.StepsPerEpoch)
	check(o.SampleDocs >= 0, "sampled documents %d must be non-negative (0: all)", o.SampleDocs)
	check(o.ValidEvery >= 1 && o.GrowEvery >= 1, "validation and growth intervals must be positive")
	check(o.EmbedBatch >= 1 && o.MaxNbrs >= 1, "inference batch and neighbour cap must be positive")
	return errors.Join(errs...)
}
