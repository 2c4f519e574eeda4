// Package hnn holds the hyperbolic layers of the paper (section 3.1, Eqs. 6-8)
// built from tensor and lorentz ops: the hyperbolic linear map with bias added
// by parallel transport, the hyperbolic tanh, the hyperbolic RNN cell, the
// doubly-recurrent combination and the Fermi-Dirac similarity. Every layer
// takes a lorentz.Manifold, so lorentz.Euclidean{} turns it into its
// Euclidean counterpart (W·u + b, tanh) for the ablation.
//
// Points are (N, n+1) rows (see package lorentz). The paper's weights W are
// (n+1)×(n+1) matrices applied to tangent vectors at the origin, whose time
// coordinate is 0; only the n×n spatial block of W can influence the result
// (and W must keep the time coordinate 0 for the result to stay a tangent
// vector at the origin), so W is stored as that n×n block, acting on column
// vectors: u' = W·u, i.e. U' = U·Wᵀ on rows. The two are equivalent.
package hnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/tensor"
)

// uniform fills t with values from U(−a, a).
func uniform(t *tensor.Tensor, a float64, rng *rand.Rand) {
	for i := range t.Data {
		t.Data[i] = float32((2*rng.Float64() - 1) * a)
	}
}

// newWeight returns a named (n,n) weight initialised like PyTorch's RNN
// weights, U(−1/√n, 1/√n).
func newWeight(name string, n int, rng *rand.Rand) *tensor.Tensor {
	w := tensor.Param(name, n, n)
	uniform(w, 1/math.Sqrt(float64(n)), rng)
	return w
}

// Linear is the hyperbolic linear map of Eqs. (6-7):
//
//	z' = exp_o(W·log_o x),   z = exp_{z'}(PT_{o→z'}([0‖b]))
//
// (z = z' without bias). x and z are (N, n+1).
type Linear struct {
	M lorentz.Manifold
	W *tensor.Tensor // (n,n) spatial block, acting on column vectors
	B *tensor.Tensor // (n) Euclidean bias, or nil
}

// NewLinear returns a Linear of width n with parameters named name+".w" and
// name+".b", initialised from U(−1/√n, 1/√n) drawn from rng.
func NewLinear(m lorentz.Manifold, name string, n int, bias bool, rng *rand.Rand) *Linear {
	l := &Linear{M: m, W: newWeight(name+".w", n, rng)}
	if bias {
		l.B = tensor.Param(name+".b", n)
		uniform(l.B, 1/math.Sqrt(float64(n)), rng)
	}
	return l
}

// Params returns the layer's parameters.
func (l *Linear) Params() []*tensor.Tensor {
	if l.B == nil {
		return []*tensor.Tensor{l.W}
	}
	return []*tensor.Tensor{l.W, l.B}
}

// Forward maps points x (N, n+1) to points (N, n+1).
func (l *Linear) Forward(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	return l.fromTangent(tp, l.M.LogO(tp, x))
}

// fromTangent applies the map to tangent vectors at the origin u (N,n).
func (l *Linear) fromTangent(tp *tensor.Tape, u *tensor.Tensor) *tensor.Tensor {
	if n := l.W.Shape[0]; u.Cols() != n {
		panic(fmt.Sprintf("hnn: Linear %s: input width %d, want %d", l.W.Name, u.Cols(), n))
	}
	z := l.M.ExpO(tp, tp.MatMul(u, l.W, false, true)) // (N,n)·Wᵀ
	if l.B == nil {
		return z
	}
	return l.M.ExpX(tp, z, l.M.TransportO(tp, z, l.B))
}

// Tanh is the hyperbolic tanh f_tanh(x) = exp_o(tanh(log_o x)), (N,n+1) -> (N,n+1).
func Tanh(tp *tensor.Tape, m lorentz.Manifold, x *tensor.Tensor) *tensor.Tensor {
	return m.ExpO(tp, tp.Tanh(m.LogO(tp, x)))
}

// RNNCell is the hyperbolic RNN cell f_HypRNN(z_prev; W, b) =
// f_tanh(exp_{z'}(PT_{o→z'}([0‖b]))), z' = exp_o(W·log_o z_prev).
type RNNCell struct{ Lin *Linear }

// NewRNNCell returns a cell of width n with parameters name+".w", name+".b".
func NewRNNCell(m lorentz.Manifold, name string, n int, rng *rand.Rand) *RNNCell {
	return &RNNCell{Lin: NewLinear(m, name, n, true, rng)}
}

// Params returns W and b.
func (c *RNNCell) Params() []*tensor.Tensor { return c.Lin.Params() }

// Forward maps previous states (N, n+1) to next states (N, n+1).
func (c *RNNCell) Forward(tp *tensor.Tape, zPrev *tensor.Tensor) *tensor.Tensor {
	return Tanh(tp, c.Lin.M, c.Lin.Forward(tp, zPrev))
}

