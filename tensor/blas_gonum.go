//go:build !openblas

package tensor

// setBLASThreads is a no-op for gonum's pure-Go BLAS, which picks its own
// goroutine count per call.
func setBLASThreads(n int) int { return n }
