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
	arena []*Tensor // arena[cursor:] are free for reuse
	cur   int
}

// node is one recorded op: backward reads out.Grad and accumulates into the
// inputs' Grad.
type node struct {
	out      *Tensor
	backward func()
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{} }

// Reset forgets the recorded ops and returns every arena tensor for reuse.
// Tensors produced since the last Reset become invalid.
func (tp *Tape) Reset() {
	clear(tp.nodes) // drop closure references
	tp.nodes = tp.nodes[:0]
	tp.cur = 0
}

// Alloc returns a zeroed arena tensor of the given shape. It carries a
// gradient buffer when grad is true and the tape is recording.
func (tp *Tape) Alloc(grad bool, shape ...int) *Tensor {
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
		clear(t.Data)
	}
	if grad && !tp.NoGrad {
		if cap(t.gradBuf) < n {
			t.gradBuf = make([]float32, n)
		}
		t.Grad = t.gradBuf[:n]
		clear(t.Grad)
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

// Record appends an op whose backward closure reads out.Grad and accumulates
// (+=) into the gradients of the op's inputs that have one. Ops outside this
// package (the Lorentz maps, fused losses) extend the tape this way. Nothing
// is recorded when out has no gradient.
func (tp *Tape) Record(out *Tensor, backward func()) {
	if tp.NoGrad || out.Grad == nil {
		return
	}
	tp.nodes = append(tp.nodes, node{out: out, backward: backward})
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
	loss.Grad[0] += 1
	for i := len(tp.nodes) - 1; i >= 0; i-- {
		tp.nodes[i].backward()
	}
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
	for i, s := range seed {
		out.Grad[i] += s
	}
	for i := len(tp.nodes) - 1; i >= 0; i-- {
		tp.nodes[i].backward()
	}
}
