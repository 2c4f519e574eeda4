package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/tensor"
)

// The full model's loss gradient against central finite differences.
//
// The forward pass runs in float32: a difference quotient of the loss
// carries rounding noise of about 1e-6/h (observed ≤ 2e-5 at h = 4e-2). The
// check therefore uses large absolute steps (parameters are O(0.01..1)) and
// removes the O(h²) truncation error by Richardson extrapolation,
// D = (4·D(h/2) − D(h))/3, exact up to O(h⁴). The step grows for tensors the
// loss hardly depends on, h = clamp(2e-3/scale, 0.04, 0.2) with scale the
// tensor's largest |∂L/∂p|, so that their small gradients rise above the
// noise. Each sampled entry must agree within
//
//	|num − ana| ≤ max(5e-5·0.04, 4·ulp(L))/h + 1e-2·scale + 3e-2·|ana|
//
// (ulp(L) the float32 spacing at the loss: the extrapolation combines four
// rounded losses, so its noise grows with the loss's size; the graph
// attention of the no-tree case, max|∂L/∂p| ≈ 3e-5 at L ≈ 8.8, scatters by
// ±1e-5 between h = 0.1 and 0.2 on the padded and the packed layout alike)
// and over all sampled entries ‖num − ana‖/‖num‖ < 1e-2. Broken backwards
// checked by hand to fail: a sign flip in scaleBy's dx or ds, expScalar
// without its sign, bagEmbed's gradient ×1.1, bowNLL's ×1.05, the
// contrastive gradient with p − 0.95 instead of p − 1.
// TestLossGradientDetects keeps the checker itself honest.

const (
	fdStep     = 4e-2 // base step; larger for tensors the loss hardly depends on
	fdMaxStep  = 0.2
	fdTarget   = 2e-3 // aim for h·max|∂L/∂p| ≈ fdTarget
	fdNoise    = 5e-5 // bound on the numeric error at the base step (float32 rounding)
	fdNoiseULP = 4    // and on the numeric error·h in float32 spacings of the loss
	fdScaleTol = 1e-2
	fdRelTol   = 3e-2
	fdVecTol   = 1e-2
	fdPerTens  = 5 // entries checked per parameter tensor: 2 largest |ana| + 3 random
	// deadTol: a perturbation that moves the loss by less than this
	// (relative) is no change (see lossMoves).
	deadTol = 1e-6
)

type gradCase struct {
	name       string
	geometry   string
	cache      bool
	noTree     bool
	noGraph    bool
	mut        func(*Config) // further changes, or nil
	zeroPrefix []string      // parameters whose gradient must be exactly zero
	// weakPrefix: parameters the fixture's loss hardly depends on, exempt
	// from the "loss does not depend on it" check (lossMoves) but still
	// checked against finite differences.
	weakPrefix []string
	// maskTargets gives the batch its centres' hop features with their
	// target links removed (Batch.Hop, as training's MaskTargets does).
	maskTargets bool
}

