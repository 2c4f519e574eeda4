//go:build amd64 && !purego

package vec

import "golang.org/x/sys/cpu"

// geluGradAVX2 computes y = gelu(x+b) and d = gelu'(x+b) for n elements (a
// multiple of 8) with AVX2 and FMA; see gelu_amd64.s. Go does not vectorise
// loops, and this pass over the MLP's N×4C activation was the largest
// element-wise cost of a transformer step.
//
//go:noescape
func geluGradAVX2(y, d, x, b *float32, n int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX2FMA reports AVX2 and FMA support with the OS saving YMM state.
var hasAVX2FMA = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

// expShiftAVX2 writes dst[i] = exp(src[i] − shift) for n elements (a
// multiple of 8) and the eight lane sums to sums; see exp_amd64.s.
//
//go:noescape
func expShiftAVX2(dst, src *float32, n int, shift float32, sums *[8]float32)

// maxNaNAVX2 returns the largest of x[0:n] (n a multiple of 8) and
// whether one is NaN; see rows_amd64.s.
//
//go:noescape
func maxNaNAVX2(x *float32, n int) (mx float32, nan bool)

// scaleAVX2 multiplies x[0:n] (n a multiple of 8) by s; see rows_amd64.s.
//
//go:noescape
func scaleAVX2(y *float32, n int, s float32)

// lnOutAVX2 writes y = ((x − mu)·r)·g + b over n elements (a multiple of
// 8); see rows_amd64.s.
//
//go:noescape
func lnOutAVX2(y, x, gam, bet *float32, n int, mu, r float32)

// addAVX2 writes y = a + b over n elements (a multiple of 8).
//
//go:noescape
func addAVX2(y, a, b *float32, n int)

// rowStats8AVX2 writes the means and sums of squared deviations of eight
// rows, each summed in column order; see rows_amd64.s.
//
//go:noescape
func rowStats8AVX2(x *float32, stride, c int, cf float32, mu, q *[8]float32)

// lnGradAVX2 is LNGradRow's vector part over n elements (a multiple of 8):
// dr nil adds to dx alone, mask nil adds d itself to dr; see rows_amd64.s.
//
//go:noescape
func lnGradAVX2(dx, dr, dy, gam, xh, mask *float32, n int, r, sg, sgx float32)

// softmaxGradAVX2 is SoftmaxGradRow's vector part over n elements (a
// multiple of 8); see rows_amd64.s.
//
//go:noescape
func softmaxGradAVX2(p, d *float32, n int, a, s float32)

// addScaledAVX2 is AddScaled's vector part over n elements (a multiple of
// 8); see rows_amd64.s.
//
//go:noescape
func addScaledAVX2(y, x *float32, n int, a float32)

// mulAcc2AVX2 is MulAcc's vector part over n elements (a multiple of 8);
// see rows_amd64.s.
//
//go:noescape
func mulAcc2AVX2(p, x, a, b *float32, n int)

// hasAVX512DQ reports AVX-512 F and DQ (64-bit lane multiplies) with the
// OS saving their registers.
var hasAVX512DQ = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// dropPairsAVX512 is DropPairs' vector part over n elements (a multiple of
// 16): lanes holds the eight pairs' counters, step is 8·γ; see
// drop_amd64.s.
//
//go:noescape
func dropPairsAVX512(m *float32, n int, lanes *[8]uint64, step uint64, thr, keep uint32)

// geluAVX2 is GELURow's vector part over n elements (a multiple of 8);
// see gelu_amd64.s.
//
//go:noescape
func geluAVX2(y, x, b *float32, n int)
