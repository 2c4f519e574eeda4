package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/hnn"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// perturbed returns the tiny model with every parameter moved off its
// special initial value (zero attention vectors and biases, unit LayerNorm
// gains), so that masks and weights are exercised.
func perturbed(t testing.TB, cfg Config, seed uint64) *Model {
	t.Helper()
	m, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	for _, p := range m.Params() {
		for i := range p.Data {
			p.Data[i] += float32(0.1 * rng.NormFloat64())
		}
	}
	return m
}

// checkDistributions checks that each of the rows of theta (rows × T) is a
// distribution: entries in [0,1] summing to one within 1e-5.
func checkDistributions(t *testing.T, what string, theta []float32, T int) {
	t.Helper()
	for r := 0; r < len(theta)/T; r++ {
		var s float64
		for _, v := range theta[r*T : (r+1)*T] {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s: row %d has entry %g outside [0,1]", what, r, v)
			}
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("%s: row %d sums to %.7f", what, r, s)
		}
	}
}

// TestThetaAndSigma: θ sums to one per document for the forward pass and
// for Embed, across tree shapes and both geometries, and so do the path
// distribution π and each path's level distribution δ; σ = 1/(1+e^{d²−r})
// lies in (0, 1/(1+e^{−r})] for every topic and level (the paper's (0, 1/2]
// for r = 0), and reaches that ceiling exactly where a document sits on a
// topic.
func TestThetaAndSigma(t *testing.T) {
	g := tinyGraph(10, 20, 3, 9, true, 2)
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
	}{
		{"hyperbolic 3x2", func(*Config) {}},
		{"euclidean 3x2", func(c *Config) { c.Geometry = "euclidean" }},
		{"flat 4", func(c *Config) { c.Tree.Mode = "flat"; c.Tree.Branching = 4; c.Tree.MaxChildren = 4 }},
		{"deep 4x2", func(c *Config) { c.Tree.InitDepth = 4; c.Tree.MaxDepth = 4 }},
		{"one level", func(c *Config) { c.Tree.InitDepth = 1; c.Tree.MaxDepth = 1 }},
		{"paper sigma r=0", func(c *Config) { c.Tree.FDRadius = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			tc.mutate(&cfg)
			m := perturbed(t, cfg, 1)
			in := preparedInputs(t, m, g)
			b := linkBatch(t, g, [][2]int32{{0, 1}, {2, 3}, {4, 5}}, cfg.Neighbors, 1)

			tp := tensor.NewTape()
			out := m.forward(tp, in, b.Centres, b.Nbrs, nil)
			T := m.Topics.Tables().T
			if out.Theta.Cols() != T {
				t.Fatalf("θ has %d columns for %d topics", out.Theta.Cols(), T)
			}
			checkDistributions(t, "forward θ", out.Theta.Data, T)

			e := m.Embed(in, allDocs(g.NumDocs()), nbrsOf(g), 3, 4)
			checkDistributions(t, "Embed θ", e.Theta, T)

			// σ for documents against topics and levels, and for the
			// topics against themselves (distance 0 on the diagonal).
			_, zh := m.Topics.Embeddings(tp)

			// π over paths and δ over each path's levels, from the same σ
			// the model uses; the model's θ must be the op's θ.
			r := cfg.Tree.FDRadius
			ceil := float32(1 / (1 + math.Exp(-r)))
			sT := hnn.FermiDiracRT(tp, m.M.PairSqDist(tp, out.Points, out.Z), r, 1)
			sH := hnn.FermiDiracRT(tp, m.M.PairSqDist(tp, out.Points, zh), r, 1)
			theta, pi, delta := topictree.StickBreak(tp, m.Topics.Tables(), sT, sH)
			near(t, "θ vs StickBreak", -1, out.Theta.Data, theta.Data)
			P := len(m.Topics.Tables().Paths)
			checkDistributions(t, "π", pi.Data, P)
			checkDistributions(t, "δ", delta.Data, delta.Cols())
			for _, pair := range []struct {
				what string
				d, z *tensor.Tensor
			}{
				{"documents × topics", out.Points, out.Z},
				{"documents × levels", out.Points, zh},
				{"topics × topics", out.Z, out.Z},
			} {
				sig := hnn.FermiDiracRT(tp, m.M.PairSqDist(tp, pair.d, pair.z), r, 1)
				for i, v := range sig.Data {
					if !(v > 0 && v <= ceil) {
						t.Fatalf("%s: σ[%d] = %g outside (0, %g]", pair.what, i, v, ceil)
					}
				}
				if pair.d == pair.z {
					for k := 0; k < T; k++ {
						if v := sig.Data[k*T+k]; math.Abs(float64(v-ceil)) > 1e-5 {
							t.Errorf("σ of topic %d at itself = %g, want %g", k, v, ceil)
						}
					}
				}
			}
		})
	}
}