func gradCases() []gradCase {
	return []gradCase{
		{name: "hyperbolic/nested", geometry: "hyperbolic"},
		{name: "hyperbolic/cache", geometry: "hyperbolic", cache: true},
		{name: "euclidean/nested", geometry: "euclidean"},
		{name: "euclidean/cache", geometry: "euclidean", cache: true},
		{name: "hyperbolic/no-tree", geometry: "hyperbolic", noTree: true},
		{name: "hyperbolic/no-graph", geometry: "hyperbolic", noGraph: true, zeroPrefix: []string{"graph"}},
		{name: "euclidean/no-tree-no-graph", geometry: "euclidean", noTree: true, noGraph: true, zeroPrefix: []string{"graph"}},
		// Without the tf-idf start (no embed.feat), head truncation, and
		// λ_topic = 0: the decoder U then has no gradient while the rest of
		// the tree still learns through e_i in layers 2..L.
		// Every document's [CLS] then starts nearly alike, so its
		// neighbours' keys are alike and the graph attention's weights
		// barely move the loss (below lossMoves' threshold).
		{name: "hyperbolic/plain-cls/no-topic-loss", geometry: "hyperbolic", mut: func(c *Config) {
			c.Features, c.Truncate, c.LambdaTopic = "none", "head", 0
		}, zeroPrefix: []string{"tree.decoder"}, weakPrefix: []string{"graph1.att", "graph2.att"}},
		// Graph-propagated hop features in the [CLS] start and the skip
		// into the final tangent.
		// The decoder's background word frequencies.
		{name: "hyperbolic/background", geometry: "hyperbolic", mut: func(c *Config) { c.Tree.Background = true }},
		// ... weighted per level (root only, negative at the leaves).
		{name: "hyperbolic/background-levels", geometry: "hyperbolic", mut: func(c *Config) {
			c.Tree.Background, c.Tree.BackgroundLevels = true, []float64{1, 0, -0.3}
		}},
		// The background as a mixture component: ρ (tree.bg_mix) learned.
		{name: "hyperbolic/background-mix", geometry: "hyperbolic", mut: func(c *Config) { c.Tree.BackgroundMix = 0.3 }},
		// ... beside the root's logit background.
		{name: "euclidean/background-mix/background-levels", geometry: "euclidean", mut: func(c *Config) {
			c.Tree.Background, c.Tree.BackgroundLevels, c.Tree.BackgroundMix = true, []float64{1, 0, 0}, 0.6
		}},
		// The level prior.
		{name: "hyperbolic/level-prior", geometry: "hyperbolic", mut: func(c *Config) { c.LambdaLevel = 0.5 }},
		{name: "hyperbolic/branch-prior", geometry: "hyperbolic", mut: func(c *Config) { c.LambdaBranch = 0.5 }},
		// The topics' overlap.
		{name: "hyperbolic/overlap", geometry: "hyperbolic", mut: func(c *Config) { c.LambdaDiv = 0.5 }},
		{name: "hyperbolic/hop-features/skip", geometry: "hyperbolic", cache: true, mut: func(c *Config) {
			c.FeatureHops, c.FeatureDim, c.FeatureSkip = 2, 6, true
		}},
		// One hop, the skip's gate away from 1, and the targets masked
		// out of the centres' features.
		{name: "euclidean/hop-features/gate/masked-targets", geometry: "euclidean", maskTargets: true, mut: func(c *Config) {
			gate := float32(0.5)
			c.FeatureHops, c.FeatureSkip, c.SkipGate = 1, true, &gate
		}},
		// λ_sup = 0: the classifier exists but has no gradient.
		{name: "hyperbolic/no-sup-loss", geometry: "hyperbolic", mut: func(c *Config) { c.LambdaSup = 0 }, zeroPrefix: []string{"sup."}},
	}
}

// gradFixture is a tiny model with a batch, ready for gradient checks.
type gradFixture struct {
	m     *Model
	in    *Inputs
	b     *Batch
	cache *Cache
}

