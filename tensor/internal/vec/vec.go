// Package vec holds the float32 element kernels behind tensor's GELU: a
// scalar form and, on amd64 with AVX2 and FMA, an assembly row kernel, kept
// apart from tensor as its matrix kernels are (package gemm).
package vec

// GELU uses the tanh form of Hendrycks & Gimpel (as GPT-2 and BERT's
// reference code): gelu(x) = ½x(1 + tanh(u)), u = √(2/π)(x + 0.044715x³).
// The MLP applies it (and its derivative) to N×4C elements per step, so tanh
// here is TanhRational: a branch-free odd rational function, cheaper than an
// exponential with its range reduction.
const (
	geluK = 0.7978845608028654 // √(2/π)
	geluA = 0.044715
)

// TanhRational is the degree-13/6 rational minimax approximation of tanh
// used by Eigen (ptanh_float), absolute error below 1e-6 (about 2 ulp at 1);
// beyond ±7.9 the result is ±1. It is branch-free but for the saturation
// tests (plain comparisons: Go's min/max on floats add NaN and signed-zero
// handling that measured 35% slower here).
func TanhRational(x float32) float32 {
	// Saturate to exactly ±1: the rational value there is 1 − 2.6e-7, and
	// GELU's derivative multiplies 1 − t² by x³, so a frozen residue would
	// grow without bound for large inputs.
	if x >= 7.90531110763549805 {
		return 1
	}
	if x <= -7.90531110763549805 {
		return -1
	}
	x2 := x * x
	p := x2*-2.76076847742355e-16 + 2.00018790482477e-13
	p = x2*p + -8.60467152213735e-11
	p = x2*p + 5.12229709037114e-08
	p = x2*p + 1.48572235717979e-05
	p = x2*p + 6.37261928875436e-04
	p = x2*p + 4.89352455891786e-03
	q := x2*1.19825839466702e-06 + 1.18534705686654e-04
	q = x2*q + 2.26843463243900e-03
	q = x2*q + 4.89352518554385e-03
	return x * p / q
}

// GELU returns gelu(x) = ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
func GELU(x float32) float32 {
	return 0.5 * x * (1 + TanhRational(geluK*x*(1+geluA*x*x)))
}

// GELUAndGrad returns gelu(x) and its derivative, sharing one tanh:
//
//	gelu'(x) = ½(1+t) + ½x(1−t²)·√(2/π)(1 + 3·0.044715x²),  t = tanh(u)
func GELUAndGrad(x float32) (y, g float32) {
	x2 := x * x
	t := TanhRational(geluK * x * (1 + geluA*x2))
	h := 0.5 * (1 + t)
	return x * h, h + 0.5*x*(1-t*t)*geluK*(1+3*geluA*x2)
}