// TestScaleAtInit is the "mind the scale" requirement: with the default
// configuration (width n = 128) at initialisation, documents start at
// distance O(1) from the origin. The measure is the geodesic distance
// d(o, d_i) on the manifold (equal to ‖log_o d_i‖), of every document of a
// synthetic corpus of 64-token documents embedded by Embed; every one must
// lie in [0.3, 3]. Without the learned scale (InitScale = 1) the post-LN
// [CLS] of norm √n lands at distance ≈ √n ≈ 11.3 (checked within 2%),
// where the Fermi-Dirac σ = 1/(1+e^{d²}) of nearly every topic underflows.
func TestScaleAtInit(t *testing.T) {
	g := tinyGraph(24, 300, 64, 64, true, 3)
	for _, tc := range []struct {
		name     string
		scale    float32 // 0: the default 1/√n
		lo, hi   float64
		geometry string
	}{
		{"default scale", 0, 0.3, 3, "hyperbolic"},
		{"default scale, euclidean", 0, 0.3, 3, "euclidean"},
		{"no scale", 1, 0.98 * math.Sqrt(128), 1.02 * math.Sqrt(128), "hyperbolic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Default()
			cfg.Vocab = len(g.Vocab)
			cfg.NumLabels = g.NumLabels()
			cfg.InitScale = tc.scale
			cfg.Geometry = Geometry(tc.geometry)
			if tc.scale == 1 {
				// √n is the encoder path's norm alone: without the
				// feature skip, whose term adds to it.
				cfg.FeatureHops, cfg.FeatureSkip = 0, false
			}
			m, err := New(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			in := preparedInputs(t, m, g)
			docs := allDocs(g.NumDocs())
			e := m.Embed(in, docs, nbrsOf(g), cfg.Neighbors, 8)
			n := cfg.Width
			tp := tensor.NewTape()
			tp.NoGrad = true
			pts := tensor.FromData(e.Points, len(docs), n+1)
			dist := m.M.Dist(tp, m.M.Origin(tp, len(docs), n), pts)
			var sum float64
			for i, r := range dist.Data {
				var nrm float64
				for _, v := range e.Tangent[i*n : (i+1)*n] {
					nrm += float64(v) * float64(v)
				}
				if math.Abs(math.Sqrt(nrm)-float64(r)) > 1e-3*max(1, float64(r)) {
					t.Errorf("doc %d: d(o,d) = %g but |log_o d| = %g", i, r, math.Sqrt(nrm))
				}
				if float64(r) < tc.lo || float64(r) > tc.hi {
					t.Errorf("doc %d at distance %.3f from the origin, want [%.2f, %.2f]", i, r, tc.lo, tc.hi)
				}
				sum += float64(r)
			}
			t.Logf("mean distance from the origin %.3f (n = %d, √n = %.2f)", sum/float64(len(docs)), n, math.Sqrt(float64(n)))
		})
	}
}

