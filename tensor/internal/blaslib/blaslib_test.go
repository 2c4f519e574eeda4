//go:build linux && (amd64 || arm64) && !nodlopen

package blaslib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebitengine/purego"

	"github.com/gtformer/gtformer/tensor/internal/gemm"
)

// openBLAS finds OpenBLAS, or skips saying so; where it must be installed
// (CI sets GTFORMER_REQUIRE_OPENBLAS=1) its absence fails the test.
func openBLAS(t *testing.T) *Lib {
	t.Helper()
	l, err := Find()
	if err != nil {
		if os.Getenv("GTFORMER_REQUIRE_OPENBLAS") == "1" {
			t.Fatalf("GTFORMER_REQUIRE_OPENBLAS=1: %v", err)
		}
		t.Skipf("%v (CI installs libopenblas-dev and requires it)", err)
	}
	return l
}

func TestFind(t *testing.T) {
	l := openBLAS(t)
	if !l.OpenBLAS || !strings.HasPrefix(l.Config, "OpenBLAS ") || l.Core == "" || !strings.Contains(l.Config, l.Core) {
		t.Errorf("OpenBLAS %v, config %q, core %q", l.OpenBLAS, l.Config, l.Core)
	}
	if !filepath.IsAbs(l.Path) {
		t.Errorf("path %q of %s: want the file the loader mapped", l.Path, l.Name)
	} else if _, err := os.Stat(l.Path); err != nil {
		t.Errorf("path %q: %v", l.Path, err)
	}
	// Opening the mapped file by path gives the same library.
	l2, err := Open(l.Path)
	if err != nil || l2.Path != l.Path || !l2.OpenBLAS {
		t.Errorf("Open(%q) = %+v, %v", l.Path, l2, err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"/nonexistent/libnothing.so", "loading /nonexistent/libnothing.so: "},
		{"libc.so.6", "libc.so.6 has neither sgemm_ nor cblas_sgemm: not a BLAS library"},
	} {
		if l, err := Open(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, %v; want an error saying %q", tc.name, l, err, tc.want)
		}
	}
}

// TestCheckConfig: an OpenBLAS built with 64-bit integers is refused with
// an error naming the library; the usual builds pass.
func TestCheckConfig(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64", ""},
		{"OpenBLAS 0.3.26  USE64BITINT DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64", "/opt/lib/libopenblas.so is an OpenBLAS with 64-bit integers"},
	} {
		err := checkConfig("/opt/lib/libopenblas.so", tc.config)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.config, err, tc.want)
		}
	}
}

// TestSgemm checks the library's product through both bindings (Fortran
// sgemm_ with the row-major to column-major swap, and cblas_sgemm as used
// for libraries without sgemm_) against a naive loop, over transposes,
// strides, scalars and odd sizes.
func TestSgemm(t *testing.T) {
	l := openBLAS(t)
	l.SetThreads(1)
	p, err := purego.Dlsym(l.handle, "cblas_sgemm")
	if err != nil {
		t.Fatal(err)
	}
	cb := *l
	cb.sgemm = 0
	purego.RegisterFunc(&cb.cblasSgemm, p)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lib := range []struct {
		name string
		l    *Lib
	}{{"sgemm_", l}, {"cblas_sgemm", &cb}} {
		for _, s := range [][3]int{{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {100, 3, 40}, {2, 90, 31}, {4, 6, 0}} {
			for ti := range 4 {
				tA, tB := ti&1 != 0, ti&2 != 0
				m, n, k := s[0], s[1], s[2]
				alpha, beta := float32(1), float32(0)
				if ti >= 2 {
					alpha, beta = -0.5, 2
				}
				ar, ac := gemm.Stored(tA, m, k)
				br, bc := gemm.Stored(tB, k, n)
				lda, ldb, ldc := ac+ti, bc+2*ti, n+3
				a, b, c := randSlice(rng, ar*lda), randSlice(rng, br*ldb), randSlice(rng, m*ldc)
				opA := func(i, p int) float64 {
					if tA {
						return float64(a[p*lda+i])
					}
					return float64(a[i*lda+p])
				}
				opB := func(p, j int) float64 {
					if tB {
						return float64(b[j*ldb+p])
					}
					return float64(b[p*ldb+j])
				}
				got := append([]float32(nil), c...)
				lib.l.Sgemm(tA, tB, m, n, k, alpha, a, max(lda, 1), b, max(ldb, 1), beta, got, ldc)
				what := fmt.Sprintf("%s m=%d n=%d k=%d tA=%v tB=%v", lib.name, m, n, k, tA, tB)
				for i := range m {
					for j := range ldc {
						want := float64(c[i*ldc+j]) // past column n: untouched
						if j < n {
							var s float64
							for p := range k {
								s += opA(i, p) * opB(p, j)
							}
							want = float64(alpha)*s + float64(beta)*want
						}
						if d := math.Abs(float64(got[i*ldc+j]) - want); d > 1e-4*math.Max(1, math.Abs(want)) || math.IsNaN(d) {
							t.Fatalf("%s: C[%d][%d] = %v, want %v", what, i, j, got[i*ldc+j], want)
						}
					}
				}
			}
		}
	}
}

// TestSgemmAllocatesNothing: the sgemm_ call path (every product of
// training) allocates nothing.
func TestSgemmAllocatesNothing(t *testing.T) {
	l := openBLAS(t)
	a, b, c := make([]float32, 64), make([]float32, 64), make([]float32, 64)
	if n := testing.AllocsPerRun(100, func() { l.Sgemm(false, true, 8, 8, 8, 1, a, 8, b, 8, 0, c, 8) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}
