package optim

import (
	"math"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/tensor"
)

// GradNorm is the Euclidean norm of all gradients of params taken together
// (those with a nil Grad count as zero), accumulated in float64: each
// parameter's gradient in fixed blocks of normBlock values, each block in
// four interleaved partial sums, the blocks spread over the cores and their
// sums added in parameter and block order, so the norm does not depend on
// the number of cores. (A single chain of adds over a million values kept
// one core busy for a millisecond a step while the others waited.)
func GradNorm(params []*tensor.Tensor) float64 {
	var blocks [][]float32
	for _, p := range params {
		for lo := 0; lo < len(p.Grad); lo += normBlock {
			blocks = append(blocks, p.Grad[lo:min(lo+normBlock, len(p.Grad))])
		}
	}
	sums := make([]float64, len(blocks))
	parallel.For(len(blocks), 1, normBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sums[i] = sumSquares(blocks[i])
		}
	})
	var ss float64
	for _, v := range sums {
		ss += v
	}
	return math.Sqrt(ss)
}

// normBlock is the values per block of GradNorm's sum.
const normBlock = 1 << 14

// sumSquares returns Σ g² in float64, over four interleaved partial sums
// added at the end ((s0+s1)+(s2+s3)). Each square of a float32 is exact in
// float64.
func sumSquares(g []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(g); i += 4 {
		a, b, c, d := float64(g[i]), float64(g[i+1]), float64(g[i+2]), float64(g[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(g); i++ {
		v := float64(g[i])
		s0 += v * v
	}
	return (s0 + s1) + (s2 + s3)
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
