package features

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lowRank returns a sparse-ish n×v matrix of rank ≈ r plus small noise, as
// CSR and dense, with a clear gap after the r-th singular value.
func lowRank(n, v, r int, seed uint64) (CSR, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := mat.NewDense(n, v, nil)
	for k := 0; k < r; k++ {
		u := make([]float64, n)
		w := make([]float64, v)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		for j := range w {
			if rng.IntN(3) == 0 {
				w[j] = rng.NormFloat64()
			}
		}
		s := float64(10 * (r - k))
		for i := 0; i < n; i++ {
			for j := 0; j < v; j++ {
				a.Set(i, j, a.At(i, j)+s*u[i]*w[j])
			}
		}
	}
	x := CSR{Ptr: []int64{0}}
	for i := 0; i < n; i++ {
		for j := 0; j < v; j++ {
			val := a.At(i, j) + 0.01*rng.NormFloat64()
			a.Set(i, j, val)
			x.Idx = append(x.Idx, int32(j))
			x.Val = append(x.Val, float32(val))
		}
		x.Ptr = append(x.Ptr, int64(len(x.Idx)))
	}
	return x, a
}

// TestLSAMatchesSVD: the randomized basis spans the exact SVD's top right
// singular vectors (every exact vector lies in the basis's span to 1e-3).
func TestLSAMatchesSVD(t *testing.T) {
	for _, tc := range []struct{ n, v, r, dim int }{
		{60, 40, 5, 5}, {200, 30, 8, 8}, {50, 120, 4, 4}, {40, 25, 3, 6},
	} {
		x, a := lowRank(tc.n, tc.v, tc.r, uint64(tc.n))
		docs := make([]int32, tc.n)
		for i := range docs {
			docs[i] = int32(i)
		}
		b, err := LSA(x, docs, tc.v, tc.dim, 7)
		if err != nil {
			t.Fatal(err)
		}
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDThin) {
			t.Fatal("reference SVD failed")
		}
		var vt mat.Dense
		svd.VTo(&vt)
		for k := 0; k < tc.r; k++ {
			// ‖Rᵀ v_k‖ = 1 when v_k is in the span of R's orthonormal columns.
			var ss float64
			for j := 0; j < b.Dim; j++ {
				var dot float64
				for w := 0; w < tc.v; w++ {
					dot += float64(b.R[w*b.Dim+j]) * vt.At(w, k)
				}
				ss += dot * dot
			}
			if math.Abs(math.Sqrt(ss)-1) > 1e-3 {
				t.Errorf("n=%d v=%d: exact singular vector %d has norm %.5f in the basis's span, want 1", tc.n, tc.v, k, math.Sqrt(ss))
			}
		}
		// Columns orthonormal.
		for i := 0; i < b.Dim; i++ {
			for j := i; j < b.Dim; j++ {
				var dot float64
				for w := 0; w < tc.v; w++ {
					dot += float64(b.R[w*b.Dim+i]) * float64(b.R[w*b.Dim+j])
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(dot-want) > 1e-5 {
					t.Fatalf("columns %d,%d: dot %.6f, want %g", i, j, dot, want)
				}
			}
		}
		again, _ := LSA(x, docs, tc.v, tc.dim, 7)
		for i := range b.R {
			if b.R[i] != again.R[i] {
				t.Fatal("same inputs and seed, different basis")
			}
		}
	}
}

// TestPropagate checks hops on a path 0–1–2 plus an isolated 3 against the
// closed form.
func TestPropagate(t *testing.T) {
	z0 := []float32{
		1, 0,
		0, 1,
		1, 1,
		3, 4,
	}
	nb := map[int32][]int32{0: {1}, 1: {0, 2}, 2: {1}}
	f := Propagate(z0, 2, 2, func(d int32) []int32 { return nb[d] })
	s2 := float32(1 / math.Sqrt2)
	// Hop 1: 0: (1,1)/√2; 1: (2,2)/√8 = (1,1)/√2; 2: (1,2)/√5; 3: itself.
	// Hop 2: 0: mean of hop-1 rows 0,1 ∝ (1,1); 1: rows 0,1,2 ∝ (√2+1/√5, √2+2/√5); 3: itself.
	h1 := []float32{s2, s2, s2, s2, float32(1 / math.Sqrt(5)), float32(2 / math.Sqrt(5)), 3, 4}
	a, b := math.Sqrt2+1/math.Sqrt(5), math.Sqrt2+2/math.Sqrt(5)
	nrm := math.Hypot(a, b)
	for i := 0; i < 4; i++ {
		row := f[i*6 : (i+1)*6]
		if row[0] != z0[i*2] || row[1] != z0[i*2+1] {
			t.Errorf("row %d hop 0 = %v, want %v", i, row[:2], z0[i*2:i*2+2])
		}
		want := h1[i*2 : i*2+2]
		if i == 3 {
			want = []float32{0.6, 0.8}
		}
		for j := 0; j < 2; j++ {
			if math.Abs(float64(row[2+j]-want[j])) > 1e-6 {
				t.Errorf("row %d hop 1 = %v, want %v", i, row[2:4], want)
			}
		}
	}
	if got := f[1*6+4 : 1*6+6]; math.Abs(float64(got[0])-a/nrm) > 1e-6 || math.Abs(float64(got[1])-b/nrm) > 1e-6 {
		t.Errorf("row 1 hop 2 = %v, want (%.6f, %.6f)", got, a/nrm, b/nrm)
	}
	if got := f[3*6+4 : 3*6+6]; got[0] != 0.6 || got[1] != 0.8 {
		t.Errorf("isolated row hop 2 = %v, want its own normalised row", got)
	}
}

