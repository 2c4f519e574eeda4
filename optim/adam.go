package optim

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/tensor"
)

// Config holds Adam's hyperparameters. The learning rate is passed to each
// Step, so that a Schedule can drive it.
type Config struct {
	Beta1, Beta2 float64 // moment decay rates, in [0, 1)
	Eps          float64 // added to √v̂; > 0
	// WeightDecay is λ: AdamW subtracts lr·λ·p from decaying parameters
	// (decoupled); Adam adds λ·p to their gradient (L2, as torch.optim.Adam).
	WeightDecay float64
	// NoDecay, if set, exempts parameters by name from weight decay (biases,
	// LayerNorm gains, embeddings); see MatchNames. ExcludeFromDecay does the
	// same for one parameter at Add.
	NoDecay func(name string) bool
	// LRScale, if set, multiplies the learning rate of a parameter by name
	// (1 when nil). Large embedding-like tables whose rows each see few
	// gradient steps (a decoder's word rows) may learn faster than the
	// dense weights around them.
	LRScale func(name string) float64
}

// DefaultConfig returns β₁ = 0.9, β₂ = 0.999, ε = 1e-8 and no weight decay.
func DefaultConfig() Config { return Config{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

func (c Config) validate() error {
	ok := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !ok(c.Beta1) || c.Beta1 < 0 || c.Beta1 >= 1:
		return fmt.Errorf("optim: Beta1 = %v outside [0, 1)", c.Beta1)
	case !ok(c.Beta2) || c.Beta2 < 0 || c.Beta2 >= 1:
		return fmt.Errorf("optim: Beta2 = %v outside [0, 1)", c.Beta2)
	case !ok(c.Eps) || c.Eps <= 0:
		return fmt.Errorf("optim: Eps = %v, want > 0", c.Eps)
	case !ok(c.WeightDecay) || c.WeightDecay < 0:
		return fmt.Errorf("optim: WeightDecay = %v, want >= 0", c.WeightDecay)
	}
	return nil
}

// maxCount is where per-row update counts saturate: float32 (the checkpoint
// type) holds every integer up to it, and 1-β^t has long stopped changing.
const maxCount = 1 << 24

// slot is one parameter and its state. m and v have the parameter's length;
// t holds one update count per leading row.
type slot struct {
	name  string
	p     *tensor.Tensor
	shape []int // the shape the state was built for
	m, v  []float32
	t     []float32 // (rows): updates each row has received
	decay bool
	lr    float64 // learning-rate multiplier (Config.LRScale)
}

func (s *slot) rows() int { return s.shape[0] }

// Adam is the Adam or AdamW optimiser over a changing set of named float32
// parameters. It is not safe for concurrent use.
type Adam struct {
	cfg       Config
	decoupled bool // AdamW
	step      int64
	slots     []*slot // sorted by name, so every pass has a fixed order
	byName    map[string]*slot
	chunks    []chunk // work split for Step; nil when the slot set changed
}

// NewAdam returns Adam; a non-zero WeightDecay is L2 regularisation added to
// the gradient. It panics on invalid hyperparameters (a programmer error).
func NewAdam(cfg Config) *Adam { return newAdam(cfg, false) }

// NewAdamW returns AdamW: weight decay decoupled from the gradient
// (Loshchilov & Hutter), p ← p − lr·λ·p − lr·m̂/(√v̂+ε).
func NewAdamW(cfg Config) *Adam { return newAdam(cfg, true) }

func newAdam(cfg Config, decoupled bool) *Adam {
	if err := cfg.validate(); err != nil {
		panic(err)
	}
	return &Adam{cfg: cfg, decoupled: decoupled, byName: map[string]*slot{}}
}

// Config returns the hyperparameters.
func (o *Adam) Config() Config { return o.cfg }

// StepCount is the number of Step calls so far (the Schedule's step).
func (o *Adam) StepCount() int64 { return o.step }

// Len is the number of registered parameters.
func (o *Adam) Len() int { return len(o.slots) }

// Params returns the registered parameters in name order.
func (o *Adam) Params() []*tensor.Tensor {
	ps := make([]*tensor.Tensor, len(o.slots))
	for i, s := range o.slots {
		ps[i] = s.p
	}
	return ps
}

// ParamOption adjusts one parameter at Add.
type ParamOption struct{ apply func(*slot) }

// ExcludeFromDecay exempts the parameter from weight decay.
func ExcludeFromDecay() ParamOption { return ParamOption{func(s *slot) { s.decay = false }} }

// Add registers p with zero moments. p must have a name no other registered
// parameter has; adding the same tensor twice is a no-op.
func (o *Adam) Add(p *tensor.Tensor, opts ...ParamOption) error {
	if err := checkParam(p); err != nil {
		return err
	}
	if old, ok := o.byName[p.Name]; ok {
		if old.p == p {
			return nil
		}
		return fmt.Errorf("optim: Add %v: a different parameter named %q is registered (use Rebind to swap it in)", p, p.Name)
	}
	s := o.newSlot(p)
	for _, opt := range opts {
		opt.apply(s)
	}
	o.insert(s)
	return nil
}

func checkParam(p *tensor.Tensor) error {
	if p == nil {
		return fmt.Errorf("optim: nil parameter")
	}
	if p.Name == "" {
		return fmt.Errorf("optim: parameter %v has no name; state is keyed by name", p)
	}
	if len(p.Shape) == 0 {
		return fmt.Errorf("optim: parameter %q has rank 0", p.Name)
	}
	return nil
}

func (o *Adam) newSlot(p *tensor.Tensor) *slot {
	n := len(p.Data)
	return &slot{
		name:  p.Name,
		p:     p,
		shape: slices.Clone(p.Shape),
		m:     make([]float32, n),
		v:     make([]float32, n),
		t:     make([]float32, p.Shape[0]),
		decay: o.cfg.NoDecay == nil || !o.cfg.NoDecay(p.Name),
		lr:    o.cfg.lrScale(p.Name),
	}
}

func (c Config) lrScale(name string) float64 {
	if c.LRScale == nil {
		return 1
	}
	f := c.LRScale(name)
	if !(f >= 0) || math.IsInf(f, 0) {
		panic(fmt.Sprintf("optim: learning-rate scale %v for %q", f, name))
	}
	return f
}

func (o *Adam) insert(s *slot) {
	i, _ := slices.BinarySearchFunc(o.slots, s.name, func(a *slot, name string) int { return strings.Compare(a.name, name) })
	o.slots = slices.Insert(o.slots, i, s)
	o.byName[s.name] = s
	o.chunks = nil
}

// Remove drops the parameter named name and its state; it reports whether
// there was one.
func (o *Adam) Remove(name string) bool {
	s, ok := o.byName[name]
	if !ok {
		return false
	}
	delete(o.byName, name)
	o.slots = slices.DeleteFunc(o.slots, func(x *slot) bool { return x == s })
	o.chunks = nil
	return true
}

// Rebind swaps in a new tensor for the registered parameter of the same
// name, keeping its state; its shape must be the state's shape (after
// RemapRows, the new one).
func (o *Adam) Rebind(p *tensor.Tensor) error {
	if err := checkParam(p); err != nil {
		return err
	}
	s, ok := o.byName[p.Name]
	if !ok {
		return fmt.Errorf("optim: Rebind %v: no parameter of that name is registered", p)
	}
	if !slices.Equal(p.Shape, s.shape) {
		return fmt.Errorf("optim: Rebind %v: state has shape %v (call RemapRows first)", p, s.shape)
	}
	s.p = p
	o.chunks = nil
	return nil
}

// Sync makes params the registered set: names not registered are added
// with zero moments (weight decay from Config.NoDecay), registered names
// are rebound to the given tensors keeping their state, and registered
// names absent from params are removed. Nothing changes on error.
func (o *Adam) Sync(params []*tensor.Tensor) error {
	seen := make(map[string]bool, len(params))
	for _, p := range params {
		if err := checkParam(p); err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("optim: Sync: two parameters named %q", p.Name)
		}
		seen[p.Name] = true
		if s, ok := o.byName[p.Name]; ok && !slices.Equal(p.Shape, s.shape) {
			return fmt.Errorf("optim: Sync %v: state has shape %v (call RemapRows first)", p, s.shape)
		}
	}
	for _, s := range slices.Clone(o.slots) {
		if !seen[s.name] {
			o.Remove(s.name)
		}
	}
	for _, p := range params {
		if s, ok := o.byName[p.Name]; ok {
			s.p = p
		} else {
			o.insert(o.newSlot(p))
		}
	}
	o.chunks = nil
	return nil
}