func newGradFixture(t testing.TB, gc gradCase) *gradFixture {
	t.Helper()
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	cfg.Geometry = Geometry(gc.geometry)
	cfg.NoTree = gc.noTree
	cfg.NoGraph = gc.noGraph
	if gc.mut != nil {
		gc.mut(&cfg)
	}
	m, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Move every parameter away from its special initial value (LayerNorm
	// γ = 1, β = 0, zero biases and attention vectors) so that no term of
	// the backward is hidden by a zero or a one.
	rng := rand.New(rand.NewPCG(11, 0))
	for _, p := range m.Params() {
		for i := range p.Data {
			p.Data[i] += float32(0.05 * rng.NormFloat64())
		}
	}
	in := preparedInputs(t, m, g)
	if cfg.Tree.Background {
		m.Topics.Background = LogUnigram(g, allDocs(in.N))
	}
	// Links: 0-1, 2-3, 4-7, 1-4; centres 0,1,2,3,4,7; the isolated
	// document 8 is not a centre but document 3's chord partner 6 gives
	// neighbours outside the batch.
	links := [][2]int32{{0, 1}, {2, 3}, {4, 7}, {1, 4}}
	b := linkBatch(t, g, links, cfg.Neighbors, 5)
	if gc.maskTargets {
		b.Hop = maskedHop(g, in, cfg.FeatureHops, b.Centres, links)
		if slices.Equal(b.Hop, hopRows(in, b.Centres).Data) {
			t.Fatal("masking the target links left the centres' hop features as they were")
		}
	}
	f := &gradFixture{m: m, in: in, b: b}
	if gc.cache {
		f.cache = m.NewCache(in.N)
		m.Refresh(f.cache, in, allDocs(in.N), 4)
	}
	return f
}

// maskedHop returns the hop features (len(centres), HopWidth) of centres
// with their links in links removed from their own aggregation.
func maskedHop(g *corpus.Graph, in *Inputs, hops int, centres []int32, links [][2]int32) []float32 {
	w := in.HopWidth
	out := make([]float32, len(centres)*w)
	for i, d := range centres {
		var drop []int32
		for _, l := range links {
			switch d {
			case l[0]:
				drop = append(drop, l[1])
			case l[1]:
				drop = append(drop, l[0])
			}
		}
		features.Without(in.Hop, w/(hops+1), hops, d, g.Neighbors(int(d)), drop, out[i*w:(i+1)*w])
	}
	return out
}

// loss returns the total loss in float64 without recording.
func (f *gradFixture) loss(t testing.TB) float64 {
	tp := tensor.NewTape()
	tp.NoGrad = true
	_, parts, err := f.m.Loss(tp, f.in, f.b, f.cache)
	if err != nil {
		t.Fatal(err)
	}
	return parts.Total
}

// analytic returns the backward's gradient of every parameter.
func (f *gradFixture) analytic(t testing.TB) [][]float32 {
	ps := f.m.Params()
	for _, p := range ps {
		p.ZeroGrad()
	}
	tp := tensor.NewTape()
	loss, _, err := f.m.Loss(tp, f.in, f.b, f.cache)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(loss)
	out := make([][]float32, len(ps))
	for i, p := range ps {
		out[i] = slices.Clone(p.Grad)
	}
	return out
}

// numeric returns the Richardson-extrapolated central difference of the
// loss with respect to p.Data[i] with steps h and h/2.
func (f *gradFixture) numeric(t testing.TB, p *tensor.Tensor, i int, h float64) float64 {
	x0 := p.Data[i]
	diff := func(h float64) float64 {
		p.Data[i] = float32(float64(x0) + h)
		hp := float64(p.Data[i]) - float64(x0)
		lp := f.loss(t)
		p.Data[i] = float32(float64(x0) - h)
		hm := float64(x0) - float64(p.Data[i])
		lm := f.loss(t)
		p.Data[i] = x0
		return (lp - lm) / (hp + hm)
	}
	d1 := diff(h)
	d2 := diff(h / 2)
	return (4*d2 - d1) / 3
}

// ulp32 is the spacing of float32 values at x.
func ulp32(x float64) float64 {
	f := float32(math.Abs(x))
	return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
}

// pickEntries returns up to fdPerTens entry indices of g: the two largest
// |g| and random others.
func pickEntries(g []float32, rng *rand.Rand) []int {
	idx := make([]int, len(g))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return -cmpAbs(g[a], g[b])
	})
	picked := slices.Clone(idx[:min(2, len(idx))])
	rest := idx[len(picked):]
	rng.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	picked = append(picked, rest[:min(fdPerTens-len(picked), len(rest))]...)
	return picked
}

