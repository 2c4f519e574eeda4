package model

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// mixFixture is the gradient-check model with the background mixture at
// λ = x (x = 0: off), its inputs and batch.
func mixFixture(t *testing.T, x float64) *gradFixture {
	t.Helper()
	return newGradFixture(t, gradCase{name: "mix", geometry: "hyperbolic", mut: func(c *Config) { c.Tree.BackgroundMix = x }})
}

// The mixture op against its float64 reference, forward and backward
// (central differences in float64 for q and ρ).
func TestMixBackgroundOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := []float32{0.1, 0.4, 0.05, 0.25, 0.2}
	checkOp(t, opCase{
		name:   "mixBackground",
		inputs: []*tensor.Tensor{randUniformParam(rng, "q", 0.01, 0.5, 3, 5), randParam(rng, "rho", 0.5, -0.8, 1)},
		op: func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor {
			return mixBackground(tp, in[0], in[1], WordMix{Lambda: sigmoid(float64(in[1].Data[0])), Unigram: b})
		},
		ref: func(in [][]float64) []float64 {
			lam := 1 / (1 + math.Exp(-in[1][0]))
			out := make([]float64, len(in[0]))
			for i, q := range in[0] {
				out[i] = lam*float64(b[i%5]) + (1-lam)*q
			}
			return out
		},
	})
}

// ρ's gradient through the whole loss against finite differences (the
// gradient check's own cases "…/background-mix" cover every parameter);
// here: the checker must catch a ρ gradient that is zero, of the wrong sign
// or 10% off, so the check of ρ cannot pass by accident.
func TestMixGradientDetects(t *testing.T) {
	f := mixFixture(t, 0.3)
	good := f.analytic(t)
	ps := f.m.Params()
	pi := slices.IndexFunc(ps, func(p *tensor.Tensor) bool { return p.Name == MixParam })
	if pi < 0 {
		t.Fatalf("no parameter %q among %v", MixParam, paramNames(ps))
	}
	only := func(n string) bool { return n == MixParam }
	if fails, _ := checkLossGradient(t, f, good, gradCase{}, only); len(fails) > 0 {
		t.Fatalf("ρ's gradient fails the check: %v", fails)
	}
	if good[pi][0] == 0 {
		t.Fatal("ρ's gradient is zero")
	}
	for _, c := range []struct {
		name string
		fn   func(g []float32)
	}{
		{"zero", func(g []float32) { g[0] = 0 }},
		{"sign", func(g []float32) { g[0] = -g[0] }},
		{"factor 1.1", func(g []float32) { g[0] *= 1.1 }},
	} {
		ana := make([][]float32, len(good))
		for i := range good {
			ana[i] = slices.Clone(good[i])
		}
		c.fn(ana[pi])
		if fails, _ := checkLossGradient(t, f, ana, gradCase{}, only); len(fails) == 0 {
			t.Errorf("ρ with a %s gradient: the checker found nothing", c.name)
		}
	}
}

// forwardParts returns θ (B,T) and β (T,V) of f's batch and the loss's parts.
func forwardParts(t *testing.T, f *gradFixture, tp *tensor.Tape) (theta, beta *tensor.Tensor, parts Parts) {
	t.Helper()
	_, parts, err := f.m.Loss(tp, f.in, f.b, f.cache)
	if err != nil {
		t.Fatal(err)
	}
	return parts.Out.Theta, f.m.Topics.Beta(tp, parts.Out.Z), parts
}

