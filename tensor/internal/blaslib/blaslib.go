//go:build linux && (amd64 || arm64) && !nodlopen

package blaslib

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Supported says whether this build can load libraries at all.
const Supported = true

// Candidates are the libraries Find tries, in order: OpenBLAS under its
// own names (Debian/Ubuntu's libopenblas0, Fedora's pthread and OpenMP
// variants), then the generic BLAS names that Debian's alternatives system
// (update-alternatives) may point at OpenBLAS.
var Candidates = []string{
	"libopenblas.so.0", "libopenblas.so", "libopenblasp.so.0", "libopenblaso.so.0",
	"libblas.so.3", "libcblas.so.3",
}

// Lib is a loaded BLAS library.
type Lib struct {
	// Name is what was asked for (a soname such as libopenblas.so.0 or a
	// path); Path is the file the dynamic loader mapped for it, when
	// /proc/self/maps tells, else Name.
	Name, Path string
	// OpenBLAS is set when the library is OpenBLAS (it exports
	// openblas_get_config); Config is then that function's answer, e.g.
	// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64",
	// and Core the kernel family it chose for this CPU
	// (openblas_get_corename: "Haswell", "SkylakeX", …).
	OpenBLAS bool
	Config   string
	Core     string

	handle     uintptr
	sgemm      uintptr // Fortran sgemm_, or 0
	setThreads uintptr // openblas_set_num_threads, or 0
	// cblasSgemm is cblas_sgemm, used only when the library has no sgemm_
	// (ATLAS's libcblas); purego binds it by reflection, which costs more
	// per call than sgemm_'s plain pointer arguments.
	cblasSgemm func(order, transA, transB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
}

// Open loads the named library (a soname the dynamic loader resolves, or a
// path) and binds its sgemm. It fails when the library cannot be loaded or
// has neither sgemm_ nor cblas_sgemm.
func Open(name string) (*Lib, error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("blaslib: loading %s: %w", name, err)
	}
	l := &Lib{Name: name, Path: name, handle: h}
	sym := func(s string) uintptr {
		p, err := purego.Dlsym(h, s)
		if err != nil {
			return 0
		}
		return p
	}
	l.sgemm = sym("sgemm_")
	if l.sgemm == 0 {
		if p := sym("cblas_sgemm"); p != 0 {
			purego.RegisterFunc(&l.cblasSgemm, p)
		} else {
			_ = purego.Dlclose(h)
			return nil, fmt.Errorf("blaslib: %s has neither sgemm_ nor cblas_sgemm: not a BLAS library", name)
		}
	}
	if p := sym("openblas_get_config"); p != 0 {
		var config func() string
		purego.RegisterFunc(&config, p)
		l.OpenBLAS, l.Config = true, strings.TrimSpace(config())
		if err := checkConfig(name, l.Config); err != nil {
			_ = purego.Dlclose(h)
			return nil, err
		}
		if p := sym("openblas_get_corename"); p != 0 {
			var core func() string
			purego.RegisterFunc(&core, p)
			l.Core = strings.TrimSpace(core())
		}
		l.setThreads = sym("openblas_set_num_threads")
	}
	addr := l.sgemm
	if addr == 0 {
		addr = sym("cblas_sgemm")
	}
	if p := mappedFile(addr); p != "" {
		l.Path = p
	}
	return l, nil
}

// checkConfig refuses an OpenBLAS built with 64-bit integers
// (USE64BITINT, "ILP64"): its sgemm_ would read the 32-bit integers this
// package passes as 64-bit ones, and so read and write out of bounds.
// Distributions name such builds libopenblas64_ with suffixed symbols, but
// a library named by the user may have plain names.
func checkConfig(name, config string) error {
	if slices.Contains(strings.Fields(config), "USE64BITINT") {
		return fmt.Errorf("blaslib: %s is an OpenBLAS with 64-bit integers (%q): it needs the 32-bit integer (LP64) build", name, config)
	}
	return nil
}

// Close unloads the library (the dynamic loader keeps it if something else
// still uses it).
func (l *Lib) Close() error { return purego.Dlclose(l.handle) }

// Find returns the first of Candidates that loads and is OpenBLAS. Generic
// BLAS libraries that are not OpenBLAS (the reference BLAS, ATLAS) are
// passed over: the pure-Go kernels beat them. The error lists what was
// tried and why each was not taken.
func Find() (*Lib, error) {
	var why []string
	for _, name := range Candidates {
		l, err := Open(name)
		if err != nil {
			why = append(why, strings.TrimPrefix(err.Error(), "blaslib: ")) // the list carries the prefix once
			continue
		}
		if l.OpenBLAS {
			return l, nil
		}
		why = append(why, fmt.Sprintf("%s (%s) is not OpenBLAS", name, l.Path))
		_ = l.Close()
	}
	return nil, errors.New("blaslib: no OpenBLAS found: " + strings.Join(why, "; "))
}

