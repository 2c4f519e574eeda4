package vec

import "math"

const (
	expHi = 88.72283905206835
	expLo = -87.33654 // below this the result is subnormal; return 0
	log2e = 1.44269504088896341
	expC1 = 0.693359375
	expC2 = -2.12194440e-4
)

// Exp returns eˣ in float32, after Cephes expf: relative error about
// 2·10⁻⁷, several times faster than converting to float64 for math.Exp.
func Exp(x float32) float32 {
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

// ExpShiftSum writes dst[i] = exp(src[i] − shift) and returns the sum of
// dst: the exponentials of a softmax row after subtracting its maximum. On
// amd64 with AVX2 and FMA eight lanes run at once; there arguments below
// −87.3 give about 1e-38 instead of 0 (no softmax sum can tell) and
// arguments above 88.37 saturate at 2.4e38 instead of +Inf, so it is meant
// for src ≤ shift.
func ExpShiftSum(dst, src []float32, shift float32) float32 {
	n := len(src)
	dst = dst[:n]
	v := 0
	var s float32
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		var sums [8]float32
		expShiftAVX2(&dst[0], &src[0], v, shift, &sums)
		for _, x := range sums {
			s += x
		}
	}
	for i := v; i < n; i++ {
		e := Exp(src[i] - shift)
		dst[i] = e
		s += e
	}
	return s
}