// RemapRows reshapes the state of parameter name along its leading axis
// (topics): new row i takes the moments and update count of old row
// oldRowForNewRow[i], or starts from zero when that is -1. The trailing
// dimensions must not change. An old row may feed several new rows (a
// split topic). The registered tensor must have newShape by the next Step:
// resize it in place or Rebind a new one.
func (o *Adam) RemapRows(name string, newShape []int, oldRowForNewRow []int) error {
	s, ok := o.byName[name]
	if !ok {
		return fmt.Errorf("optim: RemapRows %q: no such parameter", name)
	}
	if len(newShape) != len(s.shape) || !slices.Equal(newShape[1:], s.shape[1:]) || newShape[0] < 0 {
		return fmt.Errorf("optim: RemapRows %q: new shape %v must differ from %v only in the first dimension", name, newShape, s.shape)
	}
	if len(oldRowForNewRow) != newShape[0] {
		return fmt.Errorf("optim: RemapRows %q: %d row indices for %d new rows", name, len(oldRowForNewRow), newShape[0])
	}
	oldRows := s.rows()
	for i, j := range oldRowForNewRow {
		if j < -1 || j >= oldRows {
			return fmt.Errorf("optim: RemapRows %q: new row %d maps to old row %d, outside -1..%d", name, i, j, oldRows-1)
		}
	}
	width := 1
	for _, d := range newShape[1:] {
		width *= d
	}
	n := newShape[0] * width
	m, v, t := make([]float32, n), make([]float32, n), make([]float32, newShape[0])
	for i, j := range oldRowForNewRow {
		if j < 0 {
			continue
		}
		copy(m[i*width:(i+1)*width], s.m[j*width:(j+1)*width])
		copy(v[i*width:(i+1)*width], s.v[j*width:(j+1)*width])
		t[i] = s.t[j]
	}
	s.m, s.v, s.t, s.shape = m, v, t, slices.Clone(newShape)
	o.chunks = nil
	return nil
}

