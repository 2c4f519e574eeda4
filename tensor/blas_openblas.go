//go:build openblas

package tensor

// The cgo preamble links OpenBLAS directly, so no CGO_LDFLAGS is needed:
// go build -tags openblas ./... (Debian: apt-get install libopenblas-dev).

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int num_threads);
// int openblas_get_num_threads(void);
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

// OpenBLAS runs single-threaded: sgemm splits large products over the
// cores itself (see blas.go), and attention runs one small product per
// (batch, head) on each core. Measured here, OpenBLAS's own threads idle by
// spinning in sched_yield after every call, taking a core from the Go
// element-wise passes between products.
func init() {
	blas32.Use(netlib.Implementation{})
	blasName = "openblas"
	serialRows = 0
	C.openblas_set_num_threads(1)
}

// setBLASThreads sets OpenBLAS's own thread count; benchmarks use it to
// compare the Go-side split with OpenBLAS's threading.
func setBLASThreads(n int) { C.openblas_set_num_threads(C.int(n)) }
