package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestForCoversRange(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 63, 64, 1000, 1 << 16, 1<<16 + 7} {
			for _, grain := range []int{1, 64} {
				hits := make([]atomic.Int32, n)
				For(n, grain, 1<<10, func(lo, hi int) {
					if lo%grain != 0 {
						t.Errorf("range [%d,%d) not aligned to grain %d", lo, hi, grain)
					}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				for i := range hits {
					if h := hits[i].Load(); h != 1 {
						t.Fatalf("procs %d n=%d grain %d: index %d visited %d times", procs, n, grain, i, h)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestForWorkerIDs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, slots := range []int{1, 2, 4, 8} {
		var busy [8]atomic.Int32
		var total atomic.Int64
		ForWorker(10000, 1, Heavy, slots, func(w, lo, hi int) {
			if w < 0 || w >= slots {
				t.Errorf("worker id %d outside [0,%d)", w, slots)
				return
			}
			if busy[w].Add(1) != 1 {
				t.Errorf("worker id %d used by two goroutines at once", w)
			}
			total.Add(int64(hi - lo))
			busy[w].Add(-1)
		})
		if total.Load() != 10000 {
			t.Errorf("slots %d: covered %d of 10000", slots, total.Load())
		}
	}
}

// Each calls newWorker at most once per goroutine and every body once per
// index; nested calls (a metric inside a parallel loop) finish.
func TestEachOnceAndNested(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var workers atomic.Int32
	hits := make([]atomic.Int32, 500)
	Each(len(hits), func() func(i int) {
		workers.Add(1)
		return func(i int) {
			hits[i].Add(1)
			var inner atomic.Int32
			Each(50, func() func(int) { return func(int) { inner.Add(1) } })
			if inner.Load() != 50 {
				t.Errorf("nested call covered %d of 50", inner.Load())
			}
		}
	})
	for i := range hits {
		if hits[i].Load() != 1 {
			t.Fatalf("index %d visited %d times", i, hits[i].Load())
		}
	}
	if w := workers.Load(); w < 1 || w > 2 {
		t.Errorf("%d workers set up for GOMAXPROCS 2", w)
	}
}

// poll gives up when there is nothing to wait for: at once when the
// counter it watches is already zero, and after about spinTime when no
// job comes, so that an idle worker blocks instead of burning a core.
func TestPollGivesUp(t *testing.T) {
	poolOnce.Do(startWorkers)
	var zero atomic.Int32
	for _, tc := range []struct {
		name string
		wait *atomic.Int32
		min  time.Duration
	}{
		{"counter already zero", &zero, 0},
		{"no job comes", nil, spinTime},
	} {
		t0 := time.Now()
		if j := poll(tc.wait); j != nil {
			t.Errorf("%s: poll returned a job nobody queued", tc.name)
		}
		if d := time.Since(t0); d < tc.min || d > tc.min+time.Second {
			t.Errorf("%s: poll took %v, want about %v", tc.name, d, tc.min)
		}
	}
}

func BenchmarkForSmall(b *testing.B) {
	x := make([]float32, 1<<10)
	for b.Loop() {
		For(len(x), 64, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x[i]++
			}
		})
	}
}

func BenchmarkFor1M(b *testing.B) {
	x := make([]float32, 1<<20)
	for b.Loop() {
		For(len(x), 1024, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x[i]++
			}
		})
	}
}

// BenchmarkForBackToBack is a training step's pattern: calls of a few
// tens of microseconds each, one after another, so that what a call costs
// beyond its work (handing it to a worker, the worker waking) shows.
// "shared" reports the fraction of chunks the helper goroutines ran.
func BenchmarkForBackToBack(b *testing.B) {
	x := make([]float32, 1<<15)
	var helped, total atomic.Int64
	for b.Loop() {
		ForWorker(len(x), 1024, 4, Workers(), func(w, lo, hi int) {
			for i := lo; i < hi; i++ {
				x[i] = x[i]*0.5 + 1
			}
			if w > 0 {
				helped.Add(1)
			}
			total.Add(1)
		})
	}
	b.ReportMetric(float64(helped.Load())/float64(max(total.Load(), 1)), "shared")
}

// TestOccupy: while every core is held (Occupy), For runs its whole range
// in one call on the calling goroutine; once a core is released, calls
// spread again; releasing twice counts once.
func TestOccupy(t *testing.T) {
	procs := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(procs)
	calls := func() int {
		var n atomic.Int32
		For(1<<16, 64, 16, func(lo, hi int) { n.Add(1) })
		return int(n.Load())
	}
	if c := calls(); c < 2 {
		t.Fatalf("For on two free cores made %d call, want several", c)
	}
	r1, r2 := Occupy(), Occupy()
	if c := calls(); c != 1 {
		t.Errorf("For with both cores held made %d calls, want 1", c)
	}
	r1()
	r1()
	if c := calls(); c < 2 {
		t.Errorf("For with one core released made %d call, want several", c)
	}
	r2()
	if got := occupied.Load(); got != 0 {
		t.Errorf("%d cores still held after every release", got)
	}
}
