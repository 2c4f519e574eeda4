//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// kernel12x32 and kernel6x16 are the AVX-512 and AVX2+FMA micro-kernels
// (kernel_amd64.s); see Kernel.call for the contract.
//
//go:noescape
func kernel12x32(k int, a, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func kernel6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)

// kernel12x32d is kernel12x32 reading its 12 rows of A in place, row r's k
// values at a + r·lda (kernel_amd64.s).
//
//go:noescape
func kernel12x32d(k int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32)

// kernel12x32s is kernel12x32 reading step p's 12 values of A at a + p·lda
// and its 32 values of B at b + p·ldb (kernel_amd64.s).
//
//go:noescape
func kernel12x32s(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// kernel12x32ds is kernel12x32d reading step p's 32 values of B at
// b + p·ldb (kernel_amd64.s).
//
//go:noescape
func kernel12x32ds(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// transpose4x8 writes dst[p·ldd + r] = src[r·lds + p] for r < 4 and p < n
// (n a multiple of 8): packing's transpose (kernel_amd64.s).
//
//go:noescape
func transpose4x8(dst *float32, ldd int, src *float32, lds int, n int)

// interleave4 writes the first n values of the four rows of src (rows lds
// apart) to dst at stride step: dst[p·step + r] = src[r·lds + p]. Only
// called when a kernel runs, so the CPU has AVX2.
func interleave4(dst []float32, step int, src []float32, lds, n int) {
	v := n &^ 7
	if v > 0 {
		_ = dst[(v-1)*step+3] // bounds, as the assembly does not check
		_ = src[3*lds+v-1]
		transpose4x8(&dst[0], step, &src[0], lds, v)
	}
	if v < n {
		interleave4Go(dst[v*step:], step, src[v:], lds, n-v)
	}
}

// copyPanel writes dst[p·w + i] = src[p·lds + i] for i < w, p < n, for
// w = 6, 12, 16 or 32 (kernel_amd64.s).
//
//go:noescape
func copyPanel(dst, src *float32, lds, n, w int)

// copySteps writes dst[p·step + i] = src[p·lds + i] for i < w, p < n:
// packing of contiguous runs (A transposed, B not).
func copySteps(dst []float32, step int, src []float32, lds, w, n int) {
	if n > 0 && w == step && (w == 6 || w == 12 || w == 16 || w == 32) {
		_ = dst[n*w-1] // bounds, as the assembly does not check
		_ = src[(n-1)*lds+w-1]
		copyPanel(&dst[0], &src[0], lds, n, w)
		return
	}
	copyStepsGo(dst, step, src, lds, w, n)
}

// Blocking: kc steps of a 12-row A panel (12 KiB at kc = 256) stay in L1
// while the task's B panels (kc × up to nc columns, 512 KiB) stream from L2.
var (
	avx512 = &Kernel{name: "go-avx512", mr: 12, nr: 32, kc: 256, mc: 96, nc: 512, id: idAVX512, direct: true, strided: true}
	avx2   = &Kernel{name: "go-avx2", mr: 6, nr: 16, kc: 256, mc: 96, nc: 512, id: idAVX2}
)

const (
	idAVX512 = iota
	idAVX2
)

// call computes the mr×nr tile C = alpha·(Σ_p a_p ⊗ b_p) + beta·C from k
// steps of packed A (mr values each) and packed B (nr values each); C's rows
// are ldc floats apart. With beta = 0 it does not read C. (A switch rather
// than a function value: direct calls let the compiler see that the
// pointers do not escape.)
func (kn *Kernel) call(k int, a, b, c *float32, ldc int, alpha, beta float32) {
	switch kn.id {
	case idAVX512:
		kernel12x32(k, a, b, c, ldc, alpha, beta)
	case idAVX2:
		kernel6x16(k, a, b, c, ldc, alpha, beta)
	default:
		panic("gemm: unknown kernel")
	}
}

// callDirect is call with the tile's mr rows of A read in place from a
// row-major, untransposed A (row r's k values at a + r·lda), for a kernel
// with direct set.
func (kn *Kernel) callDirect(k int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	if kn.id != idAVX512 {
		panic("gemm: kernel reads no A in place")
	}
	kernel12x32d(k, a, lda, b, c, ldc, alpha, beta)
}

// callStrided is call with step p's mr values of A at a + p·sa and its nr
// values of B at b + p·sb (sa = mr, sb = nr: packed panels), for a kernel
// with strided set.
func (kn *Kernel) callStrided(k int, a *float32, sa int, b *float32, sb int, c *float32, ldc int, alpha, beta float32) {
	if kn.id != idAVX512 {
		panic("gemm: kernel reads no operand at a stride")
	}
	kernel12x32s(k, a, sa, b, sb, c, ldc, alpha, beta)
}

// callDirectStrided is callDirect with step p's nr values of B at
// b + p·sb (sb = nr: a packed panel), for a kernel with direct and
// strided set.
func (kn *Kernel) callDirectStrided(k int, a *float32, lda int, b *float32, sb int, c *float32, ldc int, alpha, beta float32) {
	if kn.id != idAVX512 {
		panic("gemm: kernel reads no operand at a stride")
	}
	kernel12x32ds(k, a, lda, b, sb, c, ldc, alpha, beta)
}

// Kernels returns the kernels this CPU runs, fastest first. x/sys/cpu
// reports AVX-512 and AVX only when the operating system saves their
// registers.
func Kernels() []*Kernel {
	var ks []*Kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2)
	}
	return ks
}

// allKernels lists every kernel built for this architecture, supported by
// the CPU or not, with the CPU feature it needs.
func allKernels() []struct {
	k    *Kernel
	ok   bool
	need string
} {
	return []struct {
		k    *Kernel
		ok   bool
		need string
	}{
		{avx512, cpu.X86.HasAVX512F, "avx512f"},
		{avx2, cpu.X86.HasAVX2 && cpu.X86.HasFMA, "avx2 and fma"},
	}
}