// TestEmbedEqualsFullNesting: Embed (neighbours from a refreshed cache,
// padded neighbour slots, batches of 4) gives the same points, tangents, θ
// and predictions as a direct forward pass with full nesting (cache nil),
// run one document at a time with exactly its neighbour list (no padding,
// no mask). Lists: all neighbours when at most maxNbrs, else maxNbrs evenly
// spaced, and the document itself when it has none (Embed's contract).
func TestEmbedEqualsFullNesting(t *testing.T) {
	g := hubGraph()
	const maxNbrs = 3
	for _, tc := range []struct {
		name string
		mut  func(*Config)
	}{
		{"hyperbolic", func(*Config) {}},
		{"euclidean", func(c *Config) { c.Geometry = "euclidean" }},
		{"dropout configured", func(c *Config) { c.Dropout = 0.3 }}, // inference never drops
		{"no tree", func(c *Config) { c.NoTree = true }},
		{"no graph", func(c *Config) { c.NoGraph = true }},
		{"one layer", func(c *Config) { c.Layers = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			cfg.Hops = 1 // two hops: TestTwoHopsEqualsNestedReference
			tc.mut(&cfg)
			m := perturbed(t, cfg, 2)
			in := preparedInputs(t, m, g)
			docs := allDocs(g.NumDocs())
			slices.Reverse(docs) // Embed must keep the caller's order
			e := m.Embed(in, docs, nbrsOf(g), maxNbrs, 4)

			n, T := cfg.Width, m.Topics.Tables().T
			tp := tensor.NewTape()
			tp.NoGrad = true
			for r, d := range docs {
				l := g.Neighbors(int(d))
				switch {
				case len(l) == 0:
					l = []int32{d}
				case len(l) > maxNbrs:
					l = []int32{l[0], l[len(l)/maxNbrs], l[2*len(l)/maxNbrs]}
				}
				tp.Reset()
				out := m.forward(tp, in, []int32{d}, Neighbors{K: len(l), Docs: l}, nil)
				near(t, "points", d, e.Points[r*(n+1):(r+1)*(n+1)], out.Points.Data)
				near(t, "tangent", d, e.Tangent[r*n:(r+1)*n], out.Tangent.Data)
				near(t, "theta", d, e.Theta[r*T:(r+1)*T], out.Theta.Data)
				if e.Pred != nil {
					logits := m.classify(tp, out.Tangent).Data
					best := 0
					for j, v := range logits {
						if v > logits[best] {
							best = j
						}
					}
					if e.Pred[r] != int32(best) {
						t.Errorf("doc %d: predicted %d, direct forward %d", d, e.Pred[r], best)
					}
				}
			}
		})
	}
}

func near(t *testing.T, what string, doc int32, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("doc %d %s: %d values, want %d", doc, what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); d > 1e-5 || math.IsNaN(d) {
			t.Errorf("doc %d %s[%d] = %.7g, full nesting %.7g", doc, what, i, got[i], want[i])
			return
		}
	}
}

