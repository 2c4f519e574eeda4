package tensor

import "github.com/gtformer/gtformer/tensor/internal/vec"

// Float32 exp and tanh after Cephes (expf, tanhf): relative error about
// 2·10⁻⁷, several times faster than converting to float64 for math.Exp.
// Softmax over attention scores and GELU in the MLP evaluate them on millions
// of elements per step.

const tanhLo = 0.625

// exp32 returns eˣ in float32 (vec.Exp).
func exp32(x float32) float32 { return vec.Exp(x) }

// tanh32 returns tanh x in float32: an odd polynomial near 0 (where
// 1-2/(e²ˣ+1) would cancel), the exponential form elsewhere.
func tanh32(x float32) float32 {
	ax := x
	if ax < 0 {
		ax = -ax
	}
	if ax >= tanhLo {
		if ax > 9.1 { // tanh = 1 in float32
			if x < 0 {
				return -1
			}
			return 1
		}
		y := 1 - 2/(exp32(2*ax)+1)
		if x < 0 {
			return -y
		}
		return y
	}
	if ax < 1e-4 {
		return x
	}
	z := x * x
	return x + x*z*((((-5.70498872745e-3*z+2.06390887954e-2)*z-5.37397155531e-2)*z+1.33314422036e-1)*z-3.33332819422e-1)
}

// gelu32 and geluAndGrad32 are the scalar GELU of package vec (tanh form;
// see vec.GELU).
func gelu32(x float32) float32 { return vec.GELU(x) }

func geluAndGrad32(x float32) (y, g float32) { return vec.GELUAndGrad(x) }

func geluGrad32(x float32) float32 {
	_, g := vec.GELUAndGrad(x)
	return g
}

func geluGradRow(y, d, x, b []float32) { vec.GELUGradRow(y, d, x, b) }
