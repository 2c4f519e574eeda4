// Package tensor holds dense row-major float32 tensors and a reverse-mode
// automatic-differentiation tape that records the ops applied to them.
//
// Legend used in shape comments across the project: N rows (documents, points),
// B batch, T tokens or topics (said where it matters), C channels (width n),
// H heads, V vocabulary.
//
// Ownership: tensors returned by a Tape's ops live in the tape's arena and are
// valid until the next Tape.Reset; parameters (Param) and tensors made with New
// are heap-owned and live as long as the caller keeps them. Reshape returns a
// view sharing its input's data and gradient.
//
// Speed: matrix products run on one of several BLAS paths (blas.go):
// OpenBLAS loaded at run time when the machine has it (no cgo), else the
// package's own packed sgemm with AVX-512 or AVX2 assembly kernels, else
// gonum's pure-Go blas32; BLASName and BLASSource report which, and
// GTFORMER_BLAS chooses. Large products and element-wise passes are split
// over the cores by the package itself; GELU and softmax
// exponentials use AVX2 assembly on amd64 (build tag purego turns it off).
// Ops record closure-free nodes and reuse arena buffers, so a repeated
// training step allocates no tensor storage once warm (a few dozen small
// closures for the parallel helper remain).
package tensor

import (
	"fmt"
	"strings"
)

// MaxDims is the largest rank a tensor may have.
const MaxDims = 4

// Tensor is a dense row-major float32 array of rank 1..MaxDims.
type Tensor struct {
	Shape []int     // e.g. (B,T,C); never empty
	Data  []float32 // len = product of Shape
	// Grad has the length of Data when the tensor takes part in backward
	// (a parameter, or the output of an op with such an input); nil otherwise.
	Grad []float32
	Name string // set for parameters; used by optimisers and safetensors

	gradBuf []float32 // arena tensors keep their gradient storage across Reset
}

// New returns a zeroed heap tensor without gradient.
func New(shape ...int) *Tensor {
	n := checkShape("New", shape)
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float32, n)}
}

// FromData wraps data (not copied) as a tensor of the given shape.
func FromData(data []float32, shape ...int) *Tensor {
	n := checkShape("FromData", shape)
	if n != len(data) {
		panic(fmt.Sprintf("tensor: FromData: %d values for shape %v", len(data), shape))
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: data}
}

// Param returns a zeroed, named tensor that accumulates a gradient.
func Param(name string, shape ...int) *Tensor {
	t := New(shape...)
	t.Name = name
	t.Grad = make([]float32, len(t.Data))
	return t
}

// RequiresGrad reports whether backward accumulates into t.
func (t *Tensor) RequiresGrad() bool { return t.Grad != nil }

// Len is the number of elements.
func (t *Tensor) Len() int { return len(t.Data) }

// Cols is the size of the last dimension.
func (t *Tensor) Cols() int { return t.Shape[len(t.Shape)-1] }

// Rows is the product of all dimensions but the last.
func (t *Tensor) Rows() int { return len(t.Data) / t.Cols() }

// Row returns row i of t viewed as (Rows, Cols); it aliases t.Data.
func (t *Tensor) Row(i int) []float32 { c := t.Cols(); return t.Data[i*c : (i+1)*c] }

// ZeroGrad clears the gradient, if any, on every core when it is large (a
// trainer clears every parameter's before each step, the vocabulary's
// embedding among them).
func (t *Tensor) ZeroGrad() { clearAll(t.Grad) }

// String gives the name and shape, for messages.
func (t *Tensor) String() string {
	s := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = fmt.Sprint(d)
	}
	name := t.Name
	if name == "" {
		name = "tensor"
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(s, ","))
}

// SameShape reports whether a and b have identical shapes.
func SameShape(a, b *Tensor) bool {
	if len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}

func checkShape(op string, shape []int) int {
	if len(shape) == 0 || len(shape) > MaxDims {
		panic(fmt.Sprintf("tensor: %s: rank %d outside 1..%d", op, len(shape), MaxDims))
	}
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("tensor: %s: negative dimension in %v", op, shape))
		}
		n *= d
	}
	return n
}
