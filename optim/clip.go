package optim

import (
	"math"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/tensor"
)

// GradNorm is the Euclidean norm of all gradients of params taken together
// (those with a nil Grad count as zero), accumulated in float64 in the order
// given.
func GradNorm(params []*tensor.Tensor) float64 {
	var ss float64
	for _, p := range params {
		for _, g := range p.Grad {
			ss += float64(g) * float64(g)
		}
	}
	return math.Sqrt(ss)
}

// ClipGradNorm scales all gradients of params by maxNorm/‖g‖ when their
// global norm ‖g‖ exceeds maxNorm, which keeps the direction of the update
// and bounds its size. It returns the norm before clipping. A non-finite
// norm (an overflow or NaN upstream) leaves the gradients alone and is
// returned so the caller can skip the step. maxNorm must be positive.
func ClipGradNorm(params []*tensor.Tensor, maxNorm float64) float64 {
	if !(maxNorm > 0) {
		panic("optim: ClipGradNorm: maxNorm must be positive")
	}
	norm := GradNorm(params)
	if norm <= maxNorm || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return norm
	}
	scale := maxNorm / norm
	for _, p := range params {
		scaleGrad(p.Grad, scale)
	}
	return norm
}

// scaleGrad multiplies g by scale in float64, element by element, spread
// over the cores (each element's result is the same wherever it is
// computed): the step's parameters hold about a million values (the
// embedding tables), which one core took about a millisecond to scale
// while the others waited.
func scaleGrad(g []float32, scale float64) {
	parallel.For(len(g), 4096, 2, func(lo, hi int) { scaleRow(g[lo:hi], scale) })
}

// scaleRowGo is the element loop of scaleGrad; scaleRow runs it, or on
// amd64 a vector kernel with the same conversions and multiply.
func scaleRowGo(g []float32, s float64) {
	for i, v := range g {
		g[i] = float32(float64(v) * s)
	}
}

// ClipGradNorm clips the registered parameters' gradients (in name order,
// so the norm does not depend on the order they were added in); see the
// package-level ClipGradNorm.
func (o *Adam) ClipGradNorm(maxNorm float64) float64 {
	return ClipGradNorm(o.Params(), maxNorm)
}