func TestProjectNormalises(t *testing.T) {
	x, _ := lowRank(30, 20, 3, 2)
	docs := make([]int32, 30)
	for i := range docs {
		docs[i] = int32(i)
	}
	b, err := LSA(x, docs, 20, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := b.Project(CSR{Ptr: append(x.Ptr, x.Ptr[len(x.Ptr)-1]), Idx: x.Idx, Val: x.Val}) // plus one empty row
	for i := 0; i < 31; i++ {
		var ss float64
		for _, v := range p[i*4 : (i+1)*4] {
			ss += float64(v) * float64(v)
		}
		want := 1.0
		if i == 30 {
			want = 0
		}
		if math.Abs(ss-want) > 1e-5 {
			t.Errorf("row %d has squared norm %.6f, want %g", i, ss, want)
		}
	}
}

// TestWithout: with nothing dropped it reproduces Propagate's row; with a
// neighbour dropped, hop 1 is the mean over the rest, and later hops
// aggregate d's own corrected rows with its other neighbours' full rows.
func TestWithout(t *testing.T) {
	z0 := []float32{1, 0, 0, 1, 1, 1, 3, 4}
	nb := map[int32][]int32{0: {1, 2}, 1: {0, 2}, 2: {0, 1, 3}, 3: {2}}
	nbrs := func(d int32) []int32 { return nb[d] }
	f := Propagate(z0, 2, 2, nbrs)
	out := make([]float32, 6)
	Without(f, 2, 2, 2, nb[2], nil, out)
	for j, v := range out {
		if math.Abs(float64(v-f[2*6+j])) > 1e-6 {
			t.Fatalf("nothing dropped: %v, Propagate's row %v", out, f[12:18])
		}
	}
	Without(f, 2, 2, 2, nb[2], []int32{3}, out)
	// Hop 1 of document 2 without 3: mean of z0 rows 2, 0, 1 ∝ (2, 2).
	s2 := float32(1 / math.Sqrt2)
	if math.Abs(float64(out[2]-s2)) > 1e-6 || math.Abs(float64(out[3]-s2)) > 1e-6 {
		t.Errorf("hop 1 without document 3 = %v, want (%.4f, %.4f)", out[2:4], s2, s2)
	}
	// Hop 2: corrected hop 1 of 2 plus the full hop-1 rows of 0 and 1.
	var a, b float64 = float64(out[2]), float64(out[3])
	for _, n := range []int{0, 1} {
		a += float64(f[n*6+2])
		b += float64(f[n*6+3])
	}
	nrm := math.Hypot(a, b)
	if math.Abs(float64(out[4])-a/nrm) > 1e-6 || math.Abs(float64(out[5])-b/nrm) > 1e-6 {
		t.Errorf("hop 2 without document 3 = %v, want (%.6f, %.6f)", out[4:6], a/nrm, b/nrm)
	}
}

// TestPadded: a basis padded with zero columns projects every row to the
// unpadded projection followed by zeros; padding to its own width or less
// is the basis itself.
func TestPadded(t *testing.T) {
	x, _ := lowRank(12, 20, 3, 5)
	docs := make([]int32, 12)
	for i := range docs {
		docs[i] = int32(i)
	}
	b, err := LSA(x, docs, 20, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Padded(4) != b || b.Padded(2) != b {
		t.Error("padding to the basis's own width or less made a new basis")
	}
	p := b.Padded(7)
	if p.Dim != 7 || p.V != b.V {
		t.Fatalf("padded basis is %d × %d, want %d × 7", p.V, p.Dim, b.V)
	}
	got, want := p.Project(x), b.Project(x)
	for i := 0; i < 12; i++ {
		for j := 0; j < 7; j++ {
			w := float32(0)
			if j < 4 {
				w = want[i*4+j]
			}
			if got[i*7+j] != w {
				t.Fatalf("row %d column %d: %g, want %g", i, j, got[i*7+j], w)
			}
		}
	}
}

// TestPropagateNearLarge: on a random graph large enough for the levels
// to be spread over the cores (2,000 known documents, 150 new ones linked
// to them and to each other), PropagateNear's rows equal Propagate's over
// the extended graph bit for bit, on one core and on several.
func TestPropagateNearLarge(t *testing.T) {
	const known, added, m, hops = 2000, 150, 16, 2
	n := known + added
	rng := rand.New(rand.NewPCG(8, 9))
	lists := make([][]int32, n)
	link := func(a, b int32) {
		if a != b && !slices.Contains(lists[a], b) {
			lists[a] = append(lists[a], b)
			lists[b] = append(lists[b], a)
		}
	}
	for range 3 * known {
		link(int32(rng.IntN(known)), int32(rng.IntN(known)))
	}
	baseLists := make([][]int32, known)
	for d := range known {
		baseLists[d] = slices.Sorted(slices.Values(lists[d]))
	}
	for d := known; d < n; d++ {
		for range 1 + rng.IntN(5) {
			if rng.IntN(4) == 0 && d > known {
				link(int32(d), int32(known+rng.IntN(d-known)))
			} else {
				link(int32(d), int32(rng.IntN(known)))
			}
		}
	}
	for _, l := range lists {
		slices.Sort(l)
	}
	z0 := make([]float32, n*m)
	for i := range z0 {
		z0[i] = float32(rng.NormFloat64())
	}
	nbrs := func(d int32) []int32 { return lists[d] }
	want := Propagate(z0, m, hops, nbrs)
	baseF := Propagate(z0[:known*m], m, hops, func(d int32) []int32 { return baseLists[d] })
	docs := make([]int32, 0, 400)
	for d := known - 250; d < n; d++ {
		docs = append(docs, int32(d))
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	w := (hops + 1) * m
	for _, p := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(p)
		got := PropagateNear(baseF, known, z0[known*m:], m, hops, nbrs, docs)
		for i, d := range docs {
			if !slices.Equal(got[i*w:(i+1)*w], want[int(d)*w:int(d+1)*w]) {
				t.Fatalf("%d cores, document %d: rows differ from Propagate's", p, d)
			}
		}
	}
}

// TestPropagateNear: the rows PropagateNear gives equal Propagate's over
// the extended graph bit for bit. The base graph is a path 0-1-…-9 with a
// chord 2-6 and an isolated document 9 (links undirected, lists sorted, as
// corpus.Graph keeps them); random Z₀ rows, three hops.
func TestPropagateNear(t *testing.T) {
	const known, m, hops = 10, 3, 3
	base := [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {2, 6}}
	lists := func(n int, links [][2]int32) [][]int32 {
		l := make([][]int32, n)
		for _, p := range links {
			l[p[0]] = append(l[p[0]], p[1])
			l[p[1]] = append(l[p[1]], p[0])
		}
		for _, r := range l {
			slices.Sort(r)
		}
		return l
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rows := func(n int) []float32 {
		z := make([]float32, n*m)
		for i := range z {
			z[i] = float32(rng.NormFloat64())
		}
		return z
	}
	for _, tc := range []struct {
		name  string
		added int        // new documents 10, 11, …
		links [][2]int32 // each with a new end
	}{
		{"one new document linked to a corpus document", 1, [][2]int32{{10, 0}}},
		{"a new document links to another new one", 2, [][2]int32{{10, 4}, {11, 10}}},
		{"a new document without links", 1, nil},
		{"a new document reaches the chord", 1, [][2]int32{{10, 6}, {10, 8}}},
		{"a new document links to the isolated one", 1, [][2]int32{{10, 9}}},
		{"mixed: linked, chained, unlinked", 4, [][2]int32{{10, 3}, {11, 10}, {12, 11}, {10, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := known + tc.added
			z0 := rows(n)
			bl := lists(known, base)
			el := lists(n, append(slices.Clone(base), tc.links...))
			want := Propagate(z0, m, hops, func(d int32) []int32 { return el[d] })
			baseF := Propagate(z0[:known*m], m, hops, func(d int32) []int32 { return bl[d] })
			all := make([]int32, n)
			for i := range all {
				all[i] = int32(i)
			}
			// every document, and a subset in another order
			for _, docs := range [][]int32{all, {int32(n - 1), 5, 0, 2}} {
				got := PropagateNear(baseF, known, z0[known*m:], m, hops, func(d int32) []int32 { return el[d] }, docs)
				w := (hops + 1) * m
				for i, d := range docs {
					if !slices.Equal(got[i*w:(i+1)*w], want[int(d)*w:int(d+1)*w]) {
						t.Errorf("document %d: %v, want %v", d, got[i*w:(i+1)*w], want[int(d)*w:int(d+1)*w])
					}
				}
			}
			// A known document within hops links of a new one changes (the
			// links are undirected): the check above is not vacuous.
			if len(tc.links) > 0 {
				c := tc.links[0][1]
				w := (hops + 1) * m
				if slices.Equal(baseF[int(c)*w:int(c+1)*w], want[int(c)*w:int(c+1)*w]) {
					t.Errorf("document %d linked by a new one kept its base features", c)
				}
			}
		})
	}
}

// orthonormalFullQR is the orthonormalisation LSA used before
// orthonormal: mat.QR's full (r, r) Q, sliced to a's c columns. The
// reference for orthonormal and for LSA's basis.
func orthonormalFullQR(a *mat.Dense) *mat.Dense {
	r, c := a.Dims()
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, min(c, r)))
}

// gaussian returns an (r, c) matrix of standard normal entries.
func gaussian(r, c int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 2))
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	return a
}

