//go:build openblas

package tensor

// The cgo preamble links OpenBLAS directly, so no CGO_LDFLAGS is needed:
// go build -tags openblas ./... (Debian: apt-get install libopenblas-dev).

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int num_threads);
// char* openblas_get_config(void);
import "C"

import "gonum.org/v1/netlib/blas/netlib"

// OpenBLAS linked at build time through gonum's netlib binding (cgo). It
// runs single-threaded for the same reason as the run-time path (see
// loadLib).
func init() {
	C.openblas_set_num_threads(1)
	impl := netlib.Implementation{}
	cgoPath = splitPath("openblas-cgo", C.GoString(C.openblas_get_config())+", linked with cgo (-tags openblas)",
		func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
			impl.Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		}, 0)
}
