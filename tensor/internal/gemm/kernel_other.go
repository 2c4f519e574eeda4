//go:build !amd64 || purego

package gemm

// Kernels returns the kernels this CPU runs: none outside amd64 (or with the
// purego build tag), where callers fall back to gonum's blas32.
func Kernels() []*Kernel { return nil }

func allKernels() []struct {
	k    *Kernel
	ok   bool
	need string
} {
	return nil
}

// call is never reached: there are no kernels in this build.
func (kn *Kernel) call(k int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("gemm: no kernels in this build")
}

// callDirect is never reached either.
func (kn *Kernel) callDirect(k int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	panic("gemm: no kernels in this build")
}

// callStrided is never reached either.
func (kn *Kernel) callStrided(k int, a *float32, sa int, b *float32, sb int, c *float32, ldc int, alpha, beta float32) {
	panic("gemm: no kernels in this build")
}

// callDirectStrided is never reached either.
func (kn *Kernel) callDirectStrided(k int, a *float32, lda int, b *float32, sb int, c *float32, ldc int, alpha, beta float32) {
	panic("gemm: no kernels in this build")
}

func interleave4(dst []float32, step int, src []float32, lds, n int) {
	interleave4Go(dst, step, src, lds, n)
}

func copySteps(dst []float32, step int, src []float32, lds, w, n int) {
	copyStepsGo(dst, step, src, lds, w, n)
}
