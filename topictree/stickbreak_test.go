package topictree

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// refDistributions computes π, δ and θ for one document straight from the
// paper's definitions, walking the tree through its accessors (not the
// tables): π(p) is the product along p of σ_c Π_{left s}(1−σ_s) (the last
// child taking Π_{left s}(1−σ_s)); δ^{(H)} is the level stick of length H;
// θ_t = Σ_{p∋t} π(p) δ^{(H_p)}(level t). Results are keyed by leaf id (π, δ)
// and topic id (θ). sigT is indexed by dense row.
func refDistributions(tr *Tree, sigT, sigL []float64) (pi map[int]float64, delta map[int][]float64, theta map[int]float64) {
	pi, delta, theta = map[int]float64{}, map[int][]float64{}, map[int]float64{}
	condOf := func(id int) float64 {
		par := tr.Parent(id)
		if par < 0 {
			return 1
		}
		sibs := tr.Children(par)
		p := 1.0
		for k, s := range sibs {
			if s == id {
				if k == len(sibs)-1 {
					return p
				}
				return sigT[tr.Row(id)] * p
			}
			p *= 1 - sigT[tr.Row(s)]
		}
		panic("not a child")
	}
	levelStick := func(H int) []float64 {
		d := make([]float64, H)
		for h := range H {
			d[h] = 1
			for k := range h {
				d[h] *= 1 - sigL[k]
			}
			if h < H-1 {
				d[h] *= sigL[h]
			}
		}
		return d
	}
	var walk func(id int, path []int, prob float64)
	walk = func(id int, path []int, prob float64) {
		path = append(path, id)
		prob *= condOf(id)
		if tr.IsLeaf(id) {
			d := levelStick(len(path))
			pi[id], delta[id] = prob, d
			for h, t := range path {
				theta[t] += prob * d[h]
			}
			return
		}
		for _, c := range tr.Children(id) {
			walk(c, path, prob)
		}
	}
	walk(tr.Root(), nil, 1)
	return pi, delta, theta
}

// testTrees are the trees the op is checked on: balanced, unbalanced (leaves
// at different depths), parents with one child, a chain, the root alone.
func testTrees(tb testing.TB) map[string]*Tree {
	d13, _ := New(3, 3)
	d40, _ := New(4, 3)
	root, _ := New(1, 1)
	rng := rand.New(rand.NewPCG(7, 0))
	return map[string]*Tree{
		"default13":  d13,
		"depth4x3":   d40,
		"handDrawn":  handDrawn(tb),
		"rootAlone":  root,
		"onlyChild":  build(tb, 0),
		"chain":      build(tb, 0, 1, 2, 3),
		"broom":      build(tb, 0, 0, 1, 1, 1, 4, 6),
		"random25":   randomTree(tb, rng, 25),
		"random31":   randomTree(tb, rng, 31),
		"wideFlat":   build(tb, 0, 0, 0, 0, 0, 0, 0),
		"leftHeavy":  build(tb, 0, 0, 1, 3, 4, 5),
		"rightHeavy": build(tb, 0, 0, 2, 3, 4, 5),
	}
}

func randSigmas(rng *rand.Rand, n int, lo, hi float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = lo + (hi-lo)*rng.Float64()
	}
	return s
}

// TestKernelMatchesDefinition compares the O(T) kernel with the path-by-path
// definition.
func TestKernelMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	for name, tr := range testTrees(t) {
		tab := tr.Tables()
		H := tab.Depth + 1
		k := newKernel(tab, H)
		theta := make([]float64, tab.T)
		for range 5 {
			sigT := randSigmas(rng, tab.T, 0.01, 0.99)
			sigL := randSigmas(rng, H, 0.01, 0.99)
			k.forward(sigT, sigL, theta)
			_, _, ref := refDistributions(tr, sigT, sigL)
			for r, id := range tab.ID {
				if d := math.Abs(theta[r] - ref[id]); d > 1e-14 {
					t.Errorf("%s: θ[topic %d] = %v, definition %v", name, id, theta[r], ref[id])
				}
			}
		}
	}
}