// SetThreads sets OpenBLAS's own thread count (a no-op for other
// libraries).
func (l *Lib) SetThreads(n int) {
	if l.setThreads != 0 {
		purego.SyscallN(l.setThreads, uintptr(n))
	}
}

// fortranArgs holds sgemm_'s arguments, all passed by reference, and the
// call's argument words; pooled so that a call allocates nothing.
type fortranArgs struct {
	transA, transB         byte
	m, n, k, lda, ldb, ldc int32
	alpha, beta            float32
	words                  [15]uintptr
	ops                    [3]unsafe.Pointer // A, B, C during the call
}

var argPool = sync.Pool{New: func() any { return new(fortranArgs) }}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, with
// the conventions of gemm.Kernel.Sgemm. It does not check its arguments: the
// library would read and write out of bounds, so the caller must
// (gemm.CheckArgs). Dimensions and leading dimensions must fit in int32.
func (l *Lib) Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	for _, v := range [...]int{m, n, k, lda, ldb, ldc} {
		if v > 1<<31-1 {
			panic("blaslib: dimension " + strconv.Itoa(v) + " does not fit the library's 32-bit integers")
		}
	}
	pa, pb, pc := first(a), first(b), first(c)
	if l.sgemm == 0 {
		const rowMajor, noTrans, trans = 101, 111, 112
		op := func(t bool) int32 {
			if t {
				return trans
			}
			return noTrans
		}
		l.cblasSgemm(rowMajor, op(tA), op(tB), int32(m), int32(n), int32(k), alpha, pa, int32(lda), pb, int32(ldb), beta, pc, int32(ldc))
		return
	}
	// Row-major C (m×n) is column-major Cᵀ (n×m) = op(B)ᵀ·op(A)ᵀ, and a
	// row-major matrix is its own transpose read column-major: so the
	// column-major product of B (as given) by A, with the same transpose
	// flags, writes C.
	p := argPool.Get().(*fortranArgs)
	p.transA, p.transB = flag(tB), flag(tA)
	p.m, p.n, p.k = int32(n), int32(m), int32(k)
	p.lda, p.ldb, p.ldc = int32(ldb), int32(lda), int32(ldc)
	p.alpha, p.beta = alpha, beta
	// The argument words are built before the call, as a variadic list
	// built in the call would be allocated on every call. What they point
	// at must then stay put and alive during the call without the help of
	// SyscallN's uintptrescapes: the pooled p is on the heap, and storing
	// the operands' addresses in p.ops moves them to the heap as well (the
	// compiler must assume they outlive the call) and keeps them alive.
	// Go's heap does not move objects, which is what SyscallN itself relies
	// on. (A runtime.Pinner would say the same explicitly, at about 150 ns
	// per call.)
	p.ops = [3]unsafe.Pointer{unsafe.Pointer(pa), unsafe.Pointer(pb), unsafe.Pointer(pc)}
	// The two trailing 1s are the hidden lengths of the character arguments
	// that gfortran-compiled libraries expect; C implementations ignore
	// them.
	p.words = [15]uintptr{
		uintptr(unsafe.Pointer(&p.transA)), uintptr(unsafe.Pointer(&p.transB)),
		uintptr(unsafe.Pointer(&p.m)), uintptr(unsafe.Pointer(&p.n)), uintptr(unsafe.Pointer(&p.k)),
		uintptr(unsafe.Pointer(&p.alpha)), uintptr(unsafe.Pointer(pb)), uintptr(unsafe.Pointer(&p.lda)),
		uintptr(unsafe.Pointer(pa)), uintptr(unsafe.Pointer(&p.ldb)),
		uintptr(unsafe.Pointer(&p.beta)), uintptr(unsafe.Pointer(pc)), uintptr(unsafe.Pointer(&p.ldc)),
		1, 1,
	}
	purego.SyscallN(l.sgemm, p.words[:]...)
	p.ops = [3]unsafe.Pointer{}
	argPool.Put(p)
}

func flag(t bool) byte {
	if t {
		return 'T'
	}
	return 'N'
}

// dummy stands in for an empty operand (k = 0): BLAS does not read it, but
// the call needs a valid address.
var dummy float32

func first(s []float32) *float32 {
	if len(s) == 0 {
		return &dummy
	}
	return &s[0]
}

// mappedFile returns the path of the file mapped at addr in this process,
// from /proc/self/maps, or "" when it cannot tell.
func mappedFile(addr uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && uint64(addr) >= start && uint64(addr) < end {
			return strings.Join(fields[5:], " ")
		}
	}
	return ""
}
