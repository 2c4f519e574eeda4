package train

import (
	"errors"
	"fmt"
	"time"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/topicfit"
)

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
	if err := topicfit.Place(m, emb.Tangent, t.Opt.Seed); err != nil {
		return err
	}
	if t.Opt.TopicInit != TopicInitFit {
		return nil
	}
	r, temp := topicfit.Calibrate(m, emb.Tangent)
	m.Cfg.Tree.FDTrack = t.Opt.SimilarityTrack
	fmt.Fprintf(t.log, "topics placed at k-means clusters of the training documents; σ calibrated: r = %.3g, t = %.3g (tracked at rate %g)\n", r, temp, t.Opt.SimilarityTrack)
	if t.Opt.TopicWarmup == 0 {
		return nil
	}
	began := time.Now()
	nll, err := topicfit.Fit(m, emb.Tangent, t.In, t.vs.Train, topicfit.Options{
		Steps: t.Opt.TopicWarmup, LR: t.Opt.TopicWarmupLR, Batch: t.Opt.TopicWarmupBatch,
		Seed: t.Opt.Seed, DecoderOnly: true,
	})
	if errors.Is(err, topicfit.ErrDiverged) {
		return fmt.Errorf("train: training diverged in the topic start's decoder warm-up (%w); lower --init-scale", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(t.log, "decoder warm-up: %d steps, topic NLL %.3f per token (%.1fs)\n", t.Opt.TopicWarmup, nll, time.Since(began).Seconds())
	return nil
}

// refitDecoder runs Opt.DecoderRefit decoder-only steps on the training
// documents outside validation as emb (row-aligned with t.vs.Train) embeds
// them (see Options.DecoderRefit).
func (t *Trainer) refitDecoder(emb *model.Embeddings) error {
	defer t.Env.Phases.Start("decoder refit")()
	began := time.Now()
	nll, err := topicfit.Fit(t.Model, emb.Tangent, t.In, t.vs.Train, topicfit.Options{
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
		rho, err := t.Model.StartMix(x, model.Unigram(t.G, t.H.Train))
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
	defer t.Env.Phases.Start("similarity fit")()
	r0, t0 := t.Model.Topics.Similarity()
	f, err := topicfit.FitSimilarity(t.Model, emb.Tangent, t.In, t.vs.Train, t.Opt.FitSimilarity == SimilarityFitLevels)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.log, "similarity fit to the words (%s): r %.4g → %.4g, t %.4g → %.4g, levels' r %.4g, t %.4g; topic NLL %.4f → %.4f per token\n",
		t.Opt.FitSimilarity, r0, f.R, t0, f.T, f.LevelR, f.LevelT, f.Before, f.After)
	return nil
}
