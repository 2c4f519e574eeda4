//go:build !amd64 || purego

package vec

const hasAVX2FMA = false

func expShiftAVX2(dst, src *float32, n int, shift float32, sums *[8]float32) {
	panic("vec: expShiftAVX2 without AVX2")
}

func maxNaNAVX2(x *float32, n int) (float32, bool) {
	panic("vec: maxNaNAVX2 without AVX2")
}

func scaleAVX2(y *float32, n int, s float32) {
	panic("vec: scaleAVX2 without AVX2")
}

func lnOutAVX2(y, x, gam, bet *float32, n int, mu, r float32) {
	panic("vec: lnOutAVX2 without AVX2")
}

func addAVX2(y, a, b *float32, n int) { panic("vec: addAVX2 without AVX2") }

func rowStats8AVX2(x *float32, stride, c int, cf float32, mu, q *[8]float32) {
	panic("vec: rowStats8AVX2 without AVX2")
}

func lnGradAVX2(dx, dr, dy, gam, xh, mask *float32, n int, r, sg, sgx float32) {
	panic("vec: lnGradAVX2 without AVX2")
}

func softmaxGradAVX2(p, d *float32, n int, a, s float32) {
	panic("vec: softmaxGradAVX2 without AVX2")
}

func addScaledAVX2(y, x *float32, n int, a float32) { panic("vec: addScaledAVX2 without AVX2") }

func mulAcc2AVX2(p, x, a, b *float32, n int) { panic("vec: mulAcc2AVX2 without AVX2") }

const hasAVX512DQ = false

func dropPairsAVX512(m *float32, n int, lanes *[8]uint64, step uint64, thr, keep uint32) {
	panic("vec: dropPairsAVX512 without AVX-512")
}

func geluGradAVX2(y, d, x, b *float32, n int) { panic("vec: geluGradAVX2 without AVX2") }

func geluAVX2(y, x, b *float32, n int) { panic("vec: geluAVX2 without AVX2") }
