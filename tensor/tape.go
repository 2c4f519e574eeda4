package tensor

// Tape records the ops of one forward pass so that Backward can run them in
// reverse. Outputs are carved from an arena that is reused after Reset, so a
// training step that repeats the same ops in the same order allocates nothing
// once warm.
type Tape struct {
	// NoGrad turns recording off (inference): outputs carry no gradient and
	// Backward has nothing to do.
	NoGrad bool

	nodes []node
	arena []*Tensor // arena[cur:] are free for reuse
	cur   int
	views []*Tensor // Reshape results: share their input's buffers
	vcur  int
	ints  intArena // offsets of packed ops, valid until Reset
	// unzeroed holds the gradients allocated since the last backward pass
	// or Reset, which the next backward pass zeroes before it starts
	// (zeroGrads).
	unzeroed [][]float32
	segs     [][]float32      // zeroGrads' segments, storage kept across steps
	zeroFn   func(lo, hi int) // zeroSegs bound to the tape once (a closure a step would allocate)
}

// intArena hands out int slices that stay valid until reset, from blocks
// kept across resets, so a repeated step allocates none once warm.
type intArena struct {
	blocks [][]int
	cur    int // block being carved
	used   int // ints used of blocks[cur]
}

// take returns n zeroed ints.
func (a *intArena) take(n int) []int {
	for a.cur < len(a.blocks) && a.used+n > len(a.blocks[a.cur]) {
		a.cur++
		a.used = 0
	}
	if a.cur == len(a.blocks) {
		a.blocks = append(a.blocks, make([]int, max(n, 4096)))
	}
	s := a.blocks[a.cur][a.used : a.used+n : a.used+n]
	a.used += n
	clear(s)
	return s
}

func (a *intArena) reset() { a.cur, a.used = 0, 0 }

// node is one recorded op: backward reads out.Grad and accumulates into the
// inputs' Grad.
//
// Ops of this package store a plain function pointer bw plus their operands
// in the node's fields instead of a closure: a top-level function value does
// not allocate, a capturing closure does, and a training step records
// hundreds of ops. Ops from other packages use Record and a closure (fn).
type node struct {
	out  *Tensor
	fn   func()      // closure recorded by Record
	bw   func(*node) // in-package backward; reads the fields below
	a    *Tensor     // first input
	b    *Tensor     // second input
	c    *Tensor     // third input
	aux  *Tensor     // saved intermediate (arena, no grad)
	aux2 *Tensor     // per-worker scratch or partial sums
	i    [4]int      // integer arguments (axis, heads, …)
	f    [2]float32  // float arguments (scale, bounds, …)
	ix   []int32     // indices (Gather, CrossEntropy)
	m    []bool      // masks (Softmax, Attention)
	seg  []int       // sequence offsets (packed attention, Interleave)
	xs   []*Tensor   // variadic inputs (Concat); reused storage
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{} }

// Reset forgets the recorded ops and returns every arena tensor for reuse.
// Tensors produced since the last Reset become invalid.
func (tp *Tape) Reset() {
	for i := range tp.nodes {
		n := &tp.nodes[i]
		xs := n.xs[:0]
		clear(n.xs)
		*n = node{xs: xs, seg: n.seg[:0]} // drop references, keep the Concat and offset slices' storage
	}
	tp.nodes = tp.nodes[:0]
	tp.cur = 0
	for _, v := range tp.views[:tp.vcur] {
		v.Data, v.Grad = nil, nil // do not keep old buffers alive
	}
	tp.vcur = 0
	tp.ints.reset()
	clear(tp.unzeroed)
	tp.unzeroed = tp.unzeroed[:0]
}

// Alloc returns a zeroed arena tensor of the given shape. It carries a
// gradient buffer when grad is true and the tape is recording, which reads
// as zero from the start of the backward pass (Backward zeroes it then).
func (tp *Tape) Alloc(grad bool, shape ...int) *Tensor {
	t := tp.alloc(grad, shape...)
	clear(t.Data)
	return t
}

// alloc is Alloc without zeroing Data, for ops that overwrite every output
// element: clearing a (64·128, 1024) activation is a full memory pass.
func (tp *Tape) alloc(grad bool, shape ...int) *Tensor {
	n := checkShape("Alloc", shape)
	var t *Tensor
	if tp.cur < len(tp.arena) {
		t = tp.arena[tp.cur]
	} else {
		t = &Tensor{}
		tp.arena = append(tp.arena, t)
	}
	tp.cur++
	t.Shape = append(t.Shape[:0], shape...)
	t.Name = ""
	if cap(t.Data) < n {
		t.Data = make([]float32, n)
	} else {
		t.Data = t.Data[:n]
	}
	if grad && !tp.NoGrad {
		if cap(t.gradBuf) < n {
			t.gradBuf = make([]float32, n)
		}
		t.Grad = t.gradBuf[:n]
		tp.unzeroed = append(tp.unzeroed, t.Grad)
	} else {
		t.Grad = nil // keep gradBuf for the next reuse
	}
	return t
}

