// Package bench measures the compute engine: single-precision matrix product
// throughput of the active BLAS and the throughput of one transformer layer's
// training step (forward + backward), both in GFLOP/s, and their ratio — how
// much of the BLAS peak a real model step keeps.
package bench

import (
	"math/rand/v2"
	"time"

	"github.com/gtformer/gtformer/nn"
	"github.com/gtformer/gtformer/tensor"
)

// LayerConfig is the shape of the benchmarked transformer layer.
type LayerConfig struct {
	Batch, Tokens, Width, Heads, Hidden int
}

// DefaultLayer is the reference shape: batch 64 × 128 tokens, width 256,
// 4 heads, MLP 1024.
var DefaultLayer = LayerConfig{Batch: 64, Tokens: 128, Width: 256, Heads: 4, Hidden: 1024}

// StepFLOPs counts the floating-point operations of one forward + backward
// step of the layer, counting matrix products only (2·m·n·k each), as
// PyTorch's profiler and most papers do; element-wise work is not counted.
//
// Forward, with N = B·T tokens: four C×C projections 4·2NC², attention scores
// and weighted values 2·(2·B·T²·C), the MLP 2·2·N·C·Hidden. Backward needs
// two products of the same size per forward product (input and weight
// gradients; for attention dQ,dK and dP,dV), so a step is 3× forward.
func StepFLOPs(c LayerConfig) float64 {
	n := float64(c.Batch * c.Tokens)
	w := float64(c.Width)
	fwd := 4*2*n*w*w + 2*2*float64(c.Batch)*float64(c.Tokens)*float64(c.Tokens)*w + 2*2*n*w*float64(c.Hidden)
	return 3 * fwd
}

// Layer holds a layer with its input and tape, ready to step.
type Layer struct {
	Cfg   LayerConfig
	Layer *nn.TransformerLayer
	X     *tensor.Tensor
	Tape  *tensor.Tape
	seed  []float32
}

// NewLayer builds the layer with seeded weights and a random input.
func NewLayer(c LayerConfig, seed uint64) *Layer {
	rng := rand.New(rand.NewPCG(seed, 1))
	l := &Layer{Cfg: c, Layer: nn.NewTransformerLayer("layer0", c.Width, c.Heads, c.Hidden, rng), Tape: tensor.NewTape()}
	// The input takes a gradient, as inside a stack of layers, so backward
	// does every product StepFLOPs counts (including dx of the projections).
	l.X = tensor.Param("x", c.Batch, c.Tokens, c.Width)
	for i := range l.X.Data {
		l.X.Data[i] = float32(rng.NormFloat64())
	}
	l.seed = make([]float32, len(l.X.Data))
	for i := range l.seed {
		l.seed[i] = float32(rng.NormFloat64()) / float32(len(l.seed))
	}
	return l
}

// Step runs one forward and backward pass: gradients of
// sum(seed ⊙ layer(x)) into the parameters, which are zeroed first.
func (l *Layer) Step() {
	l.Tape.Reset()
	for _, p := range l.Layer.Params() {
		p.ZeroGrad()
	}
	l.X.ZeroGrad()
	y := l.Layer.Forward(l.Tape, l.X, nil, nil)
	l.Tape.BackwardWith(y, l.seed)
}

// Result is one measurement.
type Result struct {
	BLAS        string  `json:"blas"`
	SgemmGFLOPS float64 `json:"sgemm_gflops"`
	StepGFLOPS  float64 `json:"step_gflops"`
	Ratio       float64 `json:"ratio"`
}

// timeBest runs f at least minRuns times and until minTime has passed and
// returns the fastest run: the least disturbed by other load on the machine.
func timeBest(f func(), minRuns int, minTime time.Duration) time.Duration {
	best := time.Duration(1<<63 - 1)
	start := time.Now()
	for i := 0; i < minRuns || time.Since(start) < minTime; i++ {
		t0 := time.Now()
		f()
		best = min(best, time.Since(t0))
	}
	return best
}

// sgemmBatch is how many products one timed sgemm run holds: about 0.1 s at
// 200 GFLOP/s, so that a run is as exposed to other load on the machine as
// a layer step is (a single 10 ms product slips between other processes'
// time slices and would flatter the ratio's denominator).
const sgemmBatch = 10

// Sgemm measures C = A·B for n×n×n matrices through the package's BLAS and
// returns GFLOP/s (2n³ operations per product), sustained over runs of
// sgemmBatch products.
func Sgemm(n int, minRuns int, minTime time.Duration) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := tensor.New(n, n), tensor.New(n, n)
	for i := range a.Data {
		a.Data[i], b.Data[i] = rng.Float32(), rng.Float32()
	}
	tp := &tensor.Tape{NoGrad: true}
	f := func() {
		for range sgemmBatch {
			tp.Reset()
			tp.MatMul(a, b, false, false)
		}
	}
	f() // warm up (arena, worker goroutines)
	d := timeBest(f, minRuns, minTime)
	return sgemmBatch * 2 * float64(n) * float64(n) * float64(n) / d.Seconds() / 1e9
}

// Step measures the layer step and returns GFLOP/s by StepFLOPs.
func Step(c LayerConfig, minRuns int, minTime time.Duration) float64 {
	l := NewLayer(c, 1)
	l.Step() // warm up the arena
	d := timeBest(l.Step, minRuns, minTime)
	return StepFLOPs(c) / d.Seconds() / 1e9
}

// Run measures sgemm at 1024³ and the default layer step.
func Run(minRuns int, minTime time.Duration) Result {
	r := Result{BLAS: tensor.BLASName()}
	r.SgemmGFLOPS = Sgemm(1024, minRuns, minTime)
	r.StepGFLOPS = Step(DefaultLayer, minRuns, minTime)
	r.Ratio = r.StepGFLOPS / r.SgemmGFLOPS
	return r
}
