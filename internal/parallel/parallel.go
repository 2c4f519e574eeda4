// Package parallel is the project's one parallel-for: a pool of
// GOMAXPROCS−1 helper goroutines that share each call's ranges with the
// caller. The tensor kernels, the metrics' kNN and link ranking, t-SNE and
// the baselines all run through it, so they share the same workers (no
// package starts goroutines of its own for a loop).
//
// Each participant of a call repeatedly claims the next chunk of the range
// until none is left, so a core slowed by other load simply does fewer
// chunks. A call nested in another one's body runs the queued work of
// others while it waits, so nesting cannot deadlock. Results are
// deterministic as long as each index's result is computed by one call in
// a fixed order, whichever goroutine makes it.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// MinWork is the amount of work (n·cost, in rough element-operations)
// below which For stays on the calling goroutine: a hand-off costs about a
// microsecond.
const MinWork = 1 << 14

// Heavy is a cost per item that always makes a call with at least two
// items parallel (items that each take microseconds or more: a row of a
// distance matrix, a document).
const Heavy = MinWork

// job is one call shared by the caller and the helper goroutines.
type job struct {
	fn      func(worker, lo, hi int)
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
		j.fn(w, lo, min(lo+j.chunk, j.n))
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
			for {
				j := poll(nil)
				if j == nil {
					j = <-jobs
				}
				j.run()
				j.finish()
			}
		}()
	}
}

// Workers is the number of goroutines a call may use (GOMAXPROCS), for
// sizing per-worker scratch space.
func Workers() int { return runtime.GOMAXPROCS(0) }

// For calls fn on disjoint ranges [lo,hi) covering [0,n), on up to
// Workers() goroutines when the work is large enough. grain is the smallest
// range worth a call of its own (ranges are multiples of it, but for the
// last); cost is the work per index in rough element-operations, so that
// n·cost < MinWork stays serial.
func For(n, grain, cost int, fn func(lo, hi int)) {
	grain = max(grain, 1)
	if serial(n, grain, cost, Workers()) {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	dispatch(n, grain, func(_, lo, hi int) { fn(lo, hi) }, Workers())
}

// serial reports whether a call stays on the calling goroutine: one core,
// too little work, or every core held by a loop of its own (Occupy).
func serial(n, grain, cost, slots int) bool {
	procs := runtime.GOMAXPROCS(0)
	return min(procs, slots) <= 1 || n*cost < MinWork || n < 2*grain || int(occupied.Load()) >= procs
}

// occupied counts the goroutines that hold a core for a loop of their own
// (Occupy).
var occupied atomic.Int32

// Occupy marks the calling goroutine as holding a core until release is
// called: a caller that runs its own items on every core at once (one
// goroutine a core, each item's ops small) occupies them, and while every
// core is held, For and ForWorker run on the calling goroutine, as a
// hand-off would only queue work for cores that are busy. When one of
// them runs out of items and releases its core, the others' calls spread
// again. Results do not change: they never depend on how a call is split.
func Occupy() (release func()) {
	occupied.Add(1)
	var once sync.Once
	return func() { once.Do(func() { occupied.Add(-1) }) }
}

// ForWorker is For whose fn also receives a worker id in [0, slots),
// distinct among the goroutines running one call, so that fn can use
// per-worker scratch buffers; slots (at least 1) is how many such buffers
// the caller has, normally Workers() when they were made. slots also bounds
// the goroutines used.
func ForWorker(n, grain, cost, slots int, fn func(worker, lo, hi int)) {
	grain = max(grain, 1)
	if serial(n, grain, cost, slots) {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	dispatch(n, grain, fn, slots)
}

// Each runs body(i) for every i in [0,n) on up to Workers() goroutines, for
// heavy items: newWorker is called at most once per goroutine taking part,
// to set up its scratch space, and returns that goroutine's body. Each i is
// handled exactly once; results must go to per-i slots.
func Each(n int, newWorker func() func(i int)) {
	slots := Workers()
	bodies := make([]func(i int), slots)
	ForWorker(n, 1, Heavy, slots, func(w, lo, hi int) {
		if bodies[w] == nil {
			bodies[w] = newWorker()
		}
		for i := lo; i < hi; i++ {
			bodies[w](i)
		}
	})
}

// dispatch hands the job to idle workers and works on it itself. While
// waiting for the other participants it runs queued jobs, so a call nested
// inside another one's fn cannot deadlock waiting for a worker that is
// itself waiting.
func dispatch(n, grain int, fn func(w, lo, hi int), slots int) {
	procs := min(runtime.GOMAXPROCS(0), slots)
	poolOnce.Do(startWorkers)
	j := jobPool.Get().(*job)
	j.fn, j.n = fn, n
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
	for j.pending.Load() != 0 {
		o := poll(&j.pending)
		if o == nil {
			break
		}
		o.run()
		o.finish()
	}
	for waiting := true; waiting; {
		select {
		case <-j.done:
			waiting = false
		case o := <-jobs:
			o.run()
			o.finish()
		}
	}
	j.fn = nil
	jobPool.Put(j)
}

// spinTime is how long a goroutine polls for work before it blocks: a
// worker after its job, and a caller waiting for the others' chunks. A
// blocked goroutine is woken through the kernel (a futex), which can take
// tens of microseconds (more on a virtual machine whose idle core has to
// be woken too), longer than many of the tensor ops between two calls take
// whole; polling keeps both cores on back-to-back calls.
const spinTime = 50 * time.Microsecond

// poll returns the next queued job, or nil once spinTime has passed or
// (when wait is not nil) *wait has dropped to zero. It yields the
// processor now and then, so that a goroutine woken onto this one (a
// caller that a finishing worker readied) is not kept waiting long.
func poll(wait *atomic.Int32) *job {
	var deadline time.Time
	for i := 0; ; i++ {
		select {
		case j := <-jobs:
			return j
		default:
		}
		if wait != nil && wait.Load() == 0 {
			return nil
		}
		// The clock every 64 looks (a few hundred nanoseconds); the
		// yield (through the scheduler's lock) less often.
		if i&63 == 63 {
			if deadline.IsZero() {
				deadline = time.Now().Add(spinTime)
			} else if time.Now().After(deadline) {
				return nil
			}
			if i&1023 == 1023 {
				runtime.Gosched()
			}
		}
	}
}
