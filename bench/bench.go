// Package bench measures the compute engine: single-precision matrix product
// throughput and the throughput of one transformer layer's training step
// (forward + backward), both in GFLOP/s, and their ratio — how much of the
// BLAS peak a real model step keeps — for the BLAS path in use and, in the
// same run, for every other path this machine has (tensor.BLASPaths); and,
// on the path in use, the whole GTFormer's training step (default
// configuration, on a synthetic corpus shaped like Cora ML) in GFLOP/s and
// as a ratio to the same run's sgemm, and the rate of embedding new
// documents in documents per second.
package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/gtformer/gtformer/nn"
	"github.com/gtformer/gtformer/preset"
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

// Result is one measurement. Step and Ratio are the single layer's; the
// Model fields are the whole model's (Options.Model, preset.DefaultSettings()).
type Result struct {
	BLAS        string  `json:"blas"`        // the path in use (tensor.BLASName)
	BLASSource  string  `json:"blas_source"` // where it came from (tensor.BLASSource)
	SgemmGFLOPS float64 `json:"sgemm_gflops"`
	StepGFLOPS  float64 `json:"step_gflops"`
	Ratio       float64 `json:"ratio"` // StepGFLOPS / SgemmGFLOPS
	// OneCore: measured on one core in thread CPU time (Options.OneCore).
	OneCore bool `json:"one_core"`
	// Paths holds every available path, the one in use included, measured
	// in the same run (interleaved, so that load on the machine falls on
	// all alike).
	Paths []PathResult `json:"paths"`

	// The whole model's figures (Options.Model, preset.DefaultSettings()), on the
	// path in use; ModelStepRatio is ModelStepGFLOPS / SgemmGFLOPS.
	ModelStepDocsPerSec float64 `json:"model_step_docs_per_s"`
	ModelStepGFLOPS     float64 `json:"model_step_gflops"`
	ModelStepRatio      float64 `json:"model_step_ratio"`
	EmbedDocsPerSec     float64 `json:"embed_docs_per_s"`
}

// PathResult is one BLAS path's measurement; the ratios are to the path in
// use (Result.BLAS), so a path with SgemmRatio 0.5 multiplies at half its
// speed.
type PathResult struct {
	BLAS        string  `json:"blas"`
	SgemmGFLOPS float64 `json:"sgemm_gflops"`
	StepGFLOPS  float64 `json:"step_gflops"`
	SgemmRatio  float64 `json:"sgemm_ratio"`
	StepRatio   float64 `json:"step_ratio"`
}

// clock reads the time measurements are taken in.
type clock func() time.Duration

var wallStart = time.Now()

// wallClock is elapsed real time.
func wallClock() time.Duration { return time.Since(wallStart) }

// interleaved times run(i) for each of n variants, round-robin, at least
// minRuns rounds and until minTime has passed per variant, and returns each
// variant's fastest run by now: the least disturbed by other load on the
// machine, which alternating exposes to all variants alike.
func interleaved(n int, run func(i int), minRuns int, minTime time.Duration, now clock) []time.Duration {
	best := make([]time.Duration, n)
	for i := range best {
		best[i] = time.Duration(1<<63 - 1)
	}
	start := time.Now()
	for r := 0; r < minRuns || time.Since(start) < time.Duration(n)*minTime; r++ {
		for i := range n {
			t0 := now()
			run(i)
			best[i] = min(best[i], now()-t0)
		}
	}
	return best
}

// sgemmBatch is how many products one timed sgemm run holds: about 0.1 s at
// 200 GFLOP/s, so that a run is as exposed to other load on the machine as
// a layer step is (a single 10 ms product slips between other processes'
// time slices and would flatter the ratio's denominator).
const sgemmBatch = 10

// sgemmRun returns a function computing count products C = A·B of n×n
// matrices through the tensor package, and the operations of one.
func sgemmRun(n int) (func(count int), float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := tensor.New(n, n), tensor.New(n, n)
	for i := range a.Data {
		a.Data[i], b.Data[i] = rng.Float32(), rng.Float32()
	}
	tp := &tensor.Tape{NoGrad: true}
	return func(count int) {
		for range count {
			tp.Reset()
			tp.MatMul(a, b, false, false)
		}
	}, 2 * float64(n) * float64(n) * float64(n)
}

// Sgemm measures C = A·B for n×n×n matrices through the package's BLAS and
// returns GFLOP/s (2n³ operations per product), sustained over runs of
// sgemmBatch products.
func Sgemm(n int, minRuns int, minTime time.Duration) float64 {
	f, ops := sgemmRun(n)
	f(1) // warm up (arena, worker goroutines)
	d := interleaved(1, func(int) { f(sgemmBatch) }, minRuns, minTime, wallClock)[0]
	return sgemmBatch * ops / d.Seconds() / 1e9
}

