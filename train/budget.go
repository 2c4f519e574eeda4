package train

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gtformer/gtformer/tensor"
)

// capSteps returns the steps of an epoch over trainLinks training links
// when StepsPerEpoch is 0: one pass, or ⌈StepsRoot·T^(1/3)⌉ when that is
// fewer (StepsRoot > 0). 0 means one pass (the epoch is drawn as a pass).
func (o *Options) capSteps(trainLinks int) int {
	if o.StepsPerEpoch > 0 || o.StepsRoot <= 0 {
		return o.StepsPerEpoch
	}
	pass := (trainLinks + o.BatchLinks - 1) / o.BatchLinks
	c := int(math.Ceil(o.StepsRoot * math.Cbrt(float64(trainLinks))))
	if c >= pass {
		return 0
	}
	return c
}

// probeSteps is how many batches planBudget times: enough to average over
// batches of different documents, few enough to cost a second or two.
const probeSteps = 16

// The phases after training, in planBudget's estimate: afterRows cache
// refreshes of every document at the probe's time per refreshed row (the
// final embedding refreshes every document and passes over them as
// centres, about two; the evaluation embeds the test documents again for
// the document completion and scores them, about one), and afterPlots
// seconds for the plots (the t-SNE map of at most 3,000 test documents).
// Measured on synthetic corpora of 10K and 100K documents on two cores
// (docs/benchmarks.md, "Time to quality at scale").
const (
	afterRows  = 3
	afterPlots = 10.0
)

// planBudget sets StepsPerEpoch so that the whole run, begun at began,
// ends within Opt.Budget. It times the cache refresh of the rows that
// epoch 1's first probeSteps batches read, those batches as whole steps
// (the weights, the optimiser and the tree put back after), and the
// embedding of the validation sample; then it finds the most steps per epoch whose epochs
// (steps, the refresh of the distinct rows they read, validation and
// growth) and the phases after training (final embedding, evaluation and
// plots: afterRows refreshes of every document at the probe's rate per
// row and afterPlots, or without a cache about 1.6 passes of the corpus
// at the validation embedding's rate) fit what the budget leaves. A budget
// the topic start and those phases already exceed is an error.
func (t *Trainer) planBudget(began time.Time) error {
	m := t.Model
	nbrTable := t.sampler.Resample(0)
	k := t.sampler.K()
	// Epoch 1's first links: a shuffle draws hubs' links as often as
	// training does (their masking and features cost more than the
	// sorted list's first documents would).
	links := t.epochLinks(0)
	if n := probeSteps * t.Opt.BatchLinks; len(links) > n {
		links = links[:n]
	}
	t0 := time.Now()
	rows := 0
	if t.cache != nil {
		read := t.readDocs(links, nbrTable, k)
		rows = len(read)
		m.RefreshNeighbors(t.cache, t.In, read, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
	}
	perRow := time.Since(t0).Seconds() / float64(max(rows, 1))
	// Whole steps, optimiser and tracking included, on a snapshot that
	// is put back afterwards (as an epoch's roll-back does).
	start := t.snapshot()
	tp := tensor.NewTape()
	steps := 0
	t0 = time.Now()
	for lo := 0; lo < len(links); lo += t.Opt.BatchLinks {
		tp.Reset()
		// A non-finite step is timed like any other: the epoch meets it
		// again and rolls back as it would without the probe.
		var nf *nonFinite
		if _, err := t.step(tp, t.batch(links[lo:min(lo+t.Opt.BatchLinks, len(links))], nbrTable, k), 0); err != nil && !errors.As(err, &nf) {
			t.restore(start)
			return err
		}
		steps++
	}
	perStep := time.Since(t0).Seconds() / float64(steps)
	t.restore(start)

	t0 = time.Now()
	docs := slices.Concat(t.vs.Train, t.vs.Test)
	t.embedCurrent(docs)
	valid := time.Since(t0).Seconds()
	t.cacheFresh = false
	after := 1.6 * valid * float64(t.G.NumDocs()) / float64(len(docs))
	if rows > 0 {
		// With a cache, from the refresh's rate per row: the validation
		// sample's rate counts its neighbours' refresh too, so it
		// overstates a pass over every document at scale.
		after = afterRows*perRow*float64(t.G.NumDocs()) + afterPlots
	}

	epochs := float64(t.Opt.Epochs)
	// An epoch's refresh re-encodes the distinct rows its batches read:
	// about rows/steps new rows a batch while few are read twice, never
	// more than the training documents.
	n := float64(len(t.H.Train))
	perBatch := float64(rows) / float64(steps)
	epoch := func(spe int) float64 {
		distinct := n * (1 - math.Exp(-float64(spe)*perBatch/n))
		// Validation and growth after every epoch: about 1.3 validation
		// embeddings.
		return float64(spe)*perStep + distinct*perRow + 1.3*valid
	}
	// 10% of what remains is kept for what the probe does not see
	// (checkpoints, the end-of-training fits).
	left := 0.9 * (t.Opt.Budget.Seconds() - time.Since(began).Seconds() - after)
	if epochs*epoch(1) > left {
		return fmt.Errorf("train: a budget of %v leaves no time to train: %.0f s are gone to reading and the topic start, and %d epochs of one step with their validations and the phases after training need about %.0f s more; give a longer --budget",
			t.Opt.Budget, time.Since(began).Seconds(), t.Opt.Epochs, epochs*epoch(1)+after)
	}
	lo, hi := 1, 2
	for epochs*epoch(hi) <= left && hi < 1<<30 {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; epochs*epoch(mid) <= left {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.Opt.StepsPerEpoch = lo
	fmt.Fprintf(t.log, "budget %v: %d steps an epoch (%.3f s a step, %.4f s a cache row, %.1f s a validation, about %.0f s after training)\n",
		t.Opt.Budget, lo, perStep, perRow, valid, after)
	return nil
}
