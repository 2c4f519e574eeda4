package model

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/tensor"
)

// Packing (no padding rows) and the [CLS]-only last layer are exact
// reformulations of the padded grid with the last layer over every row:
// padding keys have probability zero, so they add exact zeros to every
// sum, and the last layer's other rows are never read. What may differ is
// the float32 summation order of the matrix products (other shapes, other
// blocking), so the comparison allows
//
//	|ΔL| ≤ 1e-5·max(1, |L|)   per loss,
//	‖Δ∂L/∂p‖ ≤ 1e-4·‖∂L/∂p‖ + 1e-7·√|p|   per parameter tensor p (all of them),
//
// and 1e-5 absolute on embeddings, θ and cached [CLS] values. Dropout is off (tinyConfig): with
// it, the two layouts draw masks for different numbers of rows.

// equivTol is the relative tolerance on gradients.
const equivTol = 1e-4

// layoutCase names a pair of knobs: pad (padded grid) and fullLast (last
// layer over every row).
type layoutCase struct {
	name          string
	pad, fullLast bool
}

var layouts = []layoutCase{
	{"packed, [CLS]-only last layer", false, false},
	{"packed, full last layer", false, true},
	{"padded, [CLS]-only last layer", true, false},
}

// lossAndGrads runs one training loss with the given layout and returns
// the loss parts and every parameter's gradient by name.
func lossAndGrads(t *testing.T, f *gradFixture, pad, fullLast bool) (Parts, map[string][]float64) {
	t.Helper()
	f.m.pad, f.m.fullLast = pad, fullLast
	defer func() { f.m.pad, f.m.fullLast = false, false }()
	for _, p := range f.m.Params() {
		p.ZeroGrad()
	}
	tp := tensor.NewTape()
	loss, parts, err := f.m.Loss(tp, f.in, f.b, f.cache)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(loss)
	grads := map[string][]float64{}
	for _, p := range f.m.Params() {
		g := make([]float64, len(p.Grad))
		for i, v := range p.Grad {
			g[i] = float64(v)
		}
		grads[p.Name] = g
		p.ZeroGrad()
	}
	return parts, grads
}

func TestPackedEqualsPadded(t *testing.T) {
	var cases []gradCase
	for _, gc := range gradCases() {
		cases = append(cases, gc)
	}
	cases = append(cases,
		gradCase{name: "hyperbolic/one-layer", geometry: "hyperbolic", mut: func(c *Config) { c.Layers = 1 }},
		gradCase{name: "hyperbolic/two-layers/cache", geometry: "hyperbolic", cache: true, mut: func(c *Config) { c.Layers = 2 }},
		gradCase{name: "hyperbolic/four-layers", geometry: "hyperbolic", mut: func(c *Config) { c.Layers = 4 }},
		// The default hop features with the skip, full nesting.
		gradCase{name: "hyperbolic/hop-features/nested", geometry: "hyperbolic", mut: func(c *Config) {
			c.FeatureHops, c.FeatureSkip = 3, true
		}},
	)
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			f := newGradFixture(t, gc)
			padded := false
			for _, d := range f.b.Centres {
				padded = padded || len(f.in.Tokens(int(d))) < f.m.Cfg.MaxLen
			}
			if !padded {
				t.Fatal("the fixture's centres all have the same length: nothing to pack")
			}
			refParts, ref := lossAndGrads(t, f, true, true)
			for _, lc := range layouts {
				parts, got := lossAndGrads(t, f, lc.pad, lc.fullLast)
				rn, gn := refParts.Names()
				_, pv := parts.Names()
				for i, name := range rn {
					if d := math.Abs(pv[i] - gn[i]); d > 1e-5*math.Max(1, math.Abs(gn[i])) || math.IsNaN(d) {
						t.Errorf("%s: %s loss %.9g, padded reference %.9g", lc.name, name, pv[i], gn[i])
					}
				}
				for _, p := range f.m.Params() {
					var diff, norm float64
					for i, v := range got[p.Name] {
						w := ref[p.Name][i]
						diff += (v - w) * (v - w)
						norm += w * w
					}
					diff, norm = math.Sqrt(diff), math.Sqrt(norm)
					if diff > equivTol*norm+1e-7*math.Sqrt(float64(len(p.Data))) || math.IsNaN(diff) {
						t.Errorf("%s: ∂L/∂%s differs by %.3g (norm %.3g)", lc.name, p.Name, diff, norm)
					}
				}
			}
		})
	}
}

