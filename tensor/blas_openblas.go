//go:build openblas

package tensor

// The cgo preamble links OpenBLAS directly, so no CGO_LDFLAGS is needed:
// go build -tags openblas ./... (Debian: apt-get install libopenblas-dev).

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int num_threads);
// int openblas_get_num_threads(void);
import "C"

import (
	"runtime"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	blas32.Use(netlib.Implementation{})
	blasName = "openblas"
	blasThreads = runtime.GOMAXPROCS(0)
	C.openblas_set_num_threads(C.int(blasThreads))
}

var blasThreads int

// setBLASThreads sets OpenBLAS's own thread count and returns the previous
// one. Attention runs many small products from several goroutines at once;
// there OpenBLAS must not also fork threads of its own.
func setBLASThreads(n int) int {
	prev := blasThreads
	if n != prev {
		C.openblas_set_num_threads(C.int(n))
		blasThreads = n
	}
	return prev
}
