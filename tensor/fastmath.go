package tensor

import "math"

// Float32 exp and tanh after Cephes (expf, tanhf): relative error about
// 2·10⁻⁷, several times faster than converting to float64 for math.Exp.
// Softmax over attention scores and GELU in the MLP evaluate them on millions
// of elements per step.

const (
	expHi  = 88.72283905206835
	expLo  = -87.33654 // below this the result is subnormal; return 0
	log2e  = 1.44269504088896341
	expC1  = 0.693359375
	expC2  = -2.12194440e-4
	tanhLo = 0.625
)

// exp32 returns eˣ in float32.
func exp32(x float32) float32 {
	if x > expHi {
		return float32(math.Inf(1))
	}
	if x < expLo {
		if x != x { // NaN
			return x
		}
		return 0
	}
	// x = n·ln2 + r with |r| ≤ ln2/2; eʳ by a degree-6 polynomial.
	t := x*log2e + 0.5
	n := int32(t)
	if t < float32(n) {
		n-- // floor for negative t
	}
	fn := float32(n)
	r := x - fn*expC1
	r -= fn * expC2
	z := r * r
	p := (((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r+5.0000001201e-1)*z + r + 1
	if n > 127 { // 2ⁿ itself overflows although p·2ⁿ does not
		return p * 2 * math.Float32frombits(uint32(n+126)<<23)
	}
	return p * math.Float32frombits(uint32(n+127)<<23)
}

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

// GELU uses the tanh form of Hendrycks & Gimpel (as GPT-2 and BERT's
// reference code): gelu(x) = ½x(1 + tanh(u)), u = √(2/π)(x + 0.044715x³).
// The MLP applies it (and its derivative) to N×4C elements per step, so tanh
// here is tanhRational: a branch-free odd rational function, cheaper than an
// exponential with its range reduction.
const (
	geluK = 0.7978845608028654 // √(2/π)
	geluA = 0.044715
)

// tanhRational is the degree-13/6 rational minimax approximation of tanh
// used by Eigen (ptanh_float), absolute error below 1e-6 (about 2 ulp at 1);
// beyond ±7.9 tanh is ±1 in float32 and the input is clamped there.
//
// The clamp uses plain comparisons: Go's min/max on floats add NaN and
// signed-zero handling that measured 35% slower here.
func tanhRational(x float32) float32 {
	if x > 7.90531110763549805 {
		x = 7.90531110763549805
	}
	if x < -7.90531110763549805 {
		x = -7.90531110763549805
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

func gelu32(x float32) float32 {
	return 0.5 * x * (1 + tanhRational(geluK*x*(1+geluA*x*x)))
}

// geluGrad32 is d gelu/dx = ½(1+t) + ½x(1−t²)·√(2/π)(1 + 3·0.044715x²)
// with t = tanh(√(2/π)(x + 0.044715x³)).
func geluGrad32(x float32) float32 {
	_, g := geluAndGrad32(x)
	return g
}

// geluAndGrad32 returns gelu(x) and gelu'(x) sharing one tanh.
func geluAndGrad32(x float32) (y, g float32) {
	x2 := x * x
	t := tanhRational(geluK * x * (1 + geluA*x2))
	h := 0.5 * (1 + t)
	return x * h, h + 0.5*x*(1-t*t)*geluK*(1+3*geluA*x2)
}