// TestPackedEqualsPaddedInference compares the inference paths: the
// two-hop neighbour refresh (which stops before the last layer) and Embed,
// packed against padded with the full last layer, on a graph with a hub
// whose neighbour list is capped.
func TestPackedEqualsPaddedInference(t *testing.T) {
	g := hubGraph()
	for _, hops := range []int{1, 2} {
		t.Run(fmt.Sprintf("hops=%d", hops), func(t *testing.T) {
			cfg := tinyConfig(g)
			cfg.Hops = hops
			cfg.FeatureHops, cfg.FeatureSkip = 3, true // the defaults
			m := perturbed(t, cfg, 4)
			in := preparedInputs(t, m, g)
			docs := allDocs(g.NumDocs())
			run := func(pad, fullLast bool) (*Cache, *Embeddings) {
				m.pad, m.fullLast = pad, fullLast
				defer func() { m.pad, m.fullLast = false, false }()
				c := m.NewCache(in.N)
				m.RefreshNeighbors(c, in, docs, nbrsOf(g), 3, 5)
				return c, m.Embed(in, docs, nbrsOf(g), 3, 5)
			}
			refCache, refEmb := run(true, true)
			for _, lc := range layouts {
				c, e := run(lc.pad, lc.fullLast)
				for what, pair := range map[string][2][]float32{
					"cache": {c.Data, refCache.Data}, "points": {e.Points, refEmb.Points},
					"tangent": {e.Tangent, refEmb.Tangent}, "theta": {e.Theta, refEmb.Theta},
				} {
					for i, v := range pair[0] {
						if d := math.Abs(float64(v - pair[1][i])); d > 1e-5 || math.IsNaN(d) {
							t.Errorf("%s: %s[%d] = %.7g, padded reference %.7g", lc.name, what, i, v, pair[1][i])
							break
						}
					}
				}
			}
		})
	}
}

// twoHopSetup is the hub graph's tiny model with two hops and the
// default hop features, perturbed by seed, its prepared inputs and every
// document.
func twoHopSetup(t *testing.T, seed uint64) (*corpus.Graph, Config, *Model, *Inputs, []int32) {
	t.Helper()
	g := hubGraph()
	cfg := tinyConfig(g)
	cfg.Hops = 2
	cfg.FeatureHops, cfg.FeatureSkip = 3, true // the defaults
	m := perturbed(t, cfg, seed)
	return g, cfg, m, preparedInputs(t, m, g), allDocs(g.NumDocs())
}

// TestFirstLayerReuse: a two-hop refresh keeps every document's first-layer
// rows once (all of them, within the budget), and embedding from them gives
// what embedding without them gives.
func TestFirstLayerReuse(t *testing.T) {
	g, cfg, m, in, docs := twoHopSetup(t, 6)
	first := m.newFirstLayer(in, docs)
	if first == nil {
		t.Fatal("no store for a tiny corpus")
	}
	c := m.NewCache(in.N)
	m.refreshNeighbors(c, in, docs, nbrsOf(g), 3, 5, first)
	var rows int64
	for _, d := range docs {
		rows += int64(1 + len(in.Tokens(int(d))))
		if !first.kept[d] {
			t.Fatalf("the first-layer rows of document %d were not kept", d)
		}
	}
	got := m.embedCached(in, docs, nbrsOf(g), 3, 5, c, first)
	want := m.EmbedCached(in, docs, nbrsOf(g), 3, 5, c)
	for i, v := range got.Points {
		if d := math.Abs(float64(v - want.Points[i])); d > 1e-5 || math.IsNaN(d) {
			t.Fatalf("point value %d: %.7g from kept rows, %.7g recomputed", i, v, want.Points[i])
		}
	}
	defer func(b int64) { firstLayerBudget = b }(firstLayerBudget)
	firstLayerBudget = rows*int64(cfg.Width)*4 - 1
	if m.newFirstLayer(in, docs) != nil {
		t.Error("a store beyond the budget was made")
	}
	firstLayerBudget = rows * int64(cfg.Width) * 4
	if m.newFirstLayer(in, docs, docs) == nil {
		t.Error("no store within the budget (documents counted twice?)")
	}
}

// TestFirstLayerPartial: a pass whose batch holds documents an earlier
// pass kept and documents it did not (a neighbour that no two-hop set
// reached) runs the first layer over the missing ones only, keeps them,
// and embeds as without the store.
func TestFirstLayerPartial(t *testing.T) {
	g, _, m, in, docs := twoHopSetup(t, 7)

	first := m.newFirstLayer(in, docs)
	half := docs[:len(docs)/2]
	m.refresh(m.NewCache(in.N), in, half, 5, first, 2) // keeps the first half's rows
	if got, want := first.missing(m.layoutTokens(in, docs)), docs[len(half):]; !slices.Equal(got, want) {
		t.Fatalf("missing: %v, want the documents not kept, %v", got, want)
	}
	c := m.NewCache(in.N)
	m.RefreshNeighbors(c, in, docs, nbrsOf(g), 3, 5)
	got := m.embedCached(in, docs, nbrsOf(g), 3, 5, c, first)
	ref := m.EmbedCached(in, docs, nbrsOf(g), 3, 5, c)
	for i, v := range got.Points {
		if d := math.Abs(float64(v - ref.Points[i])); d > 1e-5 || math.IsNaN(d) {
			t.Fatalf("point value %d: %.7g with half the rows kept, %.7g recomputed", i, v, ref.Points[i])
		}
	}
	for _, d := range docs {
		if !first.kept[d] {
			t.Errorf("document %d's first-layer rows were not kept by the pass that computed them", d)
		}
	}
}
