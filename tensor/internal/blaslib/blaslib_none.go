//go:build !(linux && (amd64 || arm64)) || nodlopen

package blaslib

import (
	"errors"
	"fmt"
)

// Supported says whether this build can load libraries at all: not with
// the nodlopen build tag, nor outside linux/amd64 and linux/arm64.
const Supported = false

// Candidates is empty: nothing is tried.
var Candidates []string

// Lib is a loaded BLAS library; this build never has one.
type Lib struct {
	Name, Path string
	OpenBLAS   bool
	Config     string
	Core       string
}

// noLoading says why nothing loads in this build.
const noLoading = "this build does not load BLAS libraries (built with -tags nodlopen, or not linux/amd64 or linux/arm64)"

// Open fails: this build cannot load libraries.
func Open(name string) (*Lib, error) {
	return nil, fmt.Errorf("blaslib: loading %s: %s", name, noLoading)
}

// Find fails: this build cannot load libraries.
func Find() (*Lib, error) { return nil, errors.New("blaslib: " + noLoading) }

// Close does nothing.
func (l *Lib) Close() error { return nil }

// SetThreads does nothing.
func (l *Lib) SetThreads(int) {}

// Sgemm is never reached: no Lib exists in this build.
func (l *Lib) Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("blaslib: no library can be loaded in this build")
}