// TestSumsToOne: θ, π and δ each sum to one per document, on every test tree,
// for σ anywhere in [0, 1] including the ends and the Fermi-Dirac range
// (0, 1/2].
func TestSumsToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	ranges := []struct {
		name   string
		lo, hi float64
	}{
		{"fermiDirac", 1e-6, 0.5},
		{"unit", 0, 1},
		{"tiny", 0, 1e-30},
		{"half", 0.5, 0.5},
		{"one", 1, 1},
	}
	for name, tr := range testTrees(t) {
		tab := tr.Tables()
		for _, rg := range ranges {
			const B = 4
			H := tab.Depth + 2
			sT := tensor.New(B, tab.T)
			sL := tensor.New(B, H)
			for i, v := range randSigmas(rng, B*tab.T, rg.lo, rg.hi) {
				sT.Data[i] = float32(v)
			}
			for i, v := range randSigmas(rng, B*H, rg.lo, rg.hi) {
				sL.Data[i] = float32(v)
			}
			tp := tensor.NewTape()
			theta, pi, delta := StickBreak(tp, tab, sT, sL)
			check := func(what string, rows, cols int, data []float32) {
				for i := range rows {
					sum := 0.0
					for _, v := range data[i*cols : (i+1)*cols] {
						if v < 0 || math.IsNaN(float64(v)) {
							t.Errorf("%s/%s: %s row %d has %v", name, rg.name, what, i, v)
						}
						sum += float64(v)
					}
					if math.Abs(sum-1) > 1e-6 {
						t.Errorf("%s/%s: %s row %d sums to %v", name, rg.name, what, i, sum)
					}
				}
			}
			check("θ", B, tab.T, theta.Data)
			check("π", B, tab.P, pi.Data)
			check("δ", B*tab.P, tab.Depth, delta.Data)
		}
	}
}

// TestPiDeltaMatchDefinition checks the inspection outputs against the
// definition, including δ's zeros beyond each path's length.
func TestPiDeltaMatchDefinition(t *testing.T) {
	tr := handDrawn(t)
	tab := tr.Tables()
	rng := rand.New(rand.NewPCG(5, 0))
	const B = 3
	sT, sL := tensor.New(B, tab.T), tensor.New(B, tab.Depth)
	for i := range sT.Data {
		sT.Data[i] = float32(rng.Float64())
	}
	for i := range sL.Data {
		sL.Data[i] = float32(rng.Float64())
	}
	_, pi, delta := StickBreak(tensor.NewTape(), tab, sT, sL)
	for b := range B {
		sigT := make([]float64, tab.T)
		loadRow(sigT, sT.Data[b*tab.T:(b+1)*tab.T])
		sigL := make([]float64, tab.Depth)
		loadRow(sigL, sL.Data[b*tab.Depth:(b+1)*tab.Depth])
		refPi, refDelta, _ := refDistributions(tr, sigT, sigL)
		for p, leaf := range tab.Leaf {
			id := tab.ID[leaf]
			if d := math.Abs(float64(pi.Data[b*tab.P+p]) - refPi[id]); d > 1e-6 {
				t.Errorf("doc %d path %d: π %v, want %v", b, p, pi.Data[b*tab.P+p], refPi[id])
			}
			for h := range tab.Depth {
				want := 0.0
				if h < len(refDelta[id]) {
					want = refDelta[id][h]
				}
				got := float64(delta.Data[(b*tab.P+p)*tab.Depth+h])
				if math.Abs(got-want) > 1e-6 {
					t.Errorf("doc %d path %d level %d: δ %v, want %v", b, p, h, got, want)
				}
			}
		}
	}
}

// TestKernelGradient checks the analytic backward against central finite
// differences in float64 on every test tree: loss = Σ_t w_t θ_t with random w.
func TestKernelGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	const eps = 1e-6
	for name, tr := range testTrees(t) {
		tab := tr.Tables()
		H := tab.Depth + 1 // one unused level column: its gradient must be 0
		k := newKernel(tab, H)
		theta := make([]float64, tab.T)
		loss := func(sigT, sigL, w []float64) float64 {
			k.forward(sigT, sigL, theta)
			s := 0.0
			for i, v := range theta {
				s += w[i] * v
			}
			return s
		}
		for range 3 {
			sigT := randSigmas(rng, tab.T, 0.05, 0.95)
			sigL := randSigmas(rng, H, 0.05, 0.95)
			w := randSigmas(rng, tab.T, -1, 1)
			gT, gL := make([]float64, tab.T), make([]float64, H)
			k.forward(sigT, sigL, theta)
			k.backward(sigT, sigL, w, gT, gL)
			maxErr := 0.0
			fd := func(x []float64, i int) float64 {
				old := x[i]
				x[i] = old + eps
				up := loss(sigT, sigL, w)
				x[i] = old - eps
				dn := loss(sigT, sigL, w)
				x[i] = old
				return (up - dn) / (2 * eps)
			}
			for i := range sigT {
				num := fd(sigT, i)
				maxErr = max(maxErr, math.Abs(num-gT[i]))
				if math.Abs(num-gT[i]) > 1e-8*(1+math.Abs(num)) {
					t.Errorf("%s: ∂/∂σ_topic[%d] analytic %v, numeric %v", name, i, gT[i], num)
				}
			}
			for i := range sigL {
				num := fd(sigL, i)
				maxErr = max(maxErr, math.Abs(num-gL[i]))
				if math.Abs(num-gL[i]) > 1e-8*(1+math.Abs(num)) {
					t.Errorf("%s: ∂/∂σ_level[%d] analytic %v, numeric %v", name, i, gL[i], num)
				}
			}
			// Unused inputs get exactly zero: the root's σ, last children's σ,
			// the deepest level's and the extra level's λ.
			for r := range tab.T {
				if tab.IsLast[r] && gT[r] != 0 {
					t.Errorf("%s: row %d is a last child (or root) but has gradient %v", name, r, gT[r])
				}
			}
			for h := tab.Depth - 1; h < H; h++ {
				if gL[h] != 0 {
					t.Errorf("%s: level %d (≥ depth−1) has gradient %v", name, h, gL[h])
				}
			}
			t.Logf("%s: max |analytic − numeric| = %.2g", name, maxErr)
		}
	}
}

