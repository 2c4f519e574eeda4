package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// sgd is a tiny in-test optimiser: p -= lr·g, then clears g.
func sgd(ps []*tensor.Tensor, lr float32) {
	for _, p := range ps {
		for i, g := range p.Grad {
			p.Data[i] -= lr * g
		}
		p.ZeroGrad()
	}
}

// adam is a tiny in-test Adam (β1 0.9, β2 0.999) so the transformer test
// does not depend on package optim.
type adam struct {
	m, v map[*tensor.Tensor][]float32
	t    int
}

func (a *adam) step(ps []*tensor.Tensor, lr float64) {
	if a.m == nil {
		a.m, a.v = map[*tensor.Tensor][]float32{}, map[*tensor.Tensor][]float32{}
	}
	a.t++
	c1, c2 := 1-math.Pow(0.9, float64(a.t)), 1-math.Pow(0.999, float64(a.t))
	for _, p := range ps {
		m, v := a.m[p], a.v[p]
		if m == nil {
			m, v = make([]float32, len(p.Data)), make([]float32, len(p.Data))
			a.m[p], a.v[p] = m, v
		}
		for i, g := range p.Grad {
			m[i] = 0.9*m[i] + 0.1*g
			v[i] = 0.999*v[i] + 0.001*g*g
			p.Data[i] -= float32(lr * float64(m[i]) / c1 / (math.Sqrt(float64(v[i])/c2) + 1e-8))
		}
		p.ZeroGrad()
	}
}

func TestMLPLearnsXOR(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	fc1 := NewLinear("fc1", 2, 8, true, rng)
	fc2 := NewLinear("fc2", 8, 2, true, rng)
	ps := append(fc1.Params(), fc2.Params()...)
	x := tensor.FromData([]float32{0, 0, 0, 1, 1, 0, 1, 1}, 4, 2)
	y := []int32{0, 1, 1, 0}
	tp := tensor.NewTape()
	var loss float32
	for range 2000 {
		tp.Reset()
		l := tp.CrossEntropy(fc2.Forward(tp, tp.Tanh(fc1.Forward(tp, x))), y)
		tp.Backward(l)
		loss = l.Data[0]
		sgd(ps, 0.5)
	}
	tp = &tensor.Tape{NoGrad: true}
	logits := fc2.Forward(tp, tp.Tanh(fc1.Forward(tp, x)))
	for i, want := range y {
		r := logits.Row(i)
		if (r[1] > r[0]) != (want == 1) {
			t.Errorf("XOR row %d: logits %v, want class %d", i, r, want)
		}
	}
	if loss > 0.05 {
		t.Errorf("XOR loss %v after training, want < 0.05", loss)
	}
}

