package tensor

import "github.com/gtformer/gtformer/internal/parallel"

// Element-wise passes over activations of a few megabytes are bound by memory
// bandwidth and by transcendental functions (exp in softmax, tanh in GELU);
// two cores roughly halve them. Small tensors stay on the calling goroutine
// because a hand-off costs about a microsecond.

// minParallel is the element count below which parallelFor does not split.
const minParallel = parallel.MinWork

// parallelFor calls fn on disjoint ranges [lo,hi) covering [0,n), on up to
// GOMAXPROCS goroutines when the work is large enough (internal/parallel's
// For). grain is the smallest range worth a call of its own (in units of
// n); cost is the work per unit in rough element-operations, so that
// n·cost < minParallel stays serial. Nested calls cannot deadlock.
func parallelFor(n, grain, cost int, fn func(lo, hi int)) { parallel.For(n, grain, cost, fn) }

// numWorkers bounds the worker ids parallelForWorker passes, for sizing
// per-worker scratch space.
func numWorkers() int { return parallel.Workers() }

// parallelForWorker is parallelFor whose fn also receives a worker id in
// [0, slots), distinct among the goroutines running one call, so that fn can
// use per-worker scratch buffers; slots (at least 1) is how many such
// buffers the caller has, normally numWorkers() when they were made.
func parallelForWorker(n, grain, cost, slots int, fn func(worker, lo, hi int)) {
	parallel.ForWorker(n, grain, cost, slots, fn)
}

// Column reductions (bias and LayerNorm gain gradients: sums over rows) are
// split into a fixed number of row blocks that depends on the row count
// alone, each summed in order into its own partial row, and the partials are
// added in block order. The float32 summation order, and so every bit of the
// result, is then the same on any number of cores and under any scheduling:
// same seed, same numbers. (Per-worker partials would depend on which worker
// happened to claim which rows.)
const (
	maxReduceBlocks = 16 // partial rows at most
	minReduceRows   = 16 // rows per block at least
)

// reduceBlocks is the number of fixed row blocks for a reduction over rows.
func reduceBlocks(rows int) int { return max(1, min(maxReduceBlocks, rows/minReduceRows)) }

// parallelBlocks calls fn(b, lo, hi) for each of the nb = reduceBlocks(rows)
// fixed blocks [lo,hi) of [0,rows), spread over the cores; cost is the work
// per row.
func parallelBlocks(rows, cost int, fn func(b, lo, hi int)) {
	nb := reduceBlocks(rows)
	parallelFor(nb, 1, cost*((rows+nb-1)/nb), func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			fn(b, b*rows/nb, (b+1)*rows/nb)
		}
	})
}
