package model

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// Unit checks of the model's own tape ops. Each op is compared with an
// independent float64 reference of its forward, and its backward with the
// float64 central difference (h = 1e-6) of that reference's weighted sum
// Σ r ⊙ y under a random upstream gradient r. The op stores float32, so the
// tolerance is float32 precision: 1e-5 absolute + 1e-4 relative.

// opCase is one op under test: inputs, the op on the tape, and its float64
// reference over the same inputs (flattened per input).
type opCase struct {
	name   string
	inputs []*tensor.Tensor
	op     func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor
	ref    func(in [][]float64) []float64
}

func randParam(rng *rand.Rand, name string, scale, shift float64, shape ...int) *tensor.Tensor {
	p := tensor.Param(name, shape...)
	for i := range p.Data {
		p.Data[i] = float32(shift + scale*rng.NormFloat64())
	}
	return p
}

func checkOp(t *testing.T, c opCase) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	for _, p := range c.inputs {
		p.ZeroGrad()
	}
	tp := tensor.NewTape()
	y := c.op(tp, c.inputs)
	x64 := make([][]float64, len(c.inputs))
	for i, p := range c.inputs {
		x64[i] = make([]float64, len(p.Data))
		for j, v := range p.Data {
			x64[i][j] = float64(v)
		}
	}
	want := c.ref(x64)
	if len(want) != len(y.Data) {
		t.Fatalf("%s: reference has %d outputs, op %d", c.name, len(want), len(y.Data))
	}
	for i, w := range want {
		if d := math.Abs(float64(y.Data[i]) - w); d > 1e-5+1e-5*math.Abs(w) {
			t.Errorf("%s: y[%d] = %.8g, reference %.8g", c.name, i, y.Data[i], w)
		}
	}
	r := make([]float32, len(y.Data))
	for i := range r {
		r[i] = float32(rng.NormFloat64())
	}
	tp.BackwardWith(y, r)
	f := func() float64 {
		out := c.ref(x64)
		var s float64
		for i, v := range out {
			s += float64(r[i]) * v
		}
		return s
	}
	const h = 1e-6
	for i, p := range c.inputs {
		for j := range p.Data {
			x0 := x64[i][j]
			x64[i][j] = x0 + h
			fp := f()
			x64[i][j] = x0 - h
			fm := f()
			x64[i][j] = x0
			num := (fp - fm) / (2 * h)
			if d := math.Abs(float64(p.Grad[j]) - num); d > 1e-5+1e-4*math.Abs(num) {
				t.Errorf("%s: d/d%s[%d] = %.8g, numeric %.8g", c.name, p.Name, j, p.Grad[j], num)
			}
		}
	}
}

func TestOpsGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// A CSR of 3 documents over a vocabulary of 5: one empty row, one
	// repeated-weight row, one full row.
	ptr := []int64{0, 2, 2, 6}
	idx := []int32{1, 3, 0, 1, 2, 4}
	w := []float32{0.6, 0.8, 0.1, 0.5, 0.7, 0.5}
	counts := []float32{2, 1, 1, 3, 1, 2}

	cases := []opCase{
		{
			name:   "scaleBy",
			inputs: []*tensor.Tensor{randParam(rng, "x", 1, 0, 3, 4), randParam(rng, "s", 0.5, 0.3, 1)},
			op:     func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor { return scaleBy(tp, in[0], in[1]) },
			ref: func(in [][]float64) []float64 {
				out := make([]float64, len(in[0]))
				for i, v := range in[0] {
					out[i] = in[1][0] * v
				}
				return out
			},
		},
		{
			name:   "expScalar/+1",
			inputs: []*tensor.Tensor{randParam(rng, "a", 0.5, -1, 1)},
			op:     func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor { return expScalar(tp, in[0], 1) },
			ref:    func(in [][]float64) []float64 { return []float64{math.Exp(in[0][0])} },
		},
		{
			name:   "expScalar/-1",
			inputs: []*tensor.Tensor{randParam(rng, "a", 0.5, -1, 1)},
			op:     func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor { return expScalar(tp, in[0], -1) },
			ref:    func(in [][]float64) []float64 { return []float64{math.Exp(-in[0][0])} },
		},
		{
			name:   "bagEmbed",
			inputs: []*tensor.Tensor{randParam(rng, "table", 1, 0, 5, 3)},
			op: func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor {
				return bagEmbed(tp, in[0], ptr, idx, w)
			},
			ref: func(in [][]float64) []float64 {
				out := make([]float64, 3*3)
				for r := 0; r < 3; r++ {
					for k := ptr[r]; k < ptr[r+1]; k++ {
						for j := 0; j < 3; j++ {
							out[r*3+j] += float64(w[k]) * in[0][int(idx[k])*3+j]
						}
					}
				}
				return out
			},
		},
		contrastiveCase(rng),
		{
			name: "bowNLL",
			// p rows are positive (not normalised: bowNLL does not need it).
			inputs: []*tensor.Tensor{randUniformParam(rng, "p", 0.05, 0.6, 3, 5)},
			op: func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor {
				return BowNLL(tp, in[0], ptr, idx, counts)
			},
			ref: func(in [][]float64) []float64 {
				var loss float64
				for r := 0; r < 3; r++ {
					var nd, l float64
					for k := ptr[r]; k < ptr[r+1]; k++ {
						nd += float64(counts[k])
						l -= float64(counts[k]) * math.Log(in[0][r*5+int(idx[k])])
					}
					if nd > 0 {
						loss += l / nd
					}
				}
				return []float64{loss / 3}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkOp(t, c) })
	}
}