// check panics if a parameter's shape drifted from its state's without
// RemapRows: a programmer error that would otherwise corrupt memory
// silently or index out of range deep in a worker.
func (s *slot) check() {
	if !slices.Equal(s.p.Shape, s.shape) || len(s.p.Data) != len(s.m) {
		panic(fmt.Sprintf("optim: parameter %v has changed shape; its state is %v (call RemapRows, or Remove and Add)", s.p, s.shape))
	}
	if s.p.Grad != nil && len(s.p.Grad) != len(s.p.Data) {
		panic(fmt.Sprintf("optim: parameter %v has %d gradient values for %d elements", s.p, len(s.p.Grad), len(s.p.Data)))
	}
}

// chunk is a range of one parameter's elements, the unit of parallel work.
type chunk struct {
	s      *slot
	lo, hi int
}

// chunkSize elements (256 KB of float32) amortise a hand-off many times over
// while leaving enough chunks to balance two to eight cores.
const chunkSize = 1 << 16

func (o *Adam) plan() []chunk {
	if o.chunks != nil {
		return o.chunks
	}
	cs := []chunk{}
	for _, s := range o.slots {
		for lo := 0; lo < len(s.m); lo += chunkSize {
			cs = append(cs, chunk{s, lo, min(lo+chunkSize, len(s.m))})
		}
	}
	o.chunks = cs
	return cs
}