// WordProbs' rows are distributions, λ starts at the flag's value, and the
// topic loss is BowNLL of WordProbs: with the mixture it differs from
// BowNLL of θβ, without it WordProbs is θβ itself (training unchanged).
func TestWordProbs(t *testing.T) {
	for _, x := range []float64{0, 0.2, 0.7} {
		f := mixFixture(t, x)
		m := f.m
		if (m.Topics.Mix != nil) != (x > 0) || slices.ContainsFunc(m.Params(), func(p *tensor.Tensor) bool { return p.Name == MixParam }) != (x > 0) {
			t.Fatalf("x = %g: ρ present %v", x, m.Topics.Mix != nil)
		}
		if x > 0 {
			fresh, err := New(m.Cfg, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got := fresh.Topics.Lambda(); math.Abs(got-x) > 1e-6 {
				t.Errorf("x = %g: λ starts at %g", x, got)
			}
			var s float64
			for _, v := range m.Topics.Unigram {
				s += float64(v)
			}
			if math.Abs(s-1) > 1e-5 {
				t.Errorf("x = %g: the unigram distribution sums to %g", x, s)
			}
		}
		tp := tensor.NewTape()
		tp.NoGrad = true
		theta, beta, parts := forwardParts(t, f, tp)
		p := m.Topics.WordProbs(tp, theta, beta)
		V := p.Cols()
		for r := 0; r < p.Rows(); r++ {
			var s float64
			for _, v := range p.Data[r*V : (r+1)*V] {
				s += float64(v)
			}
			if math.Abs(s-1) > 1e-5 {
				t.Errorf("x = %g: row %d of WordProbs sums to %.7f", x, r, s)
			}
		}
		ptr, word, count := f.in.SubsetBoW(f.b.Centres)
		viaHelper := float64(BowNLL(tp, p, ptr, word, count).Data[0])
		plain := float64(BowNLL(tp, tp.MatMul(theta, beta, false, false), ptr, word, count).Data[0])
		if parts.Topic != viaHelper {
			t.Errorf("x = %g: topic loss %.9g, BowNLL of WordProbs %.9g", x, parts.Topic, viaHelper)
		}
		if x == 0 && parts.Topic != plain {
			t.Errorf("without the mixture: topic loss %.9g, BowNLL of θβ %.9g: want bit-identical", parts.Topic, plain)
		}
		if x > 0 && math.Abs(parts.Topic-plain) < 1e-4 {
			t.Errorf("x = %g: topic loss %.9g equals BowNLL of θβ %.9g: the mixture is not in the loss", x, parts.Topic, plain)
		}
		if x > 0 {
			// Each entry is the formula's.
			q := tp.MatMul(theta, beta, false, false)
			lam := m.Topics.Lambda()
			for i, v := range p.Data {
				want := lam*float64(m.Topics.Unigram[i%V]) + (1-lam)*float64(q.Data[i])
				if math.Abs(float64(v)-want) > 1e-7+1e-6*want {
					t.Fatalf("x = %g: p[%d] = %g, want λb + (1−λ)q = %g", x, i, v, want)
				}
			}
		}
	}
}

// Save and Load keep ρ (so λ) and the unigram distribution; a file
// without the unigram is refused.
func TestSaveLoadMix(t *testing.T) {
	f := mixFixture(t, 0.25)
	m := f.m
	m.Topics.Mix.Data[0] = 1.234 // as if trained
	dir := t.TempDir()
	if err := m.Save(dir, 7); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Cfg.Tree.BackgroundMix != 0.25 {
		t.Errorf("config's background mix %g after loading", back.Cfg.Tree.BackgroundMix)
	}
	if back.Topics.Lambda() != m.Topics.Lambda() || back.Topics.Mix.Data[0] != 1.234 {
		t.Errorf("λ %g after loading, saved %g", back.Topics.Lambda(), m.Topics.Lambda())
	}
	if !slices.Equal(back.Topics.Unigram, m.Topics.Unigram) {
		t.Error("the unigram distribution changed in the round trip")
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	_, a, err := m.Loss(tp, f.in, f.b, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp2 := tensor.NewTape()
	tp2.NoGrad = true
	_, b, err := back.Loss(tp2, f.in, f.b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Topic != b.Topic {
		t.Errorf("topic loss %.9g after the round trip, %.9g before", b.Topic, a.Topic)
	}
	// Without the unigram, Save refuses.
	m.Topics.Unigram = nil
	if err := m.Save(filepath.Join(dir, "x"), 7); err == nil || !strings.Contains(err.Error(), "unigram") {
		t.Errorf("save without the unigram: %v", err)
	}
}

func TestBackgroundMixValidate(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	for _, x := range []float64{-0.1, 1, 1.5, math.NaN(), math.Inf(1)} {
		cfg := tinyConfig(g)
		cfg.Tree.BackgroundMix = x
		if err := cfg.Validate(); err == nil {
			t.Errorf("background mix %g: no error", x)
		}
	}
	for _, x := range []float64{0, 0.2, 0.99} {
		cfg := tinyConfig(g)
		cfg.Tree.BackgroundMix = x
		if err := cfg.Validate(); err != nil {
			t.Errorf("background mix %g: %v", x, err)
		}
	}
}