func cmpAbs(a, b float32) int {
	x, y := math.Abs(float64(a)), math.Abs(float64(b))
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// checkLossGradient compares analytic and numeric gradients on sampled
// entries of every parameter tensor and returns a description of the
// failures (empty when all agree) and the overall relative error.
// only, when non-nil, restricts the check to the named tensors.
func checkLossGradient(t testing.TB, f *gradFixture, ana [][]float32, gc gradCase, only func(name string) bool) (fails []string, rel float64) {
	rng := rand.New(rand.NewPCG(17, 0))
	var errSq, numSq float64
	base := f.loss(t)
	for pi, p := range f.m.Params() {
		if only != nil && !only(p.Name) {
			continue
		}
		g := ana[pi]
		var scale float64
		for _, v := range g {
			scale = max(scale, math.Abs(float64(v)))
		}
		h := min(max(fdTarget/scale, fdStep), fdMaxStep)
		tol := max(fdNoise*fdStep, fdNoiseULP*ulp32(base))/h + fdScaleTol*scale
		zero, weak := false, false
		for _, pre := range gc.zeroPrefix {
			zero = zero || strings.HasPrefix(p.Name, pre)
		}
		for _, pre := range gc.weakPrefix {
			weak = weak || strings.HasPrefix(p.Name, pre)
		}
		nonzero := slices.ContainsFunc(g, func(v float32) bool { return v != 0 })
		if zero && nonzero {
			fails = append(fails, fmt.Sprintf("%s: gradient should be zero under this switch", p.Name))
		}
		if moved := lossMoves(t, f, p, base); zero && moved {
			fails = append(fails, fmt.Sprintf("%s: the loss depends on it under a switch that should remove it", p.Name))
		} else if !zero && !weak && !moved {
			fails = append(fails, fmt.Sprintf("%s: the loss does not depend on it (its gradient is identically zero; float32 rounding only)", p.Name))
		}
		for _, i := range pickEntries(g, rng) {
			num := f.numeric(t, p, i, h)
			a := float64(g[i])
			d := math.Abs(num - a)
			errSq += d * d
			numSq += num * num
			if d > tol+fdRelTol*math.Abs(a) {
				fails = append(fails, fmt.Sprintf("%s[%d]: analytic %.6g, numeric %.6g", p.Name, i, a, num))
			}
		}
	}
	return fails, math.Sqrt(errSq / max(numSq, 1e-300))
}

// lossMoves reports whether the loss depends on p at all: p is moved by
// random perturbations of standard deviation 1, 20 and 200 (large next to
// every parameter's scale), and at least one must change the loss by more
// than deadTol relative to base (a non-finite loss counts as a change). A
// gradient that is zero in exact arithmetic (a term that every logit of a
// softmax shares, such as the paper's graph-attention self term or an
// attention key bias) still shows float32 rounding noise, so the size of
// the analytic gradient cannot tell; the loss under such perturbations
// can: it moved by 0 or 8e-8 relative for those, and by 1e-5 or more for
// the weakest live tensor (the graph attention, whose neighbours are much
// alike in the fixture) under at least one of the three.
func lossMoves(t testing.TB, f *gradFixture, p *tensor.Tensor, base float64) bool {
	saved := slices.Clone(p.Data)
	defer copy(p.Data, saved)
	for k, sd := range []float64{1, 20, 200} {
		rng := rand.New(rand.NewPCG(23, uint64(k)))
		for i := range p.Data {
			p.Data[i] = saved[i] + float32(sd*rng.NormFloat64())
		}
		l := f.loss(t)
		if math.IsNaN(l) || math.IsInf(l, 0) || math.Abs(l-base) > deadTol*math.Abs(base) {
			return true
		}
	}
	return false
}

func TestLossGradient(t *testing.T) {
	for _, gc := range gradCases() {
		t.Run(gc.name, func(t *testing.T) {
			f := newGradFixture(t, gc)
			fails, rel := checkLossGradient(t, f, f.analytic(t), gc, nil)
			for _, s := range fails {
				t.Error(s)
			}
			if rel > fdVecTol {
				t.Errorf("relative error over all sampled entries %.3g > %g", rel, fdVecTol)
			}
			t.Logf("%d parameter tensors, relative error %.2g", len(f.m.Params()), rel)
		})
	}
}

// TestLossGradientDetects feeds the checker analytic gradients with one
// error each and requires it to report exactly that tensor: a checker that
// cannot fail proves nothing.
func TestLossGradientDetects(t *testing.T) {
	f := newGradFixture(t, gradCases()[0])
	good := f.analytic(t)
	names := []string{"scale.log", "embed.feat", "layer1.attn.wq.w", "tree.root_in", "tree.level_rnn.w", "graph1.w.w", "tree.drnn.w", "tree.decoder.u", "sup.fc2.w"}
	corruptions := []struct {
		name string
		fn   func(g []float32)
	}{
		{"sign", func(g []float32) {
			for i := range g {
				g[i] = -g[i]
			}
		}},
		{"factor 1.1", func(g []float32) {
			for i := range g {
				g[i] *= 1.1
			}
		}},
		{"dropped", func(g []float32) { clear(g) }},
	}
	ps := f.m.Params()
	for _, name := range names {
		pi := slices.IndexFunc(ps, func(p *tensor.Tensor) bool { return p.Name == name })
		if pi < 0 {
			t.Errorf("no parameter %q (names: %v)", name, paramNames(ps))
			continue
		}
		for _, c := range corruptions {
			ana := make([][]float32, len(good))
			for i := range good {
				ana[i] = slices.Clone(good[i])
			}
			c.fn(ana[pi])
			fails, _ := checkLossGradient(t, f, ana, gradCase{}, func(n string) bool { return n == name })
			if len(fails) == 0 {
				t.Errorf("%s with %s gradient: the checker found nothing", name, c.name)
			}
		}
	}
}

func paramNames(ps []*tensor.Tensor) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}