// DRNN is the hyperbolic doubly-recurrent network of Eq. (8): an ancestral
// cell from the parent's state, a fraternal cell from the left sibling's
// state, combined with an optional input per node (the node input of the
// original doubly-recurrent network, Alvarez-Melis & Jaakkola, 2017) as
//
//	z_t = f_tanh(exp_o(W·(log_o z_p + log_o z_s) + a_t)).
//
// It is the model's one Doubly-RNN cell: the topic tree's embeddings
// (model.Topics) and the topic start (package topicfit) both use it.
type DRNN struct {
	M                    lorentz.Manifold
	Ancestral, Fraternal *RNNCell
	W                    *tensor.Tensor // (n,n) combination weight
}

// NewDRNN returns a DRNN of width n with parameters prefix+".wp", ".bp",
// ".ws", ".bs" (the two cells) and ".w" (the combination), drawn from rng in
// that order.
func NewDRNN(m lorentz.Manifold, prefix string, n int, rng *rand.Rand) *DRNN {
	d := &DRNN{M: m}
	d.Ancestral = &RNNCell{Lin: &Linear{M: m, W: newWeight(prefix+".wp", n, rng), B: tensor.Param(prefix+".bp", n)}}
	uniform(d.Ancestral.Lin.B, 1/math.Sqrt(float64(n)), rng)
	d.Fraternal = &RNNCell{Lin: &Linear{M: m, W: newWeight(prefix+".ws", n, rng), B: tensor.Param(prefix+".bs", n)}}
	uniform(d.Fraternal.Lin.B, 1/math.Sqrt(float64(n)), rng)
	d.W = newWeight(prefix+".w", n, rng)
	return d
}

// Params returns wp, bp, ws, bs, w.
func (d *DRNN) Params() []*tensor.Tensor {
	return append(append(d.Ancestral.Params(), d.Fraternal.Params()...), d.W)
}

// PreCombine returns u = log_o f_anc(zParent) + log_o f_frat(zLeft), (N, n):
// what the combination's W multiplies. The topic start inverts the cell
// through it (it solves for the input a_t that puts z_t at a given point).
func (d *DRNN) PreCombine(tp *tensor.Tape, zParent, zLeft *tensor.Tensor) *tensor.Tensor {
	zp := d.Ancestral.Forward(tp, zParent)
	zs := d.Fraternal.Forward(tp, zLeft)
	return tp.Add(d.M.LogO(tp, zp), d.M.LogO(tp, zs))
}

// Forward returns the states of nodes whose parents have states zParent and
// whose left siblings have states zLeft (the origin for a first child), all
// (N, n+1), with per-node inputs input (N, n), or none when input is nil.
func (d *DRNN) Forward(tp *tensor.Tape, zParent, zLeft, input *tensor.Tensor) *tensor.Tensor {
	pre := tp.MatMul(d.PreCombine(tp, zParent, zLeft), d.W, false, true)
	if input != nil {
		pre = tp.Add(pre, input)
	}
	return Tanh(tp, d.M, d.M.ExpO(tp, pre))
}

// FermiDirac returns σ = 1/(1 + exp(t)) element-wise for squared distances t
// (any shape): the paper's similarity, FermiDiracRT with r = 0 and t = 1.
func FermiDirac(tp *tensor.Tape, t *tensor.Tensor) *tensor.Tensor {
	return FermiDiracRT(tp, t, 0, 1)
}

// FermiDiracRT returns σ = 1/(1 + exp((d² − r)/t)) element-wise for squared
// distances d² (any shape): the Fermi-Dirac decoder of hyperbolic graph
// networks (Chami et al., HGCN, 2019, with r = 2, t = 1 there) with radius r
// and temperature t > 0. σ lies in (0, 1/(1+e^{−r/t})], is 1/2 at d² = r,
// and for r = 0 never exceeds 1/2. One fused op, computed in float64 as
// e/(1+e) with e = exp(−x) for x > 0, so large distances underflow to 0
// instead of overflowing.
//
//	dσ/d(d²) = −σ(1−σ)/t
func FermiDiracRT(tp *tensor.Tape, sq *tensor.Tensor, r, t float64) *tensor.Tensor {
	if !(t > 0) || math.IsInf(t, 0) || math.IsNaN(r) || math.IsInf(r, 0) {
		panic(fmt.Sprintf("hnn: FermiDiracRT radius %v temperature %v", r, t))
	}
	y := tp.Alloc(sq.Grad != nil, sq.Shape...)
	for i, v := range sq.Data {
		x := (float64(v) - r) / t
		if x > 0 {
			e := math.Exp(-x)
			y.Data[i] = float32(e / (1 + e))
		} else {
			y.Data[i] = float32(1 / (1 + math.Exp(x)))
		}
	}
	tp.Record(y, func() {
		for i, g := range y.Grad {
			s := float64(y.Data[i])
			sq.Grad[i] += float32(-float64(g) * s * (1 - s) / t)
		}
	})
	return y
}