// TestTransformerOverfitsReversal trains one transformer layer to output each
// sequence reversed. Keys/values are [a learned prefix row, the tokens], the
// shape of GraphFormers-style asymmetric attention, and some sequences are
// padded (masked keys, ignored targets). Reversal needs attention from
// position i to position T-1-i, so the test fails if attention, positions or
// masking are broken.
func TestTransformerOverfitsReversal(t *testing.T) {
	const (
		vocab, T, C, H, n = 7, 5, 16, 2, 12
		pad               = vocab - 1 // token id for padding
	)
	rng := rand.New(rand.NewPCG(7, 0))
	tok := NewEmbedding("tok", vocab, C, rng)
	pos := NewEmbedding("pos", T, C, rng)
	prefix := tensor.Param("prefix", 1, 1, C)
	layer := NewTransformerLayer("layer0", C, H, 4*C, rng)
	out := NewLinear("out", C, vocab, true, rng)
	ps := append(append(append(append(tok.Params(), pos.Params()...), prefix), layer.Params()...), out.Params()...)

	ids := make([]int32, n*T)
	targets := make([]int32, n*T)
	posIDs := make([]int32, n*T)
	mask := make([]bool, n*(T+1))
	for s := range n {
		length := T
		if s%3 == 0 {
			length = T - 1 // last token is padding
		}
		mask[s*(T+1)] = true // the prefix row
		for i := range T {
			posIDs[s*T+i] = int32(i)
			if i < length {
				ids[s*T+i] = int32(rng.IntN(vocab - 1))
				mask[s*(T+1)+1+i] = true
			} else {
				ids[s*T+i] = pad
			}
		}
		for i := range T {
			if i < length {
				targets[s*T+i] = ids[s*T+length-1-i]
			} else {
				targets[s*T+i] = -1
			}
		}
	}
	tp := tensor.NewTape()
	forward := func(tp *tensor.Tape) *tensor.Tensor {
		x := tp.Add(tok.Forward(tp, ids), pos.Forward(tp, posIDs))
		x = tp.Reshape(x, n, T, C)
		// The learned prefix row, broadcast to every sequence by gathering
		// row 0 n times (gradients of the copies add up).
		pre := tp.Reshape(tp.Gather(tp.Reshape(prefix, 1, C), make([]int32, n)), n, 1, C)
		kv := PrependRows(tp, pre, x)
		h := layer.Forward(tp, x, kv, mask)
		return out.Forward(tp, tp.Reshape(h, n*T, C))
	}
	var opt adam
	var loss float32
	for range 300 {
		tp.Reset()
		l := tp.CrossEntropy(forward(tp), targets)
		tp.Backward(l)
		loss = l.Data[0]
		opt.step(ps, 0.01)
	}
	logits := forward(&tensor.Tape{NoGrad: true})
	wrong := 0
	for i, want := range targets {
		if want < 0 {
			continue
		}
		r := logits.Row(i)
		best := 0
		for j := range r {
			if r[j] > r[best] {
				best = j
			}
		}
		if int32(best) != want {
			wrong++
		}
	}
	if wrong > 0 || loss > 0.05 {
		t.Errorf("after training: loss %v, %d of %d positions wrong", loss, wrong, len(targets))
	}
}

// TestTransformerLayerGradient checks the whole layer (asymmetric attention
// with a key mask, both layer norms, the MLP) against central differences in
// the same way as the tensor package's op checks.
func TestTransformerLayerGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	const B, T, P, C = 2, 3, 1, 4
	layer := NewTransformerLayer("l", C, 2, 8, rng)
	x := tensor.Param("x", B, T, C)
	extra := tensor.Param("extra", B, P, C)
	for _, p := range []*tensor.Tensor{x, extra} {
		for i := range p.Data {
			p.Data[i] = float32(rng.NormFloat64())
		}
	}
	mask := []bool{true, true, false, true, true, true, true, false}
	seed := make([]float32, B*T*C)
	for i := range seed {
		seed[i] = float32(rng.NormFloat64())
	}
	f := func(tp *tensor.Tape) *tensor.Tensor {
		return layer.Forward(tp, x, PrependRows(tp, extra, x), mask)
	}
	loss := func() float64 {
		y := f(&tensor.Tape{NoGrad: true})
		var l float64
		for i, v := range y.Data {
			l += float64(seed[i]) * float64(v)
		}
		return l
	}
	tp := tensor.NewTape()
	tp.BackwardWith(f(tp), seed)
	for _, p := range append(layer.Params(), x, extra) {
		for j := range p.Data {
			orig := p.Data[j]
			hp, hm := float32(float64(orig)+1e-2), float32(float64(orig)-1e-2)
			p.Data[j] = hp
			lp := loss()
			p.Data[j] = hm
			lm := loss()
			p.Data[j] = orig
			num := (lp - lm) / float64(hp-hm)
			ana := float64(p.Grad[j])
			if math.Abs(num-ana) > 3e-3+2e-2*math.Max(math.Abs(num), math.Abs(ana)) {
				t.Fatalf("%s[%d]: analytic %v, numeric %v", p.Name, j, ana, num)
			}
		}
	}
}

