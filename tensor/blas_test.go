package tensor

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/tensor/internal/blaslib"
)

// forEachPath runs f with each available BLAS path in use, restoring the
// path in use afterwards.
func forEachPath(t *testing.T, f func(t *testing.T, name string)) {
	t.Helper()
	active := BLASName()
	defer func() {
		if err := UseBLAS(active); err != nil {
			t.Fatal(err)
		}
	}()
	for _, name := range BLASPaths() {
		if err := UseBLAS(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { f(t, name) })
	}
}

func TestChoosePath(t *testing.T) {
	lib := &blasPath{name: "openblas-runtime"}
	withLib := func() []*blasPath { return append([]*blasPath{lib}, goPaths...) }
	withoutLib := func() []*blasPath { return goPaths }
	for _, tc := range []struct {
		name, want string
		paths      func() []*blasPath
		noLib      string
		path, why  string
		err        string
	}{
		{"default takes the library", "", withLib, "", "openblas-runtime", "", ""},
		{"auto likewise", " auto ", withLib, "", "openblas-runtime", "", ""},
		{"no library: the fastest Go path, saying why", "", withoutLib, "no OpenBLAS found", goPaths[0].name, "no OpenBLAS found", ""},
		{"go skips the library", "go", withLib, "", goPaths[0].name, "GTFORMER_BLAS=go", ""},
		{"a path by name", "gonum", withLib, "", "gonum", "GTFORMER_BLAS=gonum", ""},
		{"the library by name", "openblas-runtime", withLib, "", "openblas-runtime", "GTFORMER_BLAS=openblas-runtime", ""},
		{"an unknown name: error, and the default", "fastest", withLib, "", "openblas-runtime", "", `GTFORMER_BLAS="fastest": want auto, go or one of the paths available here: openblas-runtime, `},
		{"a missing library by name: error", "openblas-runtime", withoutLib, "no OpenBLAS found", goPaths[0].name, "no OpenBLAS found", `GTFORMER_BLAS="openblas-runtime"`},
	} {
		p, why, err := choosePath(tc.want, tc.paths, func() string { return tc.noLib })
		if p.name != tc.path || why != tc.why {
			t.Errorf("%s: path %s (%q), want %s (%q)", tc.name, p.name, why, tc.path, tc.why)
		}
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestUseBLAS: switching paths and back restores what BLASName and
// BLASSource say; an unknown name is an error that leaves the path alone.
func TestUseBLAS(t *testing.T) {
	name, source := BLASName(), BLASSource()
	for _, p := range BLASPaths() {
		if err := UseBLAS(p); err != nil || BLASName() != p {
			t.Fatalf("UseBLAS(%s): %v, now %s", p, err, BLASName())
		}
	}
	if err := UseBLAS("fastest"); err == nil || !strings.Contains(err.Error(), `"fastest" is not available here`) {
		t.Errorf("UseBLAS(fastest) = %v", err)
	}
	if err := UseBLAS(name); err != nil || BLASName() != name || BLASSource() != source {
		t.Errorf("back to %s: %v, now %s (%s)", name, err, BLASName(), BLASSource())
	}
}

// TestLoadLibErrors: a library named by GTFORMER_BLAS_LIB that does not
// load, or is not a BLAS, is an error naming it.
func TestLoadLibErrors(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"/nonexistent/libnothing.so", "loading /nonexistent/libnothing.so"},
		{"libc.so.6", "libc.so.6 has neither sgemm_ nor cblas_sgemm"},
	} {
		if !blaslib.Supported && tc.name == "libc.so.6" {
			continue // nothing loads in this build: the first case covers it
		}
		p, _, why, err := loadLib(tc.name)
		if p != nil || err == nil || !strings.HasPrefix(err.Error(), "tensor: GTFORMER_BLAS_LIB: ") || !strings.Contains(err.Error(), tc.want) || why == "" {
			t.Errorf("%s: path %v, why %q, error %v; want an error saying %q", tc.name, p, why, err, tc.want)
		}
	}
}

// TestRanksLast: an OpenBLAS whose kernels ignore the CPU's AVX-512 ranks
// after go-avx512; one that uses it, another library, or a CPU without
// AVX-512 (the fastest Go path go-avx2 or gonum) keeps the library first.
func TestRanksLast(t *testing.T) {
	for _, tc := range []struct {
		lib       blaslib.Lib
		fastestGo string
		last      bool
	}{
		{blaslib.Lib{OpenBLAS: true, Core: "Haswell"}, "go-avx512", true},
		{blaslib.Lib{OpenBLAS: true, Core: "Zen"}, "go-avx512", true},
		{blaslib.Lib{OpenBLAS: true, Core: "SkylakeX"}, "go-avx512", false},
		{blaslib.Lib{OpenBLAS: true, Core: "COOPERLAKE"}, "go-avx512", false},
		{blaslib.Lib{OpenBLAS: true, Core: "Haswell"}, "go-avx2", false},
		{blaslib.Lib{OpenBLAS: true, Core: "Haswell"}, "gonum", false},
		{blaslib.Lib{}, "go-avx512", false},
	} {
		last, why := ranksLast(&tc.lib, tc.fastestGo)
		if last != tc.last || last != (why != "") || last && !strings.Contains(why, tc.lib.Core) {
			t.Errorf("%+v with %s: last %v (%q), want %v", tc.lib, tc.fastestGo, last, why, tc.last)
		}
	}
}