// TestTapeGradient runs the op on the tape with float32 parameters and checks
// the accumulated gradients against the float64 kernel and against finite
// differences of the float64 kernel, and that gradients accumulate (+=).
func TestTapeGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 0))
	for name, tr := range testTrees(t) {
		tab := tr.Tables()
		const B = 3
		H := tab.Depth + 1
		sT := tensor.Param("sigma_topic", B, tab.T)
		sL := tensor.Param("sigma_level", B, H)
		for i := range sT.Data {
			sT.Data[i] = float32(0.01 + 0.49*rng.Float64())
		}
		for i := range sL.Data {
			sL.Data[i] = float32(0.01 + 0.49*rng.Float64())
		}
		seed := make([]float32, B*tab.T)
		for i := range seed {
			seed[i] = float32(rng.Float64()*2 - 1)
		}
		// Pre-existing gradient: the op must add to it.
		for i := range sT.Grad {
			sT.Grad[i] = 0.25
		}
		tp := tensor.NewTape()
		theta, _, _ := StickBreak(tp, tab, sT, sL)
		tp.BackwardWith(theta, seed)

		k := newKernel(tab, H)
		th := make([]float64, tab.T)
		for b := range B {
			sigT, sigL, w := make([]float64, tab.T), make([]float64, H), make([]float64, tab.T)
			loadRow(sigT, sT.Data[b*tab.T:(b+1)*tab.T])
			loadRow(sigL, sL.Data[b*H:(b+1)*H])
			loadRow(w, seed[b*tab.T:(b+1)*tab.T])
			k.forward(sigT, sigL, th)
			for i, v := range th {
				if d := math.Abs(float64(theta.Data[b*tab.T+i]) - v); d > 1e-7 {
					t.Errorf("%s: θ[%d,%d] = %v, float64 %v", name, b, i, theta.Data[b*tab.T+i], v)
				}
			}
			gT, gL := make([]float64, tab.T), make([]float64, H)
			k.backward(sigT, sigL, w, gT, gL)
			for i := range gT {
				if d := math.Abs(float64(sT.Grad[b*tab.T+i]) - 0.25 - gT[i]); d > 1e-5 {
					t.Errorf("%s: σ_topic grad [%d,%d] = %v − 0.25, want %v", name, b, i, sT.Grad[b*tab.T+i], gT[i])
				}
			}
			for i := range gL {
				if d := math.Abs(float64(sL.Grad[b*H+i]) - gL[i]); d > 1e-5 {
					t.Errorf("%s: σ_level grad [%d,%d] = %v, want %v", name, b, i, sL.Grad[b*H+i], gL[i])
				}
			}
		}
	}
}

