package topicstart

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// MixWeightFit is what FitMixWeight did.
type MixWeightFit struct {
	Lambda0, Lambda float64 // the background weight before and after
	Before, After   float64 // mean per-token NLL of the documents' words
	Iterations      int     // EM iterations run
}

// Bounds of the fitted λ, so that ρ = logit λ stays finite in float32.
const (
	mixWeightMin = 1e-4
	mixWeightMax = 1 - 1e-4
)

// FitMixWeight sets the background mixture's weight λ to its maximum
// likelihood value for docs' words, with the documents' θ (from their
// tangent vectors tangent, (len(docs), n), as Fit reads them) and the
// topics' β held: p(w|d) = λ·b(w) + (1−λ)·q(w|d), q = Σ_t θ_dt β_t(w).
//
// The log-likelihood Σ c·log(λ·b + (1−λ)·q) over the documents' tokens
// (counts c) is concave in λ, so the EM iteration for a two-component
// mixture weight,
//
//	λ ← Σ c·r / Σ c,   r = λ·b / (λ·b + (1−λ)·q)   (each token's background responsibility),
//
// climbs to its one maximum; it stops when λ moves by less than 1e-7.
//
// Why (train.Options.FitMixWeight): the decoder refit fits β with λ held
// at a value chosen for the topics' words (the larger λ, the more of the
// general words the background takes off the topics); the weight that
// best explains the words given those topics is another number, and
// fitting it last changes the likelihood, never β.
func FitMixWeight(m *model.Model, tangent []float32, in *model.Inputs, docs []int32) (MixWeightFit, error) {
	var f MixWeightFit
	if m.Topics.Mix == nil {
		return f, fmt.Errorf("topicstart: mixture weight fit: the background mixture is off")
	}
	f.Lambda0 = m.Topics.Lambda()
	f.Lambda = f.Lambda0
	n := m.Cfg.Width
	if len(tangent) != len(docs)*n {
		return f, fmt.Errorf("topicstart: mixture weight fit: %d tangent values for %d documents of width %d", len(tangent), len(docs), n)
	}
	if len(docs) == 0 || m.Cfg.LambdaTopic == 0 {
		f.Before, f.After = math.NaN(), math.NaN()
		return f, nil
	}
	fr := freeze(m, tangent)
	tp := tensor.NewTape()
	tp.NoGrad = true
	tc := newTokenColumns(in, docs, m.Topics.Beta(tp, fr.z), model.WordMix{})
	if tc.total == 0 {
		f.Before, f.After = math.NaN(), math.NaN()
		return f, nil
	}
	mixAt := func(l float64) model.WordMix { return model.WordMix{Lambda: l, Unigram: m.Topics.Unigram} }
	nll := func(l float64) float64 {
		tc.mix = mixAt(l)
		return tc.nll(fr.theta)
	}
	// Each token's topic probability q, which the iteration holds.
	T := tc.T
	q := make([]float64, len(tc.word))
	for i := 0; i+1 < len(tc.ptr); i++ {
		th := fr.theta[i*T : (i+1)*T]
		for k := tc.ptr[i]; k < tc.ptr[i+1]; k++ {
			q[k] = tc.topicProb(th, k)
		}
	}
	f.Before = nll(f.Lambda0)
	l := min(max(f.Lambda0, mixWeightMin), mixWeightMax)
	for f.Iterations < 1000 {
		f.Iterations++
		x := mixAt(l)
		var s float64
		for k, c := range tc.count {
			w := tc.word[k]
			if p := x.Prob(q[k], w); p > 0 {
				s += float64(c) * l * float64(x.Unigram[w]) / p
			}
		}
		next := min(max(s/tc.total, mixWeightMin), mixWeightMax)
		done := math.Abs(next-l) < 1e-7
		l = next
		if done {
			break
		}
	}
	// Never worse than where it started (the clamp, or float rounding at
	// an optimum at the start).
	if after := nll(l); after < f.Before {
		m.Topics.SetLambda(l)
		f.Lambda, f.After = l, after
	} else {
		f.After = f.Before
	}
	return f, nil
}