// Step applies one Adam update with learning rate lr to every registered
// parameter whose Grad is non-nil (others, and their state, are left as
// they are), then counts the step. Gradients are read, not cleared.
func (o *Adam) Step(lr float64) {
	if math.IsNaN(lr) || math.IsInf(lr, 0) || lr < 0 {
		panic(fmt.Sprintf("optim: learning rate %v", lr))
	}
	total := 0
	for _, s := range o.slots {
		s.check()
		if s.p.Grad == nil {
			continue
		}
		// Counts first, serially: rows may straddle chunks.
		for r := range s.t {
			if s.t[r] < maxCount {
				s.t[r]++
			}
		}
		total += len(s.m)
	}
	o.step++
	chunks := o.plan()
	workers := min(runtime.GOMAXPROCS(0), total/chunkSize)
	if workers <= 1 {
		for _, c := range chunks {
			o.update(c, lr)
		}
		return
	}
	// Elements are independent, so any split gives the same bits.
	parallel.Each(len(chunks), func() func(i int) {
		return func(i int) { o.update(chunks[i], lr) }
	})
}

// update runs Adam on elements [c.lo, c.hi) of one parameter:
//
//	g ← g + λp                       (Adam with L2 only)
//	m ← β₁m + (1−β₁)g
//	v ← β₂v + (1−β₂)g²
//	p ← p − lr·λ·p                   (AdamW only)
//	p ← p − (lr/(1−β₁ᵗ)) · m / (√v/√(1−β₂ᵗ) + ε)
//
// as torch.optim.Adam(W) writes it, with t the row's update count.
func (o *Adam) update(c chunk, lr float64) {
	s := c.s
	if s.p.Grad == nil {
		return
	}
	b1, b2, eps := o.cfg.Beta1, o.cfg.Beta2, o.cfg.Eps
	lr *= s.lr
	l2, shrink := 0.0, 1.0
	if s.decay {
		if o.decoupled {
			shrink = 1 - lr*o.cfg.WeightDecay
		} else {
			l2 = o.cfg.WeightDecay
		}
	}
	p, g, m, v := s.p.Data, s.p.Grad, s.m, s.v
	width := len(s.m) / s.rows() // > 0: an empty parameter has no chunks
	lastT := float32(-1)
	var stepSize, invSqrtBC2 float64
	for i := c.lo; i < c.hi; {
		r := i / width
		end := min((r+1)*width, c.hi)
		if t := s.t[r]; t != lastT {
			lastT = t
			stepSize = lr / (1 - math.Pow(b1, float64(t)))
			invSqrtBC2 = 1 / math.Sqrt(1-math.Pow(b2, float64(t)))
		}
		k := [9]float64{l2, b1, 1 - b1, b2, 1 - b2, shrink, stepSize, invSqrtBC2, eps}
		adamRow(p[i:end], g[i:end], m[i:end], v[i:end], &k)
		i = end
	}
}

// adamRowGo is Adam's element update over one row's p, g, m and v (equal
// lengths), with k = {l2, b1, 1−b1, b2, 1−b2, shrink, stepSize,
// invSqrtBC2, eps} (see update); adamRow runs it, or on amd64 a vector
// kernel with the same operations in the same order.
func adamRowGo(p, g, m, v []float32, k *[9]float64) {
	l2, b1, c1, b2, c2, shrink, stepSize, invSqrtBC2, eps := k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8]
	// Equal-length views let the compiler drop the bounds checks.
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for j := range p {
		pj := float64(p[j])
		gj := float64(g[j]) + l2*pj
		mj := b1*float64(m[j]) + c1*gj
		vj := b2*float64(v[j]) + c2*gj*gj
		pj = pj*shrink - stepSize*mj/(math.Sqrt(vj)*invSqrtBC2+eps)
		m[j], v[j], p[j] = float32(mj), float32(vj), float32(pj)
	}
}