// TestOrthonormalMatchesFullQR: the thin Q equals the full QR's first
// columns bit for bit, through LAPACK's unblocked path (few columns) and
// its blocked one (more than 128 columns, as LSA's 128 + 10 at the default
// width), tall and square, and its columns are orthonormal.
func TestOrthonormalMatchesFullQR(t *testing.T) {
	for _, tc := range []struct{ r, c int }{
		{1, 1}, {7, 3}, {50, 10}, {138, 138}, {600, 138}, {1500, 138}, {400, 200},
	} {
		a := gaussian(tc.r, tc.c, uint64(tc.r*1000+tc.c))
		before := mat.DenseCopyOf(a)
		got, want := orthonormal(a), orthonormalFullQR(a)
		if !mat.Equal(a, before) {
			t.Fatalf("%d×%d: orthonormal changed its argument", tc.r, tc.c)
		}
		if r, c := got.Dims(); r != tc.r || c != tc.c {
			t.Fatalf("%d×%d: Q is %d×%d", tc.r, tc.c, r, c)
		}
		for i := 0; i < tc.r; i++ {
			for j := 0; j < tc.c; j++ {
				if g, w := got.At(i, j), want.At(i, j); g != w {
					t.Fatalf("%d×%d: Q[%d,%d] = %v, the full QR's %v", tc.r, tc.c, i, j, g, w)
				}
			}
		}
		var qtq mat.Dense
		qtq.Mul(got.T(), got)
		for i := 0; i < tc.c; i++ {
			for j := 0; j < tc.c; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(qtq.At(i, j)-want) > 1e-12 {
					t.Fatalf("%d×%d: (QᵀQ)[%d,%d] = %g, want %g", tc.r, tc.c, i, j, qtq.At(i, j), want)
				}
			}
		}
	}
}

