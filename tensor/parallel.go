package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Element-wise passes over activations of a few megabytes are bound by memory
// bandwidth and by transcendental functions (exp in softmax, tanh in GELU);
// two cores roughly halve them. Small tensors stay on the calling goroutine
// because a hand-off costs about a microsecond.

// minParallel is the element count below which parallelFor does not split.
const minParallel = 1 << 14

// job is one parallelFor call shared by the caller and the helper goroutines:
// each participant repeatedly claims the next chunk until none is left, so a
// core slowed by other load simply does fewer chunks.
type job struct {
	fn      func(lo, hi int)
	fnw     func(worker, lo, hi int) // parallelForWorker's variant
	n       int
	ids     atomic.Int32
	chunk   int
	next    atomic.Int64
	pending atomic.Int32  // participants (caller + hand-offs) not finished
	done    chan struct{} // receives one token when pending reaches 0
}

func (j *job) run() {
	w := int(j.ids.Add(1)) - 1
	for {
		lo := int(j.next.Add(int64(j.chunk))) - j.chunk
		if lo >= j.n {
			return
		}
		if j.fnw != nil {
			j.fnw(w, lo, min(lo+j.chunk, j.n))
		} else {
			j.fn(lo, min(lo+j.chunk, j.n))
		}
	}
}

func (j *job) finish() {
	if j.pending.Add(-1) == 0 {
		j.done <- struct{}{}
	}
}

var (
	poolOnce sync.Once
	// jobs is buffered so that a hand-off never depends on a worker being
	// parked on the receive at that instant (back-to-back calls would
	// otherwise often run serially).
	jobs    chan *job
	jobPool = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}
)

func startWorkers() {
	jobs = make(chan *job, 64)
	for range runtime.GOMAXPROCS(0) - 1 {
		go func() {
			for j := range jobs {
				j.run()
				j.finish()
			}
		}()
	}
}

// parallelFor calls fn on disjoint ranges [lo,hi) covering [0,n), on up to
// GOMAXPROCS goroutines when the work is large enough. grain is the smallest
// range worth a call of its own (in units of n); cost is the work per unit in
// rough element-operations, so that n·cost < minParallel stays serial.
// Workers that are busy (nested calls) are skipped rather than waited for,
// so nesting cannot deadlock.
func parallelFor(n, grain, cost int, fn func(lo, hi int)) {
	if runtime.GOMAXPROCS(0) == 1 || n*cost < minParallel || n < 2*grain {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	dispatch(n, grain, fn, nil, runtime.GOMAXPROCS(0))
}

// numWorkers bounds the worker ids parallelForWorker passes, for sizing
// per-worker scratch space.
func numWorkers() int { return runtime.GOMAXPROCS(0) }

// parallelForWorker is parallelFor whose fn also receives a worker id in
// [0, slots), distinct among the goroutines running one call, so that fn can
// use per-worker scratch buffers; slots (at least 1) is how many such
// buffers the caller has, normally numWorkers() when they were made.
func parallelForWorker(n, grain, cost, slots int, fn func(worker, lo, hi int)) {
	if min(runtime.GOMAXPROCS(0), slots) <= 1 || n*cost < minParallel || n < 2*grain {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	dispatch(n, grain, nil, fn, slots)
}

// dispatch hands the job to idle workers and works on it itself. While
// waiting for the other participants it runs queued jobs, so a parallelFor
// nested inside another one's fn cannot deadlock waiting for a worker that
// is itself waiting.
func dispatch(n, grain int, fn func(lo, hi int), fnw func(w, lo, hi int), slots int) {
	procs := min(runtime.GOMAXPROCS(0), slots)
	poolOnce.Do(startWorkers)
	j := jobPool.Get().(*job)
	j.fn, j.fnw, j.n = fn, fnw, n
	j.ids.Store(0)
	// About four chunks per core balances load without much claiming; the
	// chunk is a multiple of grain (matrix blocks stay aligned to it).
	j.chunk = max(grain, (n+4*procs-1)/(4*procs))
	j.chunk = (j.chunk + grain - 1) / grain * grain
	j.next.Store(0)
	j.pending.Store(1)
	for range procs - 1 {
		j.pending.Add(1)
		select {
		case jobs <- j:
		default:
			j.pending.Add(-1) // queue full: do the work ourselves
		}
	}
	j.run()
	j.finish()
	for waiting := true; waiting; {
		select {
		case <-j.done:
			waiting = false
		case o := <-jobs:
			o.run()
			o.finish()
		}
	}
	j.fn, j.fnw = nil, nil
	jobPool.Put(j)
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