func TestParamNames(t *testing.T) {
	l := NewTransformerLayer("layer1", 8, 2, 16, rand.New(rand.NewPCG(1, 1)))
	seen := map[string]bool{}
	for _, p := range l.Params() {
		if seen[p.Name] {
			t.Errorf("duplicate parameter name %q", p.Name)
		}
		seen[p.Name] = true
	}
	for _, want := range []string{"layer1.attn.wq.w", "layer1.attn.wo.b", "layer1.ln1.gamma", "layer1.mlp.fc1.w", "layer1.mlp.fc2.b", "layer1.ln2.beta"} {
		if !seen[want] {
			t.Errorf("missing parameter %q", want)
		}
	}
	// 4 projection weights, 3 biases (the key projection has none: see
	// MultiHeadAttention), 2 MLP weights and biases, 2 LayerNorms × 2.
	if len(seen) != 15 || seen["layer1.attn.wk.b"] {
		t.Errorf("%d parameters (key bias present: %v), want 15 without a key bias", len(seen), seen["layer1.attn.wk.b"])
	}
}

func TestSeededInit(t *testing.T) {
	a := NewTransformerLayer("l", 8, 2, 16, rand.New(rand.NewPCG(9, 9)))
	b := NewTransformerLayer("l", 8, 2, 16, rand.New(rand.NewPCG(9, 9)))
	pa, pb := a.Params(), b.Params()
	for i := range pa {
		for j := range pa[i].Data {
			if pa[i].Data[j] != pb[i].Data[j] {
				t.Fatalf("%s differs between equal seeds", pa[i].Name)
			}
		}
	}
}

func ExampleTransformerLayer() {
	rng := rand.New(rand.NewPCG(1, 0))
	layer := NewTransformerLayer("layer1", 8, 2, 32, rng)
	tp := tensor.NewTape()
	x := tensor.New(2, 5, 8)     // (B, T, C) token states
	extra := tensor.New(2, 2, 8) // (B, P, C) e.g. node embedding and graph context
	kv := PrependRows(tp, extra, x)
	y := layer.Forward(tp, x, kv, nil)
	fmt.Println(y.Shape, len(layer.Params()))
	// Output: [2 5 8] 15
}

// TestOneQueryInference: a layer asked for one query per sequence without
// gradient (the [CLS]-only last layer at inference) takes the folded
// attention; its output must match the same layer on a recording tape,
// which projects every key row, up to float32 summation order — with
// keys that are separate rows (kv), masked keys and a sequence whose keys
// are all masked. Layers with several queries per sequence keep the
// projected path and match bit for bit.
func TestOneQueryInference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c, heads := 32, 4
	layer := NewTransformerLayer("l", c, heads, 64, rng)
	for _, p := range layer.Params() { // biases start at zero: make them count
		for i := range p.Data {
			p.Data[i] += 0.1 * float32(rng.NormFloat64())
		}
	}
	lens := []int{7, 1, 12, 3}
	kOff := []int{0}
	for _, l := range lens {
		kOff = append(kOff, kOff[len(kOff)-1]+l)
	}
	rk := kOff[len(lens)]
	kv := tensor.New(rk, c)
	for i := range kv.Data {
		kv.Data[i] = float32(rng.NormFloat64())
	}
	x := tensor.New(len(lens), c)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	mask := make([]bool, rk)
	for j := range mask {
		mask[j] = j%3 != 1
	}
	mask[kOff[1]] = false // sequence 1's only key
	run := func(noGrad bool, qOff []int, q *tensor.Tensor) []float32 {
		tp := tensor.NewTape()
		tp.NoGrad = noGrad
		return append([]float32(nil), layer.ForwardPacked(tp, q, kv, qOff, kOff, mask).Data...)
	}
	one := []int{0, 1, 2, 3, 4}
	got, want := run(true, one, x), run(false, one, x)
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*math.Max(1, math.Abs(float64(want[i]))) {
			t.Fatalf("one query per sequence: element %d = %v at inference, %v recording", i, got[i], want[i])
		}
	}
	// Two queries per sequence: the projected path on both tapes.
	two := []int{0, 2, 4, 6, 8}
	x2 := tensor.New(8, c)
	for i := range x2.Data {
		x2.Data[i] = float32(rng.NormFloat64())
	}
	if a, b := run(true, two, x2), run(false, two, x2); !slices.Equal(a, b) {
		t.Error("several queries per sequence: inference and recording differ")
	}
}
