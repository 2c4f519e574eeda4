package hnn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/tensor"
)

func fill(t *tensor.Tensor, vals []float64) {
	for i, v := range vals {
		t.Data[i] = float32(v)
	}
}

func maxRelErr(got []float32, want []float64) float64 {
	var scale, worst float64
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	scale = max(scale, 1)
	for i, w := range want {
		worst = max(worst, math.Abs(float64(got[i])-w)/scale)
	}
	return worst
}

// TestLorentzHNNVectors checks the layers against testvectors/lorentz.json
// with x = exp_o(v), y = exp_o(w): hyplinear_nobias = exp_o(W·log_o x),
// hyplinear adds the bias by transport and exp, hyptanh = f_tanh(x),
// fermi_dirac = 1/(1+exp(d(x,y)²)). Tolerance 2e-6 relative to
// max(1,|want|∞) (float32 storage; the float32 tanh is accurate to ~1e-7),
// plus for the biased map the sideways float32 resolution 2⁻²⁴·sinh(radius)
// of the transported bias (package lorentz documentation).
func TestLorentzHNNVectors(t *testing.T) {
	raw, err := os.ReadFile(shared.Path(t, "testvectors/lorentz.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tv struct {
		Cases []struct {
			K               float64
			N               int
			V               []float64   `json:"v"`
			W               []float64   `json:"w"`
			Mat             [][]float64 `json:"W"`
			Bias            []float64   `json:"bias"`
			FermiDirac      float64     `json:"fermi_dirac"`
			HypLinearNoBias []float64   `json:"hyplinear_nobias"`
			HypLinear       []float64   `json:"hyplinear"`
			HypTanh         []float64   `json:"hyptanh"`
		}
	}
	if err := json.Unmarshal(raw, &tv); err != nil {
		t.Fatalf("testvectors/lorentz.json: %v", err)
	}
	if len(tv.Cases) == 0 {
		t.Fatal("no cases")
	}
	for ci, cs := range tv.Cases {
		t.Run(fmt.Sprintf("%d/K=%g/n=%d", ci, cs.K, cs.N), func(t *testing.T) {
			m, n := lorentz.Hyperboloid{K: cs.K}, cs.N
			tp := tensor.NewTape()
			v, w := tensor.New(1, n), tensor.New(1, n)
			fill(v, cs.V)
			fill(w, cs.W)
			x, y := m.ExpO(tp, v), m.ExpO(tp, w)
			lin := &Linear{M: m, W: tensor.New(n, n), B: tensor.New(n)}
			for i, row := range cs.Mat {
				for j, a := range row {
					lin.W.Data[i*n+j] = float32(a)
				}
			}
			fill(lin.B, cs.Bias)
			noBias := &Linear{M: m, W: lin.W}
			zp := noBias.Forward(tp, x)
			if e := maxRelErr(zp.Data, cs.HypLinearNoBias); e > 2e-6 {
				t.Errorf("hyplinear_nobias = %v, want %v (%.3g)", zp.Data, cs.HypLinearNoBias, e)
			}
			radius := math.Sqrt(float64(sumSq(m.LogO(tp, zp).Data)) / cs.K)
			if e := maxRelErr(lin.Forward(tp, x).Data, cs.HypLinear); e > 2e-6+0x1p-24*math.Sinh(radius) {
				t.Errorf("hyplinear: error %.3g", e)
			}
			if e := maxRelErr(Tanh(tp, m, x).Data, cs.HypTanh); e > 2e-6 {
				t.Errorf("hyptanh: error %.3g", e)
			}
			fd := FermiDirac(tp, m.SqDist(tp, x, y)).Data[0]
			if e := math.Abs(float64(fd) - cs.FermiDirac); e > 2e-6*cs.FermiDirac+1e-12 {
				t.Errorf("fermi_dirac = %g, want %g", fd, cs.FermiDirac)
			}
		})
	}
}

func sumSq(x []float32) float32 {
	var s float32
	for _, v := range x {
		s += v * v
	}
	return s
}

// gradCheck compares the tape gradients of loss = Σ seed·f() with central
// differences whose loss is accumulated in float64. The layers run in float32,
// so the step is 1e-3 and the tolerance 2e-3 of the largest gradient: the ops
// themselves are checked to 1e-6 in float64 by package lorentz; this test
// checks how the layers wire them (a wrong wiring is off by O(1)).
func gradCheck(t *testing.T, name string, params []*tensor.Tensor, f func(tp *tensor.Tape) *tensor.Tensor) {
	t.Helper()
	tp := tensor.NewTape()
	out := f(tp)
	rng := rand.New(rand.NewPCG(5, uint64(out.Len())))
	seed := make([]float32, out.Len())
	for i := range seed {
		seed[i] = float32(rng.Float64()*2 - 1)
	}
	for _, p := range params {
		p.ZeroGrad()
	}
	tp.BackwardWith(out, seed)
	loss := func() float64 {
		tp := tensor.NewTape()
		tp.NoGrad = true
		o := f(tp)
		var s float64
		for i, v := range o.Data {
			s += float64(seed[i]) * float64(v)
		}
		return s
	}
	var scale float64
	for _, p := range params {
		for _, g := range p.Grad {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				t.Fatalf("%s: %s gradient not finite", name, p.Name)
			}
			scale = max(scale, math.Abs(float64(g)))
		}
	}
	const h = 1e-3
	for _, p := range params {
		for i := range p.Data {
			x := p.Data[i]
			p.Data[i] = x + h
			lp := loss()
			p.Data[i] = x - h
			lm := loss()
			p.Data[i] = x
			fd := (lp - lm) / (float64(x+h) - float64(x-h))
			if d := math.Abs(fd - float64(p.Grad[i])); d > 2e-3*(scale+1e-3) {
				t.Errorf("%s: d/d%s[%d]: tape %g, finite difference %g", name, p.Name, i, p.Grad[i], fd)
			}
		}
	}
}