// TestLSAMatchesFullQRPath: LSA's basis, and the hop features projected
// and propagated on it, are those of the full-QR path it replaced, bit for
// bit, at the default width (128 columns plus 10 oversampled: LAPACK's
// blocked path) and a small one, on all documents and on an evenly spaced
// subset.
func TestLSAMatchesFullQRPath(t *testing.T) {
	const n, v = 400, 300
	x, _ := lowRank(n, v, 20, 11)
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	var some []int32
	for i := int32(0); i < n; i += 2 {
		some = append(some, i)
	}
	// A ring with chords: neighbours i±1 and i+7.
	nbrs := func(d int32) []int32 {
		return []int32{(d + n - 1) % n, (d + 1) % n, (d + 7) % n}
	}
	for _, tc := range []struct {
		name string
		docs []int32
		dim  int
	}{
		{"default width, all documents", all, 128},
		{"default width, every other document", some, 128},
		{"width 16", all, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LSA(x, tc.docs, v, tc.dim, 3)
			if err != nil {
				t.Fatal(err)
			}
			want, err := lsa(x, tc.docs, v, tc.dim, 3, orthonormalFullQR)
			if err != nil {
				t.Fatal(err)
			}
			if got.Dim != want.Dim || !slices.Equal(got.R, want.R) {
				t.Fatalf("basis (%d×%d) differs from the full-QR path's (%d×%d)", got.V, got.Dim, want.V, want.Dim)
			}
			fg := Propagate(got.Project(x), got.Dim, 3, nbrs)
			fw := Propagate(want.Project(x), want.Dim, 3, nbrs)
			if !slices.Equal(fg, fw) {
				t.Fatal("hop features differ from the full-QR path's")
			}
		})
	}
}
