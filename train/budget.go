package train

import (
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
const probeSteps = 8

// planBudget sets StepsPerEpoch so that the whole run, begun at began,
// ends within Opt.Budget: it times probeSteps forward and backward passes
// of epoch 1's first batches (with the cache refresh of the rows they
// read; no weight changes), and the embedding of the validation sample,
// then splits what the budget leaves after the epochs' validations and
// the phases after training (final embedding and evaluation, estimated
// from the validation embedding's rate per document: about 1.6 passes of
// the corpus at that rate) over the epochs' steps. A budget the topic
// start and those phases already exceed is an error.
func (t *Trainer) planBudget(began time.Time) error {
	m := t.Model
	nbrTable := t.sampler.Resample(0)
	k := t.sampler.K()
	links := t.H.TrainLinks
	if n := probeSteps * t.Opt.BatchLinks; len(links) > n {
		links = links[:n]
	}
	t0 := time.Now()
	if t.cache != nil {
		m.RefreshNeighbors(t.cache, t.In, t.readDocs(links, nbrTable, k), t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
	}
	tp := tensor.NewTape()
	steps := 0
	for lo := 0; lo < len(links); lo += t.Opt.BatchLinks {
		b := t.batch(links[lo:min(lo+t.Opt.BatchLinks, len(links))], nbrTable, k)
		tp.Reset()
		loss, _, err := m.Loss(tp, t.In, b, t.cache)
		if err != nil {
			return err
		}
		tp.Backward(loss)
		steps++
	}
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
	perStep := time.Since(t0).Seconds() / float64(steps)

	t0 = time.Now()
	docs := slices.Concat(t.vs.Train, t.vs.Test)
	t.embedCurrent(docs)
	valid := time.Since(t0).Seconds()
	t.cacheFresh = false
	after := 1.6 * valid * float64(t.G.NumDocs()) / float64(len(docs))

	left := t.Opt.Budget.Seconds() - time.Since(began).Seconds()
	epochs := float64(t.Opt.Epochs)
	// Validation and growth after every epoch: about 1.3 validation
	// embeddings; 10% of what remains is kept for what the probe does
	// not see (checkpoints, the end-of-training fits, plots).
	forSteps := 0.9*(left-after) - epochs*1.3*valid
	spe := int(forSteps / (epochs * perStep))
	if spe < 1 {
		return fmt.Errorf("train: a budget of %v leaves no time to train: %.0f s are gone to reading and the topic start, and the validations and the phases after training need about %.0f s more (%.2f s a step); give a longer --budget",
			t.Opt.Budget, time.Since(began).Seconds(), epochs*1.3*valid+after, perStep)
	}
	t.Opt.StepsPerEpoch = spe
	fmt.Fprintf(t.log, "budget %v: %d steps an epoch (%.3f s a step, %.1f s a validation, about %.0f s after training)\n",
		t.Opt.Budget, spe, perStep, valid, after)
	return nil
}
