package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// goPar is a Parallel for the tests: fixed chunks of uneven size, each on
// its own goroutine, so that -race sees the kernels' real sharing.
func goPar(n, cost int, fn func(lo, hi int)) {
	var wg sync.WaitGroup
	for lo := 0; lo < n; {
		hi := min(n, lo+1+lo%3)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}

// problem is one product with its operands laid out at the given strides.
type problem struct {
	tA, tB                bool
	m, n, k               int
	alpha, beta           float32
	a, b, c               []float32
	lda, ldb, ldc         int
	padA, padB, padC      int
	nanC                  bool // C starts as NaN (beta must be 0)
	sentinel, naiveScaled float32
}

func newProblem(rng *rand.Rand, tA, tB bool, m, n, k, padA, padB, padC int, alpha, beta float32) *problem {
	p := &problem{tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, beta: beta, padA: padA, padB: padB, padC: padC, sentinel: 12345}
	ar, ac := Stored(tA, m, k)
	br, bc := Stored(tB, k, n)
	p.lda, p.ldb, p.ldc = ac+padA, bc+padB, n+padC
	fill := func(rows, ld int) []float32 {
		s := make([]float32, rows*ld)
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
		return s
	}
	p.a, p.b, p.c = fill(ar, p.lda), fill(br, p.ldb), fill(m, p.ldc)
	// Values past each row of C must survive untouched.
	for i := range m {
		for j := n; j < p.ldc; j++ {
			p.c[i*p.ldc+j] = p.sentinel
		}
	}
	return p
}

// opA and opB read op(A)[i][l] and op(B)[l][j].
func (p *problem) opA(i, l int) float32 {
	if p.tA {
		return p.a[l*p.lda+i]
	}
	return p.a[i*p.lda+l]
}

func (p *problem) opB(l, j int) float32 {
	if p.tB {
		return p.b[j*p.ldb+l]
	}
	return p.b[l*p.ldb+j]
}

// check compares got (C after the product; c0 is C before) with the naive
// triple loop in float64. Each element may differ by float32 rounding of a
// k-term sum: k·2⁻²³ times the sum of the magnitudes of its terms.
func (p *problem) check(t *testing.T, what string, c0, got []float32) {
	t.Helper()
	const eps = 1.0 / (1 << 23)
	for i := range p.m {
		for j := range p.n {
			var s, mag float64
			for l := range p.k {
				x := float64(p.opA(i, l)) * float64(p.opB(l, j))
				s += x
				mag += math.Abs(x)
			}
			want := float64(p.alpha) * s
			bound := math.Abs(float64(p.alpha)) * mag
			if p.beta != 0 {
				want += float64(p.beta) * float64(c0[i*p.ldc+j])
				bound += math.Abs(float64(p.beta) * float64(c0[i*p.ldc+j]))
			}
			tol := float64(p.k+4)*eps*bound + 1e-30
			g := float64(got[i*p.ldc+j])
			if math.IsNaN(g) || math.Abs(g-want) > tol {
				t.Fatalf("%s: C[%d][%d] = %v, want %v (±%.3g)", what, i, j, g, want, tol)
			}
		}
		for j := p.n; j < p.ldc; j++ {
			if got[i*p.ldc+j] != p.sentinel {
				t.Fatalf("%s: C[%d][%d] past the row's %d columns was overwritten", what, i, j, p.n)
			}
		}
	}
}

// run computes the product with kn (par nil: serial) on a copy of C.
func (p *problem) run(kn *Kernel, par Parallel) []float32 {
	c := append([]float32(nil), p.c...)
	kn.Sgemm(par, 4, p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, c, p.ldc)
	return c
}

// kernels returns the kernels to test, logging those this CPU lacks; with
// none at all (another architecture) the test says so and skips.
func kernels(t testing.TB) []*Kernel {
	var ks []*Kernel
	for _, e := range allKernels() {
		if e.ok {
			ks = append(ks, e.k)
		} else {
			t.Logf("%s not tested: this CPU lacks %s", e.k.name, e.need)
		}
	}
	if len(ks) == 0 {
		t.Skip("no gemm kernel for this CPU or architecture (callers use gonum's blas32)")
	}
	return ks
}

var alphaBetas = [][2]float32{{1, 0}, {1, 1}, {-0.5, 2.5}, {2, -1}}

func TestSgemmShapes(t *testing.T) {
	shapes := [][3]int{
		{1, 1, 1}, {1, 33, 7}, {13, 1, 5}, {12, 32, 1}, {6, 16, 4}, {11, 31, 3},
		{13, 33, 257}, {25, 70, 513}, {97, 65, 300}, {130, 550, 40}, // 550 > nc: two column blocks
		{2, 1000, 30}, {300, 2, 260},
		{37, 100, 1030}, {130, 200, 1300}, {5, 512, 1500}, // deep: many k blocks, few tiles
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kn := range kernels(t) {
		for si, s := range shapes {
			for ti := range 4 {
				tA, tB := ti&1 != 0, ti&2 != 0
				ab := alphaBetas[(si+ti)%len(alphaBetas)]
				pad := (si + ti) % 3 * 5 // 0, 5 or 10 floats past each row
				p := newProblem(rng, tA, tB, s[0], s[1], s[2], pad, (pad+5)%11, pad/2, ab[0], ab[1])
				what := fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v α=%v β=%v pads=%d,%d,%d", kn.name, p.m, p.n, p.k, tA, tB, p.alpha, p.beta, p.padA, p.padB, p.padC)
				serial := p.run(kn, nil)
				p.check(t, what+" serial", p.c, serial)
				parallel := p.run(kn, goPar)
				for i := range serial {
					if math.Float32bits(serial[i]) != math.Float32bits(parallel[i]) {
						t.Fatalf("%s: parallel C[%d] = %v, serial %v: not bit-identical", what, i, parallel[i], serial[i])
					}
				}
			}
		}
	}
}

// TestSgemmRowsIndependent: a row of C comes out bit-identical whether
// computed among many rows (in full or edge tiles) or alone, for every
// transpose and beta.
func TestSgemmRowsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, kn := range kernels(t) {
		for ti := range 4 {
			tA, tB := ti&1 != 0, ti&2 != 0
			ab := alphaBetas[ti]
			p := newProblem(rng, tA, tB, 53, 45, 300, 0, 0, 0, ab[0], ab[1])
			all := p.run(kn, goPar)
			for _, i := range []int{0, 11, 12, 50, 52} {
				// Row i alone: op(A)'s row i as a 1×k matrix.
				a := make([]float32, p.k)
				for l := range p.k {
					a[l] = p.opA(i, l)
				}
				c := append([]float32(nil), p.c[i*p.ldc:i*p.ldc+p.n]...)
				kn.Sgemm(nil, 1, false, tB, 1, p.n, p.k, p.alpha, a, p.k, p.b, p.ldb, p.beta, c, p.n)
				for j := range p.n {
					if math.Float32bits(c[j]) != math.Float32bits(all[i*p.ldc+j]) {
						t.Fatalf("%s tA=%v tB=%v row %d col %d: alone %v, among others %v", kn.name, tA, tB, i, j, c[j], all[i*p.ldc+j])
					}
				}
			}
		}
	}
}

// TestSgemmInPlaceMatchesPacked: a kernel reading the full panels of A
// (its rows, or a transposed A's columns) and of an untransposed B where
// they lie gives the bits of the same kernel on packed panels, for every
// transpose, edge rows and columns, several k blocks (the deep schedule
// too), every beta, serial and parallel, and strides of 1024 floats
// (which take the packed path).
func TestSgemmInPlaceMatchesPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, kn := range kernels(t) {
		if !kn.direct && !kn.strided {
			continue
		}
		packed := *kn
		packed.strided, packed.direct = false, false
		for si, s := range []struct{ m, n, k, padA, padB int }{
			{12, 32, 1, 0, 0}, {24, 64, 7, 3, 1}, {37, 45, 300, 5, 0}, {97, 130, 513, 0, 2}, {130, 550, 40, 1, 0},
			{30, 33, 70, 1024 - 70, 0}, {30, 33, 70, 1024 - 30, 1024 - 33}, {128, 128, 1100, 0, 0}, {20, 300, 1500, 2, 3},
		} {
			for ti := range 4 {
				tA, tB := ti&1 != 0, ti&2 != 0
				ab := alphaBetas[(si+ti)%len(alphaBetas)]
				p := newProblem(rng, tA, tB, s.m, s.n, s.k, s.padA, s.padB, 1, ab[0], ab[1])
				for _, par := range []Parallel{nil, goPar} {
					want, got := p.run(&packed, par), p.run(kn, par)
					for i := range want {
						if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
							t.Fatalf("%s %+v tA=%v tB=%v: C[%d] = %v in place, %v packed", kn.name, s, tA, tB, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestSgemmSizes samples sizes from 1 to 1024 (log-uniform, with the naive
// reference kept to about 2²⁴ multiply-adds per product).
func TestSgemmSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dim := func() int { return int(math.Exp(rng.Float64() * math.Log(1025))) }
	for _, kn := range kernels(t) {
		for range 24 {
			m, n, k := dim(), dim(), dim()
			for m*n*k > 1<<24 {
				m, n = max(1, m/2), max(1, n/2)
				if m*n*k > 1<<24 {
					k = max(1, k/2)
				}
			}
			tA, tB := rng.IntN(2) == 1, rng.IntN(2) == 1
			ab := alphaBetas[rng.IntN(len(alphaBetas))]
			p := newProblem(rng, tA, tB, m, n, k, rng.IntN(20), rng.IntN(20), rng.IntN(20), ab[0], ab[1])
			p.check(t, fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v", kn.name, m, n, k, tA, tB), p.c, p.run(kn, goPar))
		}
		// The largest sizes in each direction once.
		for _, s := range [][3]int{{1024, 16, 1024}, {16, 1024, 1024}, {1024, 1024, 16}} {
			p := newProblem(rng, false, true, s[0], s[1], s[2], 3, 0, 1, 1, 0.5)
			p.check(t, fmt.Sprintf("%s %v", kn.name, s), p.c, p.run(kn, goPar))
		}
	}
}

// TestSgemmBetaZeroIgnoresC: with beta = 0, NaN and Inf in C do not leak
// into the result (C is not read), also when k = 0 or alpha = 0.
func TestSgemmBetaZeroIgnoresC(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kn := range kernels(t) {
		for _, s := range [][4]int{{37, 45, 19, 1}, {12, 32, 8, 1}, {5, 7, 0, 1}, {5, 7, 3, 0}} {
			p := newProblem(rng, false, false, s[0], s[1], s[2], 0, 0, 2, float32(s[3]), 0)
			for i := range p.m {
				for j := range p.n {
					p.c[i*p.ldc+j] = float32(math.NaN())
					if j%2 == 1 {
						p.c[i*p.ldc+j] = float32(math.Inf(-1))
					}
				}
			}
			p.check(t, fmt.Sprintf("%s %v", kn.name, s), p.c, p.run(kn, nil))
		}
	}
}

// TestSgemmAllocatesNothing: once warm, a product allocates nothing (the
// packing buffers and product states are reused), also with a Parallel
// that itself allocates nothing.
func TestSgemmAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	inline := func(n, cost int, fn func(lo, hi int)) {
		for i := range n {
			fn(i, i+1)
		}
	}
	for _, kn := range kernels(t) {
		p := newProblem(rng, false, true, 70, 90, 300, 1, 2, 3, 1, 0.5)
		for _, par := range []Parallel{nil, inline} {
			if n := testing.AllocsPerRun(10, func() { p.run(kn, par) }); n > 1 { // 1: run's copy of C
				t.Errorf("%s: %v allocations per product", kn.name, n)
			}
		}
	}
}

func TestSgemmBadArgsPanic(t *testing.T) {
	kn := &Kernel{name: "none", mr: 1, nr: 1, kc: 1, mc: 1, nc: 1, id: -1}
	for _, tc := range []struct {
		name        string
		m, n, k     int
		la, lb, lc  int
		lda, ldb, c int
	}{
		{"negative m", -1, 2, 2, 4, 4, 4, 2, 2, 2},
		{"lda too small", 2, 2, 3, 6, 6, 4, 2, 2, 2},
		{"A too short", 2, 2, 2, 3, 4, 4, 2, 2, 2},
		{"C too short", 2, 2, 2, 4, 4, 3, 2, 2, 2},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			kn.Sgemm(nil, 1, false, false, tc.m, tc.n, tc.k, 1, make([]float32, tc.la), tc.lda, make([]float32, tc.lb), tc.ldb, 0, make([]float32, tc.lc), tc.c)
		}()
	}
}

// TestSgemmAliasing: C sharing memory with A or B is refused (the result
// would depend on the schedule); A and B may share memory, and a C next to
// them in the same buffer is fine.
func TestSgemmAliasing(t *testing.T) {
	for _, kn := range kernels(t) {
		buf := make([]float32, 64)
		for i := range buf {
			buf[i] = float32(i%7) - 3
		}
		for _, tc := range []struct {
			name    string
			a, b, c []float32
			panics  string
		}{
			{"C is A", buf[:16], buf[32:48], buf[:16], "gemm: C overlaps A"},
			{"C inside B", buf[:16], buf[32:48], buf[40:56], "gemm: C overlaps B"},
			{"C starts in A's last row", buf[:16], buf[32:48], buf[15:31], "gemm: C overlaps A"},
			{"A is B", buf[:16], buf[:16], buf[32:48], ""},
			{"C right after A", buf[:16], buf[16:32], buf[32:48], ""},
		} {
			t.Run(kn.name+"/"+tc.name, func(t *testing.T) {
				defer func() {
					got := ""
					if r := recover(); r != nil {
						got = fmt.Sprint(r)
					}
					if got != tc.panics {
						t.Errorf("panic %q, want %q", got, tc.panics)
					}
				}()
				kn.Sgemm(nil, 1, false, false, 4, 4, 4, 1, tc.a, 4, tc.b, 4, 0, tc.c, 4)
			})
		}
	}
}

// FuzzSgemm checks random shapes, transposes, strides and scalars against
// the naive loop, serial and parallel.
func FuzzSgemm(f *testing.F) {
	f.Add(uint8(13), uint8(33), uint8(7), uint8(3), uint8(1), uint8(2), uint8(0), uint64(1))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0), uint64(2))
	f.Add(uint8(100), uint8(70), uint8(255), uint8(2), uint8(9), uint8(0), uint8(4), uint64(3))
	f.Add(uint8(29), uint8(40), uint8(3), uint8(0x37), uint8(1), uint8(16), uint8(2), uint64(4)) // k = 771: four k blocks
	f.Fuzz(func(t *testing.T, m, n, k, flags, padA, padB, padC uint8, seed uint64) {
		ks := allKernels()
		rng := rand.New(rand.NewPCG(seed, 7))
		ab := alphaBetas[int(flags>>2)%len(alphaBetas)]
		// Bits 4-5 of flags add 0-3 blocks of 256 to k, so that products
		// over several kc blocks (kc = 256) are fuzzed as well.
		kk := int(k) + int(flags>>4&3)*256
		p := newProblem(rng, flags&1 != 0, flags&2 != 0, int(m)%200+1, int(n)%200+1, kk, int(padA%17), int(padB%17), int(padC%17), ab[0], ab[1])
		for _, e := range ks {
			if !e.ok {
				continue
			}
			what := fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v", e.k.name, p.m, p.n, p.k, p.tA, p.tB)
			p.check(t, what, p.c, p.run(e.k, nil))
			p.check(t, what+" parallel", p.c, p.run(e.k, goPar))
		}
	})
}

// BenchmarkSgemm measures square products per kernel and size, serial (one
// core) and split over goroutines, in GFLOP/s (2·n³ per product).
func BenchmarkSgemm(b *testing.B) {
	for _, kn := range kernels(b) {
		for _, n := range []int{64, 128, 256, 512, 1024} {
			for _, mode := range []string{"serial", "parallel"} {
				b.Run(fmt.Sprintf("%s/%s/%d", kn.name, mode, n), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 1))
					p := newProblem(rng, false, false, n, n, n, 0, 0, 0, 1, 0)
					var par Parallel
					if mode == "parallel" {
						par = chunkPar
					}
					for b.Loop() {
						kn.Sgemm(par, 2, false, false, n, n, n, 1, p.a, n, p.b, n, 0, p.c, n)
					}
					b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkSgemmLayer measures the products of a training step's linear
// map of width 128 → 512 over 3,840 rows (64 documents of 60 tokens):
// forward X·W, input gradient dY·Wᵀ and weight gradient Xᵀ·dY (thousands
// of k steps onto a small C: the deep schedule, operands read in place).
func BenchmarkSgemmLayer(b *testing.B) {
	const rows, in, out = 3840, 128, 512
	for _, kn := range kernels(b) {
		for _, s := range []struct {
			name    string
			tA, tB  bool
			m, n, k int
		}{
			{"forward", false, false, rows, out, in},
			{"dx", false, true, rows, in, out},
			{"dw", true, false, in, out, rows},
		} {
			b.Run(kn.name+"/"+s.name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				p := newProblem(rng, s.tA, s.tB, s.m, s.n, s.k, 0, 0, 0, 1, 1)
				for b.Loop() {
					kn.Sgemm(chunkPar, 2, s.tA, s.tB, s.m, s.n, s.k, 1, p.a, p.lda, p.b, p.ldb, 1, p.c, p.ldc)
				}
				b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// chunkPar is a Parallel for benchmarks: two goroutines share the chunks.
func chunkPar(n, cost int, fn func(lo, hi int)) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i, i+1)
			}
		}()
	}
	wg.Wait()
}