// randPoints returns a (rows, n) parameter of tangent vectors at the origin,
// so that points = ExpO(param) can be differentiated.
func randTangents(name string, rows, n int, scale float64, rng *rand.Rand) *tensor.Tensor {
	p := tensor.Param(name, rows, n)
	for i := range p.Data {
		p.Data[i] = float32(rng.NormFloat64() * scale)
	}
	return p
}

func TestLorentzHNNGrad(t *testing.T) {
	for _, m := range []lorentz.Manifold{lorentz.Hyperboloid{K: 0.5}, lorentz.Hyperboloid{K: 1}, lorentz.Hyperboloid{K: 2}, lorentz.Euclidean{}} {
		for _, n := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/n=%d", m.Name(), n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(9, uint64(n)))
				const rows = 3
				v := randTangents("v", rows, n, 0.6, rng)
				vs := randTangents("vs", rows, n, 0.6, rng)
				v.Data[0] = 0 // a row at the origin
				for k := 1; k < n; k++ {
					v.Data[k] = 0
				}
				lin := NewLinear(m, "lin", n, true, rng)
				gradCheck(t, "Linear", append(lin.Params(), v), func(tp *tensor.Tape) *tensor.Tensor {
					return lin.Forward(tp, m.ExpO(tp, v))
				})
				gradCheck(t, "Tanh", []*tensor.Tensor{v}, func(tp *tensor.Tape) *tensor.Tensor {
					return Tanh(tp, m, m.ExpO(tp, v))
				})
				cell := NewRNNCell(m, "cell", n, rng)
				gradCheck(t, "RNNCell", append(cell.Params(), v), func(tp *tensor.Tape) *tensor.Tensor {
					return cell.Forward(tp, m.ExpO(tp, v))
				})
				d := NewDRNN(m, "tree.drnn", n, rng)
				gradCheck(t, "DRNN", append(d.Params(), v, vs), func(tp *tensor.Tape) *tensor.Tensor {
					return d.Forward(tp, m.ExpO(tp, v), m.ExpO(tp, vs), nil)
				})
				a := randTangents("a", rows, n, 0.3, rng)
				gradCheck(t, "DRNN with node inputs", append(d.Params(), v, vs, a), func(tp *tensor.Tape) *tensor.Tensor {
					return d.Forward(tp, m.ExpO(tp, v), m.ExpO(tp, vs), a)
				})
				gradCheck(t, "FermiDirac", []*tensor.Tensor{v, vs}, func(tp *tensor.Tape) *tensor.Tensor {
					return FermiDirac(tp, m.PairSqDist(tp, m.ExpO(tp, v), m.ExpO(tp, vs)))
				})
				gradCheck(t, "FermiDiracRT", []*tensor.Tensor{v, vs}, func(tp *tensor.Tape) *tensor.Tensor {
					return FermiDiracRT(tp, m.PairSqDist(tp, m.ExpO(tp, v), m.ExpO(tp, vs)), 1.5, 0.7)
				})
			})
		}
	}
}