// TestDeterminism: the same seed gives bit-identical parameters and loss
// (dropout on, so the dropout stream is covered too); another seed gives
// different parameters and a different loss.
func TestDeterminism(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	cfg.Dropout = 0.2
	b := linkBatch(t, g, [][2]int32{{0, 1}, {2, 3}, {4, 7}}, cfg.Neighbors, 3)
	run := func(seed uint64) ([]*tensor.Tensor, []uint32) {
		m, err := New(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		in := preparedInputs(t, m, g) // the hop features' basis too
		var bits []uint32
		tp := tensor.NewTape()
		for step := 0; step < 2; step++ { // second step: dropout stream advanced
			tp.Reset()
			loss, parts, err := m.Loss(tp, in, b, nil)
			if err != nil {
				t.Fatal(err)
			}
			tp.Backward(loss)
			bits = append(bits, math.Float32bits(loss.Data[0]), math.Float32bits(float32(parts.Graph)),
				math.Float32bits(float32(parts.Topic)), math.Float32bits(float32(parts.Sup)))
			for _, p := range m.Params() {
				for _, v := range p.Grad {
					bits = append(bits, math.Float32bits(v))
				}
			}
		}
		return m.Params(), bits
	}
	p1, l1 := run(42)
	p2, l2 := run(42)
	p3, l3 := run(43)
	if len(p1) != len(p2) {
		t.Fatalf("%d vs %d parameters", len(p1), len(p2))
	}
	differs := false
	for i := range p1 {
		if p1[i].Name != p2[i].Name || !slices.Equal(p1[i].Shape, p2[i].Shape) {
			t.Fatalf("parameter %d: %s %v vs %s %v", i, p1[i].Name, p1[i].Shape, p2[i].Name, p2[i].Shape)
		}
		for j := range p1[i].Data {
			if math.Float32bits(p1[i].Data[j]) != math.Float32bits(p2[i].Data[j]) {
				t.Fatalf("same seed: %s[%d] = %g vs %g", p1[i].Name, j, p1[i].Data[j], p2[i].Data[j])
			}
		}
		differs = differs || !slices.Equal(p1[i].Data, p3[i].Data)
	}
	if !slices.Equal(l1, l2) {
		t.Error("same seed: loss or gradient bits differ")
	}
	if !differs {
		t.Error("seeds 42 and 43 gave identical parameters")
	}
	if l1[0] == l3[0] {
		t.Error("seeds 42 and 43 gave the same loss")
	}
}

// TestEuclideanSwitch: Geometry "euclidean" (the paper's ablation) swaps
// the manifold for lorentz.Euclidean. What changes: exp_o and log_o become
// identities (points are stored [0 | v], so the time coordinate is 0 and the
// spatial part equals the tangent), distances become squared Euclidean in
// σ = 1/(1+e^{d²}) and in the contrastive logits, and the Doubly-RNN's and
// level RNN's hyperbolic linear maps and tanh become their Euclidean
// versions. What stays: the parameter set (same names and shapes, so a
// checkpoint layout is shared), the tree, the losses. The model must build,
// and a few Adam steps on one batch must lower the loss with finite values.
func TestEuclideanSwitch(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	hyp, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Geometry = "euclidean"
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.M.Name() != "euclidean" {
		t.Fatalf("manifold %s", m.M.Name())
	}
	ph, pe := hyp.Params(), m.Params()
	if len(ph) != len(pe) {
		t.Fatalf("%d parameters, hyperbolic has %d", len(pe), len(ph))
	}
	for i := range ph {
		if ph[i].Name != pe[i].Name || !slices.Equal(ph[i].Shape, pe[i].Shape) {
			t.Errorf("parameter %d: %s %v, hyperbolic %s %v", i, pe[i].Name, pe[i].Shape, ph[i].Name, ph[i].Shape)
		}
	}

	in := preparedInputs(t, m, g)
	b := linkBatch(t, g, [][2]int32{{0, 1}, {2, 3}, {4, 7}, {1, 4}}, cfg.Neighbors, 5)
	tp := tensor.NewTape()
	out := m.forward(tp, in, b.Centres, b.Nbrs, nil)
	n := cfg.Width
	for r := 0; r < len(b.Centres); r++ {
		row := out.Points.Data[r*(n+1) : (r+1)*(n+1)]
		if row[0] != 0 || !slices.Equal(row[1:], out.Tangent.Data[r*n:(r+1)*n]) {
			t.Fatalf("centre %d: point %v is not [0 | tangent %v]", r, row, out.Tangent.Data[r*n:(r+1)*n])
		}
	}
	// Squared Euclidean distance between the first two documents.
	sq := m.M.PairSqDist(tp, out.Points, out.Points)
	var want float64
	for j := 0; j < n; j++ {
		d := float64(out.Tangent.Data[j] - out.Tangent.Data[n+j])
		want += d * d
	}
	if got := float64(sq.Data[1]); math.Abs(got-want) > 1e-5*max(1, want) {
		t.Errorf("squared distance %g, want %g", got, want)
	}

	opt := optim.NewAdam(optim.DefaultConfig())
	for _, p := range m.Params() {
		if err := opt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	var first, last float64
	for step := 0; step < 5; step++ {
		for _, p := range m.Params() {
			p.ZeroGrad()
		}
		tp.Reset()
		loss, parts, err := m.Loss(tp, in, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		tp.Backward(loss)
		_, vals := parts.Names()
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("step %d: loss parts %+v", step, parts)
			}
		}
		if step == 0 {
			first = parts.Total
		}
		last = parts.Total
		opt.Step(1e-2)
	}
	if !(last < first) {
		t.Errorf("loss %g after 5 steps, %g before", last, first)
	}
	for _, p := range m.Params() {
		for _, v := range p.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s has a non-finite value after training", p.Name)
			}
		}
	}
}