// Step measures the layer step and returns GFLOP/s by StepFLOPs.
func Step(c LayerConfig, minRuns int, minTime time.Duration) float64 {
	l := NewLayer(c, 1)
	l.Step() // warm up the arena
	d := interleaved(1, func(int) { l.Step() }, minRuns, minTime, wallClock)[0]
	return StepFLOPs(c) / d.Seconds() / 1e9
}

// Options says what Run measures and how.
type Options struct {
	// Paths are the BLAS paths to measure (tensor.BLASPaths); empty means
	// all. The path in use is always measured, first if Paths omits it.
	Paths []string
	// Each path and measurement runs at least MinRuns times and for at
	// least MinTime; the fastest run counts.
	MinRuns int
	MinTime time.Duration
	// OneCore measures on one core (GOMAXPROCS 1, on a locked thread) in
	// the thread's CPU time rather than wall-clock time: the figures then
	// hardly depend on other load on the machine, so paths and kernels can
	// be compared on a busy machine (Linux only).
	OneCore bool
	// Model, when not nil, is the synthetic corpus on which the default
	// model's training step and embedding are measured (on the path in
	// use only; DefaultModelSetup is the one bench reports).
	Model *ModelSetup
}

// Run measures sgemm at 1024³ and the default layer step on the BLAS paths
// of o, then the default model on o.Model, and leaves the path in use as it
// found it.
func Run(o Options) (Result, error) {
	active := tensor.BLASName()
	r := Result{BLAS: active, BLASSource: tensor.BLASSource(), OneCore: o.OneCore}
	names := o.Paths
	if len(names) == 0 {
		names = tensor.BLASPaths()
	}
	if !slices.Contains(names, active) {
		names = append([]string{active}, names...)
	}
	if o.Model != nil {
		// Checked before anything is measured; modelRun's errors then come
		// from the model, and the wrapping below names the package once.
		if err := o.Model.check(); err != nil {
			return r, err
		}
	}
	defer tensor.UseBLAS(active)
	for _, name := range names { // all known before anything is measured
		if err := tensor.UseBLAS(name); err != nil {
			return r, err
		}
	}
	now := wallClock
	if o.OneCore {
		var err error
		if now, err = threadClock(); err != nil {
			return r, err
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	use := func(i int) {
		if err := tensor.UseBLAS(names[i]); err != nil {
			panic(err) // checked above
		}
	}
	f, ops := sgemmRun(1024)
	l := NewLayer(DefaultLayer, 1)
	for i := range names { // warm up every path (arena, workers, library)
		use(i)
		f(1)
		l.Step()
	}
	sg := interleaved(len(names), func(i int) { use(i); f(sgemmBatch) }, o.MinRuns, o.MinTime, now)
	st := interleaved(len(names), func(i int) { use(i); l.Step() }, o.MinRuns, o.MinTime, now)
	for i, name := range names {
		p := PathResult{BLAS: name, SgemmGFLOPS: sgemmBatch * ops / sg[i].Seconds() / 1e9, StepGFLOPS: StepFLOPs(DefaultLayer) / st[i].Seconds() / 1e9}
		if name == active {
			r.SgemmGFLOPS, r.StepGFLOPS = p.SgemmGFLOPS, p.StepGFLOPS
		}
		r.Paths = append(r.Paths, p)
	}
	r.Ratio = r.StepGFLOPS / r.SgemmGFLOPS
	for i := range r.Paths {
		r.Paths[i].SgemmRatio = r.Paths[i].SgemmGFLOPS / r.SgemmGFLOPS
		r.Paths[i].StepRatio = r.Paths[i].StepGFLOPS / r.StepGFLOPS
	}
	if o.Model == nil {
		return r, nil
	}
	if err := tensor.UseBLAS(active); err != nil {
		return r, err
	}
	m, err := modelRun(preset.DefaultSettings().Config, *o.Model, o.MinRuns, o.MinTime, now)
	if err != nil {
		return r, fmt.Errorf("bench: model benchmark: %w", err)
	}
	r.ModelStepDocsPerSec, r.ModelStepGFLOPS, r.EmbedDocsPerSec = m.StepDocsPerSec, m.StepGFLOPS, m.EmbedDocsPerS
	r.ModelStepRatio = m.StepGFLOPS / r.SgemmGFLOPS
	return r, nil
}
