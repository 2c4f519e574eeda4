package optim

import (
	"math"

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
		for i, g := range p.Grad {
			p.Grad[i] = float32(float64(g) * scale)
		}
	}
	return norm
}

// ClipGradNorm clips the registered parameters' gradients (in name order,
// so the norm does not depend on the order they were added in); see the
// package-level ClipGradNorm.
func (o *Adam) ClipGradNorm(maxNorm float64) float64 {
	return ClipGradNorm(o.Params(), maxNorm)
}