func TestNoGradTape(t *testing.T) {
	tab := handDrawn(t).Tables()
	sT := tensor.Param("s", 2, tab.T)
	sL := tensor.Param("l", 2, tab.Depth)
	for i := range sT.Data {
		sT.Data[i] = 0.3
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	theta, _, _ := StickBreak(tp, tab, sT, sL)
	if theta.Grad != nil {
		t.Errorf("θ has a gradient on a NoGrad tape")
	}
	// Constant inputs: θ without gradient.
	theta, _, _ = StickBreak(tensor.NewTape(), tab, tensor.New(2, tab.T), tensor.New(2, tab.Depth))
	if theta.Grad != nil {
		t.Errorf("θ has a gradient although no input does")
	}
}

func TestStickBreakShapePanics(t *testing.T) {
	tab := handDrawn(t).Tables()
	for _, tc := range []struct {
		name   string
		sT, sL *tensor.Tensor
	}{
		{"topicCols", tensor.New(2, tab.T+1), tensor.New(2, tab.Depth)},
		{"levelTooNarrow", tensor.New(2, tab.T), tensor.New(2, tab.Depth-1)},
		{"batchMismatch", tensor.New(2, tab.T), tensor.New(3, tab.Depth)},
		{"rank3", tensor.New(2, 1, tab.T), tensor.New(2, tab.Depth)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			StickBreak(tensor.NewTape(), tab, tc.sT, tc.sL)
		}()
	}
}

// TestThetaMatchesStickBreak: the training variant gives the same θ and
// gradients as the full op.
func TestThetaMatchesStickBreak(t *testing.T) {
	tab := handDrawn(t).Tables()
	rng := rand.New(rand.NewPCG(29, 0))
	mk := func() (*tensor.Tensor, *tensor.Tensor) {
		sT, sL := tensor.Param("t", 2, tab.T), tensor.Param("l", 2, tab.Depth)
		for i := range sT.Data {
			sT.Data[i] = float32(rng.Float64() * 0.5)
		}
		for i := range sL.Data {
			sL.Data[i] = float32(rng.Float64() * 0.5)
		}
		return sT, sL
	}
	sT1, sL1 := mk()
	sT2, sL2 := tensor.Param("t", 2, tab.T), tensor.Param("l", 2, tab.Depth)
	copy(sT2.Data, sT1.Data)
	copy(sL2.Data, sL1.Data)
	seed := make([]float32, 2*tab.T)
	for i := range seed {
		seed[i] = float32(i%5) - 2
	}
	tp1, tp2 := tensor.NewTape(), tensor.NewTape()
	th1, _, _ := StickBreak(tp1, tab, sT1, sL1)
	th2 := Theta(tp2, tab, sT2, sL2)
	tp1.BackwardWith(th1, seed)
	tp2.BackwardWith(th2, seed)
	for i := range th1.Data {
		if th1.Data[i] != th2.Data[i] {
			t.Fatalf("θ differs at %d", i)
		}
	}
	for i := range sT1.Grad {
		if sT1.Grad[i] != sT2.Grad[i] {
			t.Fatalf("σ_topic gradient differs at %d", i)
		}
	}
	for i := range sL1.Grad {
		if sL1.Grad[i] != sL2.Grad[i] {
			t.Fatalf("σ_level gradient differs at %d", i)
		}
	}
}

func benchmarkStickBreak(b *testing.B, depth, branching int, inspect bool) {
	tr, _ := New(depth, branching)
	tab := tr.Tables()
	const B = 256
	rng := rand.New(rand.NewPCG(1, 0))
	sT := tensor.Param("sigma_topic", B, tab.T)
	sL := tensor.Param("sigma_level", B, tab.Depth)
	for i := range sT.Data {
		sT.Data[i] = float32(0.5 * rng.Float64())
	}
	for i := range sL.Data {
		sL.Data[i] = float32(0.5 * rng.Float64())
	}
	seed := make([]float32, B*tab.T)
	for i := range seed {
		seed[i] = float32(rng.Float64())
	}
	tp := tensor.NewTape()
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		var theta *tensor.Tensor
		if inspect {
			theta, _, _ = StickBreak(tp, tab, sT, sL)
		} else {
			theta = Theta(tp, tab, sT, sL)
		}
		tp.BackwardWith(theta, seed)
	}
}

func BenchmarkStickBreak(b *testing.B) {
	for _, c := range [][2]int{{3, 3}, {4, 3}} {
		tr, _ := New(c[0], c[1])
		b.Run(fmt.Sprintf("B=256/T=%d", tr.Len()), func(b *testing.B) { benchmarkStickBreak(b, c[0], c[1], true) })
	}
}

// BenchmarkTheta is the training path (no π, δ outputs).
func BenchmarkTheta(b *testing.B) {
	for _, c := range [][2]int{{3, 3}, {4, 3}} {
		tr, _ := New(c[0], c[1])
		b.Run(fmt.Sprintf("B=256/T=%d", tr.Len()), func(b *testing.B) { benchmarkStickBreak(b, c[0], c[1], false) })
	}
}
