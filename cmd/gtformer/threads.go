package main

import (
	"flag"
	"runtime"
)

// threadsFlag registers --threads. Every parallel loop of the project
// (internal/parallel: the tensor kernels and matrix products, kNN, link
// ranking, LDA's E-step, t-SNE) sizes itself by GOMAXPROCS, and the BLAS
// library runs single-threaded under it, so GOMAXPROCS is the one knob.
func threadsFlag(fs *flag.FlagSet) *int {
	return fs.Int("threads", 0, "use at most `N` threads for the computation (0: all cores); the numbers do not depend on it")
}

// useThreads checks --threads n and, for n > 0, sets GOMAXPROCS to n until
// the returned function restores it (a command run in-process, as by the
// tests, leaves the process as it found it).
func useThreads(n int) (restore func(), err error) {
	if n < 0 {
		return nil, usagef("--threads %d: give a number of threads (at least 1), or 0 for all cores", n)
	}
	if n == 0 {
		return func() {}, nil
	}
	old := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(old) }, nil
}