// TestOpenBLASFound: where OpenBLAS is installed (CI installs it and sets
// GTFORMER_REQUIRE_OPENBLAS=1), the run-time path exists, says where it was
// loaded from, and is the default unless ranksLast put go-avx512 first,
// which the default's reason then says.
func TestOpenBLASFound(t *testing.T) {
	if !slices.Contains(BLASPaths(), "openblas-runtime") {
		if os.Getenv("GTFORMER_REQUIRE_OPENBLAS") == "1" {
			t.Fatalf("GTFORMER_REQUIRE_OPENBLAS=1 but no OpenBLAS was found (paths: %v)", BLASPaths())
		}
		t.Skipf("no OpenBLAS on this machine (paths: %v); CI installs it and requires it", BLASPaths())
	}
	p := blasState.lib
	if !strings.Contains(p.source, "OpenBLAS") || !strings.Contains(p.source, "loaded at run time from /") {
		t.Errorf("source %q does not say which OpenBLAS and from which file", p.source)
	}
	d, why, err := choosePath("", allPaths, func() string { return blasState.goWhy })
	want := "openblas-runtime"
	if blasState.libLast {
		want = "go-avx512"
		if !strings.Contains(why, "preferred to OpenBLAS") {
			t.Errorf("default %s without the reason (%q)", d.name, why)
		}
	}
	if err != nil || d.name != want {
		t.Errorf("default path %s (%v), want %s", d.name, err, want)
	}
	t.Logf("default %s (%s); OpenBLAS: %s", d.name, why, p.source)
}

// TestPathsAgree runs a network that reaches sgemm through every caller
// (MatMul with transposes, Linear with bias, BatchedMatMul, attention's
// per-head products; large enough for the parallel splits, with odd
// sizes) on every available path: twice on each, bit-identical (same
// inputs, same numbers), and across paths equal to float32 rounding.
func TestPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const B, T, C, H = 4, 67, 96, 4
	x := randParam(rng, -1, 1, B, T, C)
	w1 := randParam(rng, -0.2, 0.2, C, 3*C+5)
	b1 := randParam(rng, -0.2, 0.2, 3*C+5)
	w2 := randParam(rng, -0.2, 0.2, 3*C+5, C)
	u := randParam(rng, -0.5, 0.5, B, C, 33)
	params := []*Tensor{x, w1, b1, w2, u}
	step := func() []float32 {
		for _, p := range params {
			p.ZeroGrad()
		}
		tp := NewTape()
		a := tp.Attention(x, x, x, H, nil)
		m := tp.Linear(tp.BiasGELU(tp.Linear(a, w1, nil), b1), w2, nil) // (B,T,C)
		g := tp.MatMul(m, m, true, false)                               // (C,C): mᵀm over the B·T rows
		bm := tp.BatchedMatMul(m, u, false, false)                      // (B,T,33)
		y := tp.Add(tp.Sum(tp.Tanh(g)), tp.Sum(tp.Square(bm)))
		tp.Backward(y)
		out := append([]float32(nil), y.Data...)
		for _, p := range params {
			out = append(out, p.Grad...)
		}
		return out
	}
	results := map[string][]float32{}
	forEachPath(t, func(t *testing.T, name string) {
		r1, r2 := step(), step()
		for i := range r1 {
			if math.Float32bits(r1[i]) != math.Float32bits(r2[i]) {
				t.Fatalf("value %d: %v, then %v: the same path is not repeatable", i, r1[i], r2[i])
			}
		}
		results[name] = r1
	})
	ref := results[BLASPaths()[0]]
	scale := 0.0
	for _, v := range ref {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for name, r := range results {
		worst := 0.0
		for i := range r {
			d := math.Abs(float64(r[i] - ref[i]))
			if math.IsNaN(d) || d > 1e-4*math.Max(math.Abs(float64(ref[i])), 1e-2*scale) {
				t.Fatalf("%s: value %d = %v, %s %v", name, i, r[i], BLASPaths()[0], ref[i])
			}
			worst = math.Max(worst, d/math.Max(math.Abs(float64(ref[i])), 1e-2*scale))
		}
		t.Logf("%s vs %s: largest relative difference %.2g", name, BLASPaths()[0], worst)
	}
}

// TestRanksLastNamesCoreType: when OPENBLAS_CORETYPE chose OpenBLAS's
// kernels, the reason says so (it, not the CPU, made them Haswell).
func TestRanksLastNamesCoreType(t *testing.T) {
	t.Setenv("OPENBLAS_CORETYPE", "Haswell")
	if _, why := ranksLast(&blaslib.Lib{OpenBLAS: true, Core: "Haswell"}, "go-avx512"); !strings.Contains(why, "OPENBLAS_CORETYPE=Haswell") {
		t.Errorf("with OPENBLAS_CORETYPE=Haswell: why %q does not name it", why)
	}
	os.Unsetenv("OPENBLAS_CORETYPE") // t.Setenv restores it afterwards
	if _, why := ranksLast(&blaslib.Lib{OpenBLAS: true, Core: "Haswell"}, "go-avx512"); strings.Contains(why, "OPENBLAS_CORETYPE") {
		t.Errorf("without OPENBLAS_CORETYPE: why %q names it", why)
	}
}