func randUniformParam(rng *rand.Rand, name string, lo, hi float64, shape ...int) *tensor.Tensor {
	p := tensor.Param(name, shape...)
	for i := range p.Data {
		p.Data[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return p
}

// contrastiveCase: 3 anchors over 5 candidates with large logits (the op
// subtracts the row maximum, so e^{±40} must not overflow), inadmissible
// entries whose logits must not matter, and a positive that is admissible.
func contrastiveCase(rng *rand.Rand) opCase {
	const a, c = 3, 5
	pos := []int32{1, 4, 0}
	mask := []bool{
		false, true, true, false, true,
		true, true, false, true, true,
		true, false, true, true, false,
	}
	logits := randParam(rng, "logits", 3, 0, a, c)
	logits.Data[2] = 40 // anchor 0: a dominant admissible negative
	logits.Data[3] = 80 // inadmissible and far larger: must be ignored
	return opCase{
		name:   "contrastive",
		inputs: []*tensor.Tensor{logits},
		op: func(tp *tensor.Tape, in []*tensor.Tensor) *tensor.Tensor {
			return contrastive(tp, in[0], mask, pos)
		},
		ref: func(in [][]float64) []float64 {
			var loss float64
			for r := 0; r < a; r++ {
				m := math.Inf(-1)
				for j := 0; j < c; j++ {
					if mask[r*c+j] {
						m = math.Max(m, in[0][r*c+j])
					}
				}
				var z float64
				for j := 0; j < c; j++ {
					if mask[r*c+j] {
						z += math.Exp(in[0][r*c+j] - m)
					}
				}
				loss += -(in[0][r*c+int(pos[r])] - m - math.Log(z))
			}
			return []float64{loss / a}
		},
	}
}

// TestContrastiveClosedForm: with all candidates admissible and equal
// logits the loss is log C; with the positive far ahead it is ≈ 0.
func TestContrastiveClosedForm(t *testing.T) {
	tp := tensor.NewTape()
	tp.NoGrad = true
	for _, tc := range []struct {
		name   string
		logits []float32
		want   float64
	}{
		{"uniform", []float32{-2, -2, -2, -2}, math.Log(4)},
		{"positive ahead", []float32{-200, 0, -200, -200}, 0},
		{"positive behind", []float32{0, -10, 0, 0}, 10 + math.Log(3+math.Exp(-10))},
	} {
		x := tensor.FromData(tc.logits, 1, 4)
		got := contrastive(tp, x, []bool{true, true, true, true}, []int32{1})
		if math.Abs(float64(got.Data[0])-tc.want) > 1e-5 {
			t.Errorf("%s: %g, want %g", tc.name, got.Data[0], tc.want)
		}
	}
}

// TestGraphAttentionSelfCounts: two centres with the same neighbours must
// weigh them differently. With the paper's linear score a_self·u_i +
// a_nbr·u_j the self term cancels in the softmax and the neighbour part of
// log_o g, 2·g − u_i = Σ_j α_ij u_j, would be the same for both centres.
func TestGraphAttentionSelfCounts(t *testing.T) {
	const n, k = 8, 3
	rng := rand.New(rand.NewPCG(5, 6))
	ga := newGraphAttention("g", n, rng, rng)
	tp := tensor.NewTape()
	tp.NoGrad = true
	dc := tensor.New(2, n)
	dn := tensor.New(k, n)
	for i := range dc.Data {
		dc.Data[i] = float32(2 * rng.NormFloat64())
	}
	for i := range dn.Data {
		dn.Data[i] = float32(2 * rng.NormFloat64())
	}
	where := []int32{0, 1, 2, 0, 1, 2} // the same three neighbours for both centres
	g := ga.forward(tp, dc, dn, where, k, nil)
	uc := ga.W.Forward(tp, dc)
	var diff float64
	for c := 0; c < n; c++ {
		a := 2*g.Data[c] - uc.Data[c]
		b := 2*g.Data[n+c] - uc.Data[n+c]
		diff = math.Max(diff, math.Abs(float64(a-b)))
	}
	if diff < 1e-3 {
		t.Fatalf("both centres aggregate their shared neighbours alike (max difference %.3g): the centre does not take part in the attention", diff)
	}
}

// TestLossHasNoSideEffects: a training Loss (forward and backward) leaves
// the configuration (σ's r and t included), the tree and every parameter
// as they were; only gradients change. σ's tracking is the trainer's
// (topicfit.Track), not the loss's.
func TestLossHasNoSideEffects(t *testing.T) {
	f := newGradFixture(t, gradCases()[1])
	f.m.SetSimilarity(2, 0.5)
	f.m.Cfg.Tree.FDTrack = 0.25
	cfg := f.m.Cfg
	tree := f.m.Topics.Tree.Clone()
	before := map[string][]float32{}
	for _, p := range f.m.Params() {
		before[p.Name] = slices.Clone(p.Data)
	}
	tp := tensor.NewTape()
	loss, parts, err := f.m.Loss(tp, f.in, f.b, f.cache)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(loss)
	if parts.Out == nil || parts.Out.Points == nil || parts.Out.Z == nil {
		t.Fatal("Loss did not return its forward output")
	}
	if !reflect.DeepEqual(cfg, f.m.Cfg) {
		t.Errorf("Loss changed the configuration: %+v → %+v", cfg.Tree, f.m.Cfg.Tree)
	}
	if !reflect.DeepEqual(tree.Tables(), f.m.Topics.Tree.Tables()) {
		t.Error("Loss changed the tree")
	}
	for _, p := range f.m.Params() {
		if !slices.Equal(before[p.Name], p.Data) {
			t.Errorf("Loss changed %s", p.Name)
		}
	}
}

// TestOverlap checks Model.overlap against hand-computed cosines on a root
// with two children: pairs (root, 1), (root, 2) and the siblings (1, 2).
func TestOverlap(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	cfg.Tree.InitDepth, cfg.Tree.Branching, cfg.Tree.MaxDepth = 2, 2, 2
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	tp := tensor.NewTape()
	beta := tensor.FromData([]float32{
		0.5, 0.5, 0, 0,
		0.5, 0, 0.5, 0,
		0, 0, 0.5, 0.5,
	}, 3, 4)
	got := m.overlap(tp, beta).Data[0]
	// cos(0,1) = 0.25/0.5 = 0.5, cos(0,2) = 0, cos(1,2) = 0.5.
	if want := float32(1.0 / 3); math.Abs(float64(got-want)) > 1e-6 {
		t.Errorf("overlap %g, want %g", got, want)
	}
}

// TestBranchPrior checks Model.branchPrior against KL(u ‖ q̄) computed
// directly (subtree masses summed leaves-up, shares normalised per group)
// on a root with two children of two children each, and that it is zero
// when every sibling group is balanced.
func TestBranchPrior(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	cfg.Tree.InitDepth, cfg.Tree.Branching, cfg.Tree.MaxDepth = 3, 2, 3
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	tab := m.Topics.Tables()
	if tab.T != 7 {
		t.Fatalf("tree has %d topics, want 7", tab.T)
	}
	// want is the mean over the three groups of Σ_c u_c log(u_c / q̄_c).
	want := func(theta []float64, B int) float64 {
		mass := make([]float64, tab.T)
		for b := range B {
			for u := range tab.T {
				mass[u] += theta[b*tab.T+u] / float64(B)
			}
		}
		for u := tab.T - 1; u >= 1; u-- { // children after parents in dense order
			mass[tab.Parent[u]] += mass[u]
		}
		kl, groups := 0.0, 0
		for p := range tab.T {
			var kids []int
			for c := 1; c < tab.T; c++ {
				if int(tab.Parent[c]) == p {
					kids = append(kids, c)
				}
			}
			if len(kids) < 2 {
				continue
			}
			tot := 0.0
			for _, c := range kids {
				tot += mass[c]
			}
			k := float64(len(kids))
			for _, c := range kids {
				kl += (1 / k) * math.Log((1/k)/(mass[c]/tot))
			}
			groups++
		}
		return kl / float64(groups)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	skewed := make([]float64, 3*tab.T)
	for i := range skewed {
		skewed[i] = 0.05 + rng.Float64()
	}
	for b := range 3 { // rows need not sum to one for the prior
		skewed[b*tab.T+tab.T-1] *= 20
	}
	balanced := make([]float64, 2*tab.T)
	for i := range balanced {
		balanced[i] = 1 / float64(tab.T)
	}
	for _, tc := range []struct {
		name  string
		theta []float64
		B     int
	}{{"skewed", skewed, 3}, {"balanced", balanced, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			got := float64(m.branchPrior(tensor.NewTape(), tensor.FromData(float32s(tc.theta), tc.B, tab.T)).Data[0])
			w := want(tc.theta, tc.B)
			if math.Abs(got-w) > 1e-5 {
				t.Errorf("branch prior %g, want %g", got, w)
			}
			if tc.name == "skewed" && w < 0.01 {
				t.Errorf("reference %g: the skewed case is not skewed", w)
			}
		})
	}
}

// TestLevelPrior checks Model.levelPrior against KL(π ‖ q̄) computed
// directly (q̄ the batch's mean mass per level) for the uniform π, and that
// it is zero when q̄ equals π.
func TestLevelPrior(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	for _, tc := range []struct {
		name string
		pi   []float64 // normalised
	}{
		{"uniform", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			cfg.Tree.InitDepth, cfg.Tree.Branching, cfg.Tree.MaxDepth = 3, 2, 3
			m, err := New(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			tab := m.Topics.Tables()
			want := func(theta []float64, B int) float64 {
				q := make([]float64, 3)
				for b := range B {
					for u := range tab.T {
						q[tab.Level[u]] += theta[b*tab.T+u] / float64(B)
					}
				}
				kl := 0.0
				for h, p := range tc.pi {
					kl += p * math.Log(p/q[h])
				}
				return kl
			}
			rng := rand.New(rand.NewPCG(5, 6))
			skewed := make([]float64, 4*tab.T)
			for i := range skewed {
				skewed[i] = rng.Float64()
			}
			// θ rows at the target: each level's mass π_h, spread over its topics.
			count := make([]float64, 3)
			for _, l := range tab.Level {
				count[l]++
			}
			atTarget := make([]float64, 2*tab.T)
			for b := range 2 {
				for u, l := range tab.Level {
					atTarget[b*tab.T+u] = tc.pi[l] / count[l]
				}
			}
			for _, c := range []struct {
				name  string
				theta []float64
				B     int
			}{{"skewed", skewed, 4}, {"at target", atTarget, 2}} {
				got := float64(m.levelPrior(tensor.NewTape(), tensor.FromData(float32s(c.theta), c.B, tab.T)).Data[0])
				w := want(c.theta, c.B)
				if math.Abs(got-w) > 1e-5 {
					t.Errorf("%s: level prior %g, want %g", c.name, got, w)
				}
				if c.name == "at target" && math.Abs(w) > 1e-9 {
					t.Errorf("reference %g at the target, want 0", w)
				}
			}
		})
	}
}

// float32s rounds xs to float32.
func float32s(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, v := range xs {
		out[i] = float32(v)
	}
	return out
}
