package tensor

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/gtformer/gtformer/tensor/internal/blaslib"
	"github.com/gtformer/gtformer/tensor/internal/gemm"
	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Matrix products run on one of several paths, chosen once per process:
//
//   - "openblas-runtime": OpenBLAS loaded at run time (package blaslib; no
//     cgo), when the machine has it;
//   - "go-avx512", "go-avx2": the package's own packed sgemm with an
//     assembly micro-kernel (package gemm), by CPU feature;
//   - "gonum": gonum's pure-Go blas32, on other architectures;
//   - "blas-runtime": a BLAS library that is not OpenBLAS, only when named
//     by GTFORMER_BLAS_LIB.
//
// The environment steers the choice: GTFORMER_BLAS=auto (the default) takes
// OpenBLAS when found (unless its kernels leave the CPU's AVX-512 unused:
// see loadLib) and the fastest Go path otherwise, GTFORMER_BLAS=go
// the fastest Go path, and any path name that path; GTFORMER_BLAS_LIB=FILE
// loads that library instead of searching for OpenBLAS. A bad setting is
// reported by BLASError, and the default is used meanwhile.
const (
	envBLAS    = "GTFORMER_BLAS"
	envBLASLib = "GTFORMER_BLAS_LIB"
)

// blasPath is one implementation of the matrix product.
type blasPath struct {
	name   string // BLASName's answer
	source string // what it is and where it comes from
	// gemm computes C = alpha·op(A)·op(B) + beta·C (see sgemm); with
	// parallel set it may spread the work over the cores through
	// parallelFor, otherwise it stays on the calling goroutine.
	gemm func(parallel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// sgemmFunc is a single-threaded matrix product with sgemm's arguments.
type sgemmFunc func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

var blasState struct {
	setup  sync.Once
	active atomic.Pointer[blasPath]
	chosen *blasPath // the path chosen at setup (UseBLAS may change active)
	why    string    // why chosen was chosen, for BLASSource
	err    error     // what was wrong with the environment (BLASError)

	libOnce sync.Once
	lib     *blasPath // the library loaded at run time, or nil
	libLast bool      // lib goes after the Go paths (see loadLib)
	goWhy   string    // why the default is the fastest Go path, if it is
	libErr  error     // GTFORMER_BLAS_LIB named a library that did not load
}

// BLASName reports which path runs matrix products: "openblas-runtime",
// "go-avx512", "go-avx2", "gonum" or "blas-runtime".
func BLASName() string { return activeBLAS().name }

// BLASSource says what the active path is and where it came from, e.g.
// "OpenBLAS 0.3.21 … Haswell …, loaded at run time from /usr/lib/…/
// libopenblasp-r0.3.21.so", followed for the path chosen at start-up by the
// reason when it was not simply OpenBLAS: GTFORMER_BLAS, no OpenBLAS found,
// or an OpenBLAS that leaves the CPU's AVX-512 unused.
func BLASSource() string {
	p := activeBLAS()
	if p == blasState.chosen && blasState.why != "" {
		return p.source + " (" + blasState.why + ")"
	}
	return p.source
}

// BLASError reports a problem with the GTFORMER_BLAS or GTFORMER_BLAS_LIB
// settings (an unknown path, a library that does not load); products then
// run on the default path. Commands check it before they start.
func BLASError() error {
	activeBLAS()
	return blasState.err
}

// BLASPaths lists the paths available in this process, fastest expected
// first; the first pure-Go one is what GTFORMER_BLAS=go selects. Listing
// them loads the BLAS library if that was not done yet.
func BLASPaths() []string {
	var names []string
	for _, p := range allPaths() {
		names = append(names, p.name)
	}
	return names
}

// UseBLAS switches matrix products to the named path (one of BLASPaths).
// It is meant for benchmarks and tests that compare paths, and must not
// run while another goroutine computes.
func UseBLAS(name string) error {
	activeBLAS()
	for _, p := range allPaths() {
		if p.name == name {
			blasState.active.Store(p)
			return nil
		}
	}
	return fmt.Errorf("tensor: BLAS %q is not available here (available: %s)", name, strings.Join(BLASPaths(), ", "))
}

// activeBLAS returns the path in use, choosing it on first use.
func activeBLAS() *blasPath {
	blasState.setup.Do(chooseBLAS)
	return blasState.active.Load()
}

// goPaths are the pure-Go paths this CPU runs, fastest first.
var goPaths = func() []*blasPath {
	var ps []*blasPath
	for _, kn := range gemm.Kernels() {
		ps = append(ps, kernelPath(kn))
	}
	return append(ps, gonumPath)
}()

func chooseBLAS() {
	p, why, err := choosePath(os.Getenv(envBLAS), allPaths, func() string { return blasState.goWhy })
	if err == nil {
		err = blasState.libErr
	}
	blasState.chosen, blasState.why, blasState.err = p, why, err
	blasState.active.Store(p)
}

// choosePath picks the path for the setting want (GTFORMER_BLAS) among
// paths() (called only when needed, as it loads the library), with the
// reason for the choice when it is not the plain default; goWhy() says why
// the default is the fastest Go path when it is (called after paths()). An
// unknown setting is an error, and the default is taken.
func choosePath(want string, paths func() []*blasPath, goWhy func() string) (*blasPath, string, error) {
	want = strings.TrimSpace(want)
	var err error
	switch want {
	case "", "auto":
	case "go":
		return goPaths[0], envBLAS + "=go", nil
	default:
		var names []string
		for _, p := range paths() {
			if p.name == want {
				return p, envBLAS + "=" + want, nil
			}
			names = append(names, p.name)
		}
		err = fmt.Errorf("tensor: %s=%q: want auto, go or one of the paths available here: %s", envBLAS, want, strings.Join(names, ", "))
	}
	p := paths()[0]
	if p == goPaths[0] {
		return p, goWhy(), err
	}
	return p, "", err
}

// allPaths returns every available path in order of preference, loading
// the BLAS library on first use.
func allPaths() []*blasPath {
	blasState.libOnce.Do(func() {
		blasState.lib, blasState.libLast, blasState.goWhy, blasState.libErr = loadLib(os.Getenv(envBLASLib))
	})
	switch {
	case blasState.lib == nil:
		return goPaths
	case blasState.libLast:
		return append(goPaths[:1:1], append([]*blasPath{blasState.lib}, goPaths[1:]...)...)
	}
	return append([]*blasPath{blasState.lib}, goPaths...)
}

// avx512Cores are the OpenBLAS kernel families (openblas_get_corename,
// lower case) whose sgemm uses AVX-512.
var avx512Cores = []string{"skylakex", "cooperlake", "sapphirerapids"}

// ranksLast says whether an OpenBLAS found by searching should rank after
// the fastest Go path (fastestGo), and why: when its kernels for this CPU
// do not use AVX-512 although the CPU has it (go-avx512 runs). With
// Haswell kernels, measured on one core of this machine (thread CPU time),
// OpenBLAS's layer step ran at 98 GFLOP/s and go-avx512's at 157, and
// with OPENBLAS_CORETYPE=SkylakeX the two multiply alike. OpenBLAS 0.3.21
// chooses Cooperlake (AVX-512) on this Zen 5 by itself; it ran Haswell
// kernels here because the environment held OPENBLAS_CORETYPE=Haswell,
// which OpenBLAS obeys, so the reason names that setting when present.
func ranksLast(lib *blaslib.Lib, fastestGo string) (bool, string) {
	if !lib.OpenBLAS || fastestGo != "go-avx512" || slices.Contains(avx512Cores, strings.ToLower(lib.Core)) {
		return false, ""
	}
	return true, fmt.Sprintf("preferred to OpenBLAS, whose %s kernels%s leave this CPU's AVX-512 unused; GTFORMER_BLAS=openblas-runtime takes OpenBLAS", lib.Core, coreTypeNote())
}

// coreTypeNote says, for messages about OpenBLAS's kernels, that they were
// set by OPENBLAS_CORETYPE rather than chosen for the CPU, when that
// variable is set: a forgotten OPENBLAS_CORETYPE=Haswell in the
// environment cost OpenBLAS a quarter of its embedding speed on an
// AVX-512 CPU (850 docs/s against 1090), with nothing else to show why.
func coreTypeNote() string {
	if ct, ok := os.LookupEnv("OPENBLAS_CORETYPE"); ok {
		return " (set by OPENBLAS_CORETYPE=" + ct + ")"
	}
	return ""
}

// loadLib loads the named library (GTFORMER_BLAS_LIB), or else searches
// for OpenBLAS. last says that the library ranks after the fastest Go path
// (ranksLast; never for a library named by the user), and goWhy why the
// default is then a Go path: no library, or last's reason. err is set only
// when a named library does not load.
func loadLib(name string) (p *blasPath, last bool, goWhy string, err error) {
	var lib *blaslib.Lib
	switch {
	case name != "":
		lib, err = blaslib.Open(name)
		if err != nil {
			return nil, false, envBLASLib + " did not load", fmt.Errorf("tensor: %s: %w", envBLASLib, err)
		}
	case !blaslib.Supported:
		return nil, false, "this build does not load OpenBLAS", nil
	default:
		lib, err = blaslib.Find()
		if err != nil {
			return nil, false, "no OpenBLAS found", nil
		}
		last, goWhy = ranksLast(lib, goPaths[0].name)
	}
	// One OpenBLAS thread per call: sgemm splits large products over the
	// cores itself (splitPath), and attention runs one small product per
	// (batch, head) on each core. Measured here, OpenBLAS's own threads
	// idle by spinning in sched_yield after every call, taking a core from
	// the Go element-wise passes between products, and with the Go side's
	// workers they would oversubscribe the cores.
	lib.SetThreads(1)
	kind, what := "openblas-runtime", lib.Config+coreTypeNote()
	if !lib.OpenBLAS {
		kind, what = "blas-runtime", "BLAS library"
	}
	from := lib.Path
	if lib.Path != lib.Name {
		from += " (" + lib.Name + ")"
	}
	return splitPath(kind, what+", loaded at run time from "+from, lib.Sgemm, 0), last, goWhy, nil
}

// kernelPath runs the package's own sgemm with kernel kn; in parallel mode
// the kernel's tasks go to parallelFor's workers.
func kernelPath(kn *gemm.Kernel) *blasPath {
	what := map[string]string{"go-avx512": "AVX-512", "go-avx2": "AVX2+FMA"}[kn.Name()]
	return &blasPath{
		name:   kn.Name(),
		source: "pure-Go packed sgemm with the " + what + " assembly micro-kernel",
		gemm: func(parallel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
			if parallel {
				kn.Sgemm(gemmParallel, numWorkers(), tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
				return
			}
			kn.Sgemm(nil, 1, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		},
	}
}

func gemmParallel(n, cost int, fn func(lo, hi int)) { parallelFor(n, 1, cost, fn) }

// gonumPath is gonum's pure-Go BLAS, for CPUs without the package's
// kernels. Its Sgemm goes parallel by itself from 2×2 blocks of 64, so
// serial calls are cut into 64-row slices.
var gonumPath = splitPath("gonum", "gonum's pure-Go blas32 (gonum.org/v1/gonum/blas/gonum)", func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gonum.Implementation{}.Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}, 64)

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// splitPath runs a library's single-threaded sgemm: in parallel mode,
// large products are split into row or column blocks of C, one call each,
// spread by parallelFor, so the Go side owns all threading. serialRows > 0
// cuts serial calls into slices of that many rows (for a library that
// would go parallel on larger ones); 0 means no limit. The arguments are
// checked first as the package's own kernels check them (a C library
// would read and write out of bounds), so every path panics alike on a
// programmer's error.
func splitPath(name, source string, serial sgemmFunc, serialRows int) *blasPath {
	return &blasPath{name: name, source: source, gemm: func(parallel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		gemm.CheckArgs(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		if m == 0 || n == 0 {
			return
		}
		if k == 0 {
			// BLAS would just scale C; keep that behaviour without a call.
			for i := range m {
				row := c[i*ldc : i*ldc+n]
				if beta == 0 {
					clear(row)
					continue
				}
				for j := range row {
					row[j] *= beta
				}
			}
			return
		}
		if parallel {
			splitGemm(serial, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			return
		}
		step := m
		if serialRows > 0 && n > serialRows {
			step = serialRows
		}
		for lo := 0; lo < m; lo += step {
			ao := lo * lda
			if tA {
				ao = lo
			}
			serial(tA, tB, min(step, m-lo), n, k, alpha, a[ao:], lda, b, ldb, beta, c[lo*ldc:], ldc)
		}
	}}
}

// splitGemm spreads one product over the cores as blocks of C.
func splitGemm(serial sgemmFunc, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	const grain = 64
	if m*n*k < 1<<21 || (m < 2*grain && n < 2*grain) {
		serial(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Two blocks per core: each block repacks the whole other operand, so
	// fewer, larger blocks measured faster (1024³ with OpenBLAS: 204
	// GFLOP/s with 4 blocks, 193 with 8, OpenBLAS's own two threads 208),
	// while two per core still lets a core slowed by other load hand over a
	// block.
	blocks := 2 * numWorkers()
	if m >= n {
		g := max(grain, (m+blocks*grain-1)/(blocks*grain)*grain)
		parallelFor(m, g, 2*n*k, func(lo, hi int) {
			ao := lo * lda // rows lo… of op(A)
			if tA {
				ao = lo // columns lo… of the stored k×m matrix
			}
			serial(tA, tB, hi-lo, n, k, alpha, a[ao:], lda, b, ldb, beta, c[lo*ldc:], ldc)
		})
		return
	}
	g := max(grain, (n+blocks*grain-1)/(blocks*grain)*grain)
	parallelFor(n, g, 2*m*k, func(lo, hi int) {
		bo := lo // columns lo… of op(B)
		if tB {
			bo = lo * ldb // rows lo… of the stored n×k matrix
		}
		serial(tA, tB, m, hi-lo, k, alpha, a, lda, b[bo:], ldb, beta, c[lo:], ldc)
	})
}

// sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices with
// leading dimensions lda, ldb, ldc (op(A) is m×k, op(B) is k×n), spread
// over the cores when large. With beta = 0, C is not read.
func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	activeBLAS().gemm(true, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemmSerial is sgemm on the calling goroutine only, for callers that
// already run one product per core (attention heads, batched products).
func sgemmSerial(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	activeBLAS().gemm(false, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices with leading dimensions lda, ldb, ldc (op(A) is m×k, op(B) is
// k×n, op = transpose when tA or tB), on the BLAS path in use and spread
// over the cores as the tape's products are. For code outside the tape
// that multiplies plain slices (blocked distance computations in metrics
// and evaluate).
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// AddScaled adds a·x to y (y[i] += a·x[i], x as long as y) for plain
// slices, each product rounded before its add as a scalar float32 loop
// rounds it, in vector lanes where the CPU has AVX2: for code outside the
// tape that accumulates weighted rows (the model's tf-idf bag of the
// [CLS] start), as Gemm is for products.
func AddScaled(y, x []float32, a float32) { vec.AddScaled(y, x, a) }