// AnyGrad reports whether any input requires a gradient (so the output must).
func AnyGrad(inputs ...*Tensor) bool {
	for _, x := range inputs {
		if x != nil && x.Grad != nil {
			return true
		}
	}
	return false
}

// anyGrad2 is AnyGrad for two inputs without the variadic slice.
func anyGrad2(a, b *Tensor) bool {
	return (a != nil && a.Grad != nil) || (b != nil && b.Grad != nil)
}

// Record appends an op whose backward closure reads out.Grad and accumulates
// (+=) into the gradients of the op's inputs that have one. Ops outside this
// package (the Lorentz maps, fused losses) extend the tape this way. Nothing
// is recorded when out has no gradient.
func (tp *Tape) Record(out *Tensor, backward func()) {
	if tp.NoGrad || out.Grad == nil {
		return
	}
	tp.nodes = append(tp.nodes, node{out: out, fn: backward})
}

// push records an in-package op and returns its node for the caller to fill
// in, or nil when nothing needs recording.
func (tp *Tape) push(out *Tensor, bw func(*node)) *node {
	if tp.NoGrad || out.Grad == nil {
		return nil
	}
	if len(tp.nodes) < cap(tp.nodes) {
		tp.nodes = tp.nodes[:len(tp.nodes)+1]
		n := &tp.nodes[len(tp.nodes)-1]
		xs := n.xs[:0]
		*n = node{out: out, bw: bw, xs: xs, seg: n.seg[:0]}
		return n
	}
	tp.nodes = append(tp.nodes, node{out: out, bw: bw})
	return &tp.nodes[len(tp.nodes)-1]
}

// Backward seeds d(loss)/d(loss) = 1 and runs the recorded ops in reverse.
// loss must be a one-element tensor produced on this tape.
func (tp *Tape) Backward(loss *Tensor) {
	if len(loss.Data) != 1 {
		panic("tensor: Backward: loss " + loss.String() + " is not a scalar")
	}
	if loss.Grad == nil {
		return
	}
	tp.zeroGrads()
	loss.Grad[0] += 1
	tp.runBackward()
}

// BackwardWith seeds out's gradient with seed (added to out.Grad) and runs the
// recorded ops in reverse. It lets tests and fused losses start backward from
// a non-scalar output: the result equals Backward of sum(seed ⊙ out).
func (tp *Tape) BackwardWith(out *Tensor, seed []float32) {
	if len(seed) != len(out.Data) {
		panic("tensor: BackwardWith: seed length differs from " + out.String())
	}
	if out.Grad == nil {
		return
	}
	tp.zeroGrads()
	for i, s := range seed {
		out.Grad[i] += s
	}
	tp.runBackward()
}

func (tp *Tape) runBackward() {
	for i := len(tp.nodes) - 1; i >= 0; i-- {
		n := &tp.nodes[i]
		if n.bw != nil {
			n.bw(n)
		} else {
			n.fn()
		}
	}
}

// zeroGrads zeroes the gradients allocated since the last backward pass
// (tp.unzeroed) in one pass spread over the cores, in segments of
// zeroGrain floats: zeroed one by one as the forward pass allocated them,
// most were too small to share, and a training step's forward pass
// cleared a few megabytes on one core while the other waited.
func (tp *Tape) zeroGrads() {
	if len(tp.unzeroed) == 0 {
		return
	}
	segs := tp.segs[:0]
	for _, g := range tp.unzeroed {
		for lo := 0; lo < len(g); lo += zeroGrain {
			segs = append(segs, g[lo:min(lo+zeroGrain, len(g))])
		}
	}
	tp.segs = segs
	if tp.zeroFn == nil {
		tp.zeroFn = tp.zeroSegs
	}
	parallelFor(len(segs), 1, zeroGrain, tp.zeroFn)
	clear(segs)
	tp.segs = segs[:0]
	clear(tp.unzeroed)
	tp.unzeroed = tp.unzeroed[:0]
}

// zeroSegs zeroes zeroGrads' segments lo..hi.
func (tp *Tape) zeroSegs(lo, hi int) {
	for _, g := range tp.segs[lo:hi] {
		clear(g)
	}
}

// zeroGrain is the floats per segment of zeroGrads.
const zeroGrain = 1 << 14

// clearAll zeroes x, spread over the cores when it is large (ZeroGrad: a
// vocabulary's embedding table is a few hundred thousand floats).
func clearAll(x []float32) {
	const grain = 1 << 15 // floats per call: 128 KB, several times a hand-off's cost
	if len(x) < 2*grain {
		clear(x) // without making the closure below, which allocates
		return
	}
	parallelFor(len(x), grain, 1, func(lo, hi int) { clear(x[lo:hi]) })
}
