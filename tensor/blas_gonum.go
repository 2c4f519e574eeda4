//go:build !openblas

package tensor

// setBLASThreads does nothing for gonum's pure-Go BLAS, which picks its own
// goroutine count per call.
func setBLASThreads(int) {}
