package tensor

import (
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// blasName names the blas32 implementation in use; blas_openblas.go replaces
// it under the openblas build tag.
var blasName = "gonum"

// BLASName reports which BLAS runs matrix products: "openblas" in builds with
// -tags openblas, "gonum" (pure Go) otherwise.
func BLASName() string { return blasName }

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices with
// leading dimensions lda, ldb, ldc (op(A) is m×k, op(B) is k×n).
func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		// BLAS would just scale C; keep that behaviour without a call.
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	impl := blas32.Implementation()
	// Large products are split into row or column blocks of C, one
	// single-threaded BLAS call each, spread by parallelFor: the Go side
	// owns all threading, so OpenBLAS runs with one thread and no idle
	// OpenBLAS threads spin (sched_yield) against the element-wise passes
	// that follow each product.
	const grain = 64
	if m*n*k < 1<<21 || (m < 2*grain && n < 2*grain) {
		impl.Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Two blocks per core: each block repacks the whole other operand, so
	// fewer, larger blocks measured faster (1024³: 204 GFLOP/s with 4
	// blocks, 193 with 8, OpenBLAS's own two threads 208), while two per
	// core still lets a core slowed by other load hand over a block.
	blocks := 2 * runtime.GOMAXPROCS(0)
	if m >= n {
		g := max(grain, (m+blocks*grain-1)/(blocks*grain)*grain)
		parallelFor(m, g, 2*n*k, func(lo, hi int) {
			ao := lo * lda // rows lo… of op(A)
			if tA {
				ao = lo // columns lo… of the stored k×m matrix
			}
			impl.Sgemm(trans(tA), trans(tB), hi-lo, n, k, alpha, a[ao:], lda, b, ldb, beta, c[lo*ldc:], ldc)
		})
		return
	}
	g := max(grain, (n+blocks*grain-1)/(blocks*grain)*grain)
	parallelFor(n, g, 2*m*k, func(lo, hi int) {
		bo := lo // columns lo… of op(B)
		if tB {
			bo = lo * ldb // rows lo… of the stored n×k matrix
		}
		impl.Sgemm(trans(tA), trans(tB), m, hi-lo, k, alpha, a, lda, b[bo:], ldb, beta, c[lo:], ldc)
	})
}

// serialRows is the largest row count for which gonum's Sgemm stays on the
// calling goroutine (it goes parallel from 2×2 blocks of 64); 0 means no
// limit (OpenBLAS, which is single-threaded here).
var serialRows = 64

// sgemmSerial is sgemm on the calling goroutine only, for callers that
// already run one product per core (attention heads, batched products).
func sgemmSerial(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	impl := blas32.Implementation()
	step := m
	if serialRows > 0 && n > serialRows {
		step = serialRows
	}
	for lo := 0; lo < m; lo += step {
		ao := lo * lda
		if tA {
			ao = lo
		}
		impl.Sgemm(trans(tA), trans(tB), min(step, m-lo), n, k, alpha, a[ao:], lda, b, ldb, beta, c[lo*ldc:], ldc)
	}
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices with leading dimensions lda, ldb, ldc (op(A) is m×k, op(B) is
// k×n, op = transpose when tA or tB), through the build's BLAS and spread
// over the cores as the tape's products are. For code outside the tape
// that multiplies plain slices (blocked distance computations in metrics
// and evaluate).
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