// TestLorentzHNNEuclidean: with the Euclidean geometry the RNN cell is the
// ordinary tanh(W·u + b) and the DRNN combination tanh(W·(u_p + u_s)).
func TestLorentzHNNEuclidean(t *testing.T) {
	var m lorentz.Manifold = lorentz.Euclidean{}
	rng := rand.New(rand.NewPCG(1, 2))
	cell := NewRNNCell(m, "c", 2, rng)
	tp := tensor.NewTape()
	u := tensor.FromData([]float32{0.3, -0.8}, 1, 2)
	z := cell.Forward(tp, m.ExpO(tp, u))
	W, b := cell.Lin.W.Data, cell.Lin.B.Data
	for i := 0; i < 2; i++ {
		want := math.Tanh(float64(W[2*i]*u.Data[0] + W[2*i+1]*u.Data[1] + b[i]))
		if math.Abs(float64(z.Data[1+i])-want) > 1e-6 || z.Data[0] != 0 {
			t.Fatalf("Euclidean RNN cell = %v, want [0 %g …]", z.Data, want)
		}
	}
}

func TestLorentzHNNFermiDiracStable(t *testing.T) {
	tp := tensor.NewTape()
	sq := tensor.Param("sq", 5)
	copy(sq.Data, []float32{0, 1, 50, 1e4, 3e38})
	y := FermiDirac(tp, sq)
	want := []float64{0.5, 1 / (1 + math.E), math.Exp(-50) / (1 + math.Exp(-50)), 0, 0}
	for i, w := range want {
		if math.Abs(float64(y.Data[i])-w) > 1e-7*w+1e-45 {
			t.Errorf("σ(%g) = %g, want %g", sq.Data[i], y.Data[i], w)
		}
	}
	tp.BackwardWith(y, []float32{1, 1, 1, 1, 1})
	for i, g := range sq.Grad {
		if math.IsNaN(float64(g)) || g > 0 {
			t.Errorf("dσ/dt at %g = %g", sq.Data[i], g)
		}
	}
}

// TestLorentzHNNFermiDiracRT checks the decoder with radius and temperature
// against its closed form 1/(1+exp((d²−r)/t)) at hand-picked points: 1/2 at
// d² = r, the ceiling 1/(1+e^{−r/t}) at d = 0, and e.g. r = 4, t = 1,
// d² = 5: 1/(1+e) = 0.26894142.
func TestLorentzHNNFermiDiracRT(t *testing.T) {
	cases := []struct {
		r, temp float64
		sq      float32
		want    float64
	}{
		{4, 1, 4, 0.5},
		{4, 1, 0, 1 / (1 + math.Exp(-4))},
		{4, 1, 5, 1 / (1 + math.E)},
		{2, 0.5, 3, 1 / (1 + math.Exp(2))},
		{0, 1, 1, 1 / (1 + math.E)},
		{4, 1, 1e4, 0},
	}
	for _, c := range cases {
		tp := tensor.NewTape()
		sq := tensor.Param("sq", 1)
		sq.Data[0] = c.sq
		y := FermiDiracRT(tp, sq, c.r, c.temp)
		if math.Abs(float64(y.Data[0])-c.want) > 1e-7 {
			t.Errorf("r=%g t=%g d²=%g: σ = %.8f, want %.8f", c.r, c.temp, c.sq, y.Data[0], c.want)
		}
		tp.BackwardWith(y, []float32{1})
		if g, w := float64(sq.Grad[0]), -c.want*(1-c.want)/c.temp; math.Abs(g-w) > 1e-6 {
			t.Errorf("r=%g t=%g d²=%g: dσ/dd² = %g, want %g", c.r, c.temp, c.sq, g, w)
		}
	}
	for _, bad := range [][2]float64{{0, 0}, {0, -1}, {math.NaN(), 1}, {math.Inf(1), 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("FermiDiracRT(r=%g, t=%g) did not panic", bad[0], bad[1])
				}
			}()
			FermiDiracRT(tensor.NewTape(), tensor.New(1), bad[0], bad[1])
		}()
	}
}

func TestLorentzHNNParamsSeeded(t *testing.T) {
	mk := func() *DRNN { return NewDRNN(lorentz.Hyperboloid{K: 1}, "tree.drnn", 4, rand.New(rand.NewPCG(42, 0))) }
	a, b := mk(), mk()
	names := []string{"tree.drnn.wp", "tree.drnn.bp", "tree.drnn.ws", "tree.drnn.bs", "tree.drnn.w"}
	pa, pb := a.Params(), b.Params()
	if len(pa) != len(names) {
		t.Fatalf("%d params, want %d", len(pa), len(names))
	}
	for i, p := range pa {
		if p.Name != names[i] || p.Grad == nil {
			t.Errorf("param %d = %s (grad %v), want %s with gradient", i, p.Name, p.Grad != nil, names[i])
		}
		for j := range p.Data {
			if p.Data[j] != pb[i].Data[j] {
				t.Fatalf("%s differs between identically seeded builds", p.Name)
			}
			if bound := float32(0.5); p.Data[j] < -bound || p.Data[j] > bound {
				t.Fatalf("%s[%d] = %g outside U(−1/√n, 1/√n)", p.Name, j, p.Data[j])
			}
		}
	}
}
