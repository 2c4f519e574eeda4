package tensor

import (
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
	blas32.Implementation().Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
