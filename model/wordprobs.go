package model

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/tensor"
)

// WordMix is the background mixture of the documents' word distributions:
// p(w|d) = λ·b(w) + (1−λ)·q(w|d) with q(w|d) = Σ_t θ_dt β_t(w), the
// training documents' unigram distribution b and the learned weight λ
// (TreeConfig.BackgroundMix). The zero value is no mixture: p = q.
//
// Prob is the one place the mixture's formula lives: WordProbs applies it
// to every entry of θβ, and the code that needs p only at a document's own
// words (the perplexity, the similarity fit, growth by reconstruction)
// applies it to its own Σ_t θ_dt β_t(w) through Prob or Func.
type WordMix struct {
	Lambda  float64
	Unigram []float32 // b (V); nil: no mixture
}

// On reports whether the mixture is on.
func (x WordMix) On() bool { return x.Unigram != nil }

// Prob returns p(w|d) for q = Σ_t θ_dt β_t(w): λ·b(w) + (1−λ)·q, or q
// itself without the mixture.
func (x WordMix) Prob(q float64, w int32) float64 {
	if x.Unigram == nil {
		return q
	}
	return x.Lambda*float64(x.Unigram[w]) + (1-x.Lambda)*q
}

// Func returns Prob as a function, or nil without the mixture (for the
// packages below model, where nil means p = q: metrics.PerplexityExponentMix).
func (x WordMix) Func() func(q float64, w int32) float64 {
	if x.Unigram == nil {
		return nil
	}
	return x.Prob
}

// mixParam returns ρ (1) with λ = sigmoid(ρ) = x.
func mixParam(x float64) *tensor.Tensor {
	rho := tensor.Param(MixParam, 1)
	rho.Data[0] = logit(x)
	return rho
}

// StartMix turns the background mixture on in a model built without it
// (train.Options.BackgroundMixAtEnd): λ = x, b = unigram (V, the training
// documents' Unigram), and the configuration records x so that Save and
// Load keep the mixture. It returns ρ, for the caller's optimiser.
func (m *Model) StartMix(x float64, unigram []float32) (*tensor.Tensor, error) {
	switch {
	case m.Topics.Mix != nil:
		return nil, fmt.Errorf("model: the background mixture is already on (λ %.4g)", m.Topics.Lambda())
	case !(x > 0 && x < 1):
		return nil, fmt.Errorf("model: background mixture weight %g outside (0, 1)", x)
	case len(unigram) != m.Cfg.Vocab:
		return nil, fmt.Errorf("model: background mixture: unigram distribution of %d words for a vocabulary of %d", len(unigram), m.Cfg.Vocab)
	}
	m.Cfg.Tree.BackgroundMix = x
	m.Topics.Mix = mixParam(x)
	m.Topics.Unigram = unigram
	return m.Topics.Mix, nil
}

// StopMix turns the background mixture off again (a model whose
// StartMix is undone: train restores a state saved before it).
func (m *Model) StopMix() {
	m.Cfg.Tree.BackgroundMix = 0
	m.Topics.Mix, m.Topics.Unigram = nil, nil
}

// Lambda returns the background mixture's weight λ = sigmoid(ρ), or 0
// without the mixture.
func (t *Topics) Lambda() float64 {
	if t.Mix == nil {
		return 0
	}
	return sigmoid(float64(t.Mix.Data[0]))
}

// WordMix returns the mixture with the current λ (the zero value without
// it). It panics when the mixture is on but its unigram distribution was
// never set (Model.Prepare, the trainer, or Load set it).
func (t *Topics) WordMix() WordMix {
	if t.Mix == nil {
		return WordMix{}
	}
	if t.Unigram == nil {
		panic("model: the background mixture is on but its unigram distribution is not set (Model.Prepare)")
	}
	return WordMix{Lambda: t.Lambda(), Unigram: t.Unigram}
}

// maxFoldIn bounds Config.FoldIn: far past where EM has converged on a
// document, and a guard against a cost a typo would set.
const maxFoldIn = 1000

// FoldIn returns θ (N,T) of the documents docs (one row each) refined by
// m.Cfg.FoldIn rounds of EM against the topics beta (T,V: m.Beta(), which
// the caller scores with too) and the background mixture
// (metrics.FoldIn); theta is not modified. With Cfg.FoldIn 0 it is theta
// itself.
func (m *Model) FoldIn(theta, beta []float32, docs metrics.Docs) []float32 {
	if m.Cfg.FoldIn == 0 {
		return theta
	}
	return metrics.FoldIn(theta, beta, m.Topics.Tables().T, docs, m.Topics.WordMix().Func(), m.Cfg.FoldIn)
}

// WordProbs returns the documents' word distributions p (B,V) from their
// topic distributions θ (B,T) and the topics' β (T,V): p = θβ, or with the
// background mixture p = λ·b + (1−λ)·θβ (WordMix), with gradients to θ, β
// and ρ. Every reconstruction of a document's words from θ and β goes
// through it (the topic loss, the topic start's fits) or through its
// WordMix (where only a document's own words are needed).
func (t *Topics) WordProbs(tp *tensor.Tape, theta, beta *tensor.Tensor) *tensor.Tensor {
	q := tp.MatMul(theta, beta, false, false)
	if t.Mix == nil {
		return q
	}
	return mixBackground(tp, q, t.Mix, t.WordMix())
}

// mixBackground returns p = λ·b + (1−λ)·q for q (B,V), λ = sigmoid(ρ) of a
// one-element ρ (x.Lambda, read from it) and b = x.Unigram (V):
//
//	dL/dq += (1−λ)·dL/dp;  dL/dρ += λ(1−λ)·Σ (b_w − q_bw)·dL/dp_bw
func mixBackground(tp *tensor.Tape, q, rho *tensor.Tensor, x WordMix) *tensor.Tensor {
	v := q.Cols()
	if len(rho.Data) != 1 || len(x.Unigram) != v {
		panic(fmt.Sprintf("model: mixBackground: ρ %v, unigram of %d words for q %v", rho.Shape, len(x.Unigram), q.Shape))
	}
	y := tp.Alloc(tensor.AnyGrad(q, rho), q.Shape...)
	for i, qv := range q.Data {
		y.Data[i] = float32(x.Prob(float64(qv), int32(i%v)))
	}
	lam := x.Lambda
	tp.Record(y, func() {
		if q.Grad != nil {
			a := float32(1 - lam)
			for i, g := range y.Grad {
				q.Grad[i] += a * g
			}
		}
		if rho.Grad != nil {
			var acc float64
			for i, g := range y.Grad {
				acc += (float64(x.Unigram[i%v]) - float64(q.Data[i])) * float64(g)
			}
			rho.Grad[0] += float32(lam * (1 - lam) * acc)
		}
	})
	return y
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// logit is sigmoid's inverse, as the float32 that ρ stores.
func logit(x float64) float32 { return float32(math.Log(x / (1 - x))) }
