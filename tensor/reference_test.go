package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Fast kernels against naive float64 reference loops.

func closeRel(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); d > tol*math.Max(1, math.Abs(want[i])) || math.IsNaN(d) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func randTensor(rng *rand.Rand, shape ...int) *Tensor {
	x := New(shape...)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestMatMulReference checks every BLAS path against the naive product.
func TestMatMulReference(t *testing.T) {
	forEachPath(t, testMatMulReference)
}

func testMatMulReference(t *testing.T, _ string) {
	rng := rand.New(rand.NewPCG(1, 2))
	tp := NewTape()
	// Large enough for the parallel splits, gonum's blocked path and the
	// kernels' edge tiles.
	for _, d := range [][3]int{{1, 1, 1}, {7, 5, 3}, {130, 70, 65}, {64, 300, 129}, {300, 129, 70}} {
		m, k, n := d[0], d[1], d[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				a, b := randTensor(rng, m, k), randTensor(rng, k, n)
				if tA {
					a = randTensor(rng, k, m)
				}
				if tB {
					b = randTensor(rng, n, k)
				}
				at := func(i, l int) float64 {
					if tA {
						return float64(a.Data[l*m+i])
					}
					return float64(a.Data[i*k+l])
				}
				bt := func(l, j int) float64 {
					if tB {
						return float64(b.Data[j*k+l])
					}
					return float64(b.Data[l*n+j])
				}
				want := make([]float64, m*n)
				for i := range m {
					for j := range n {
						for l := range k {
							want[i*n+j] += at(i, l) * bt(l, j)
						}
					}
				}
				y := tp.MatMul(a, b, tA, tB)
				closeRel(t, fmt.Sprintf("MatMul %v tA=%v tB=%v", d, tA, tB), y.Data, want, 1e-4*math.Sqrt(float64(k)))
			}
		}
	}
}

func TestAttentionReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bs, tq, tk, heads, c := 3, 5, 7, 2, 8
	q, k, v := randTensor(rng, bs, tq, c), randTensor(rng, bs, tk, c), randTensor(rng, bs, tk, c)
	mask := make([]bool, bs*tk)
	for i := range mask {
		mask[i] = rng.IntN(4) != 0
	}
	mask[tk] = true // batch 1 keeps at least one key
	for i := range tk {
		mask[2*tk+i] = false // batch 2: every key masked → zeros
	}
	got := NewTape().Attention(q, k, v, heads, mask)
	d := c / heads
	want := make([]float64, bs*tq*c)
	for b := range bs {
		for h := range heads {
			for i := range tq {
				s := make([]float64, tk)
				mx := math.Inf(-1)
				for j := range tk {
					if !mask[b*tk+j] {
						continue
					}
					for l := range d {
						s[j] += float64(q.Data[(b*tq+i)*c+h*d+l]) * float64(k.Data[(b*tk+j)*c+h*d+l])
					}
					s[j] /= math.Sqrt(float64(d))
					mx = math.Max(mx, s[j])
				}
				var z float64
				for j := range tk {
					if mask[b*tk+j] {
						s[j] = math.Exp(s[j] - mx)
						z += s[j]
					} else {
						s[j] = 0
					}
				}
				for j := range tk {
					if z > 0 {
						s[j] /= z
					}
					for l := range d {
						want[(b*tq+i)*c+h*d+l] += s[j] * float64(v.Data[(b*tk+j)*c+h*d+l])
					}
				}
			}
		}
	}
	closeRel(t, "Attention", got.Data, want, 1e-5)
}

func TestLayerNormReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows, c := 37, 19
	x, g, b := randTensor(rng, rows, c), randTensor(rng, c), randTensor(rng, c)
	for i := range x.Data {
		x.Data[i] = 3 + 5*x.Data[i] // offset and spread: exercises the centring
	}
	got := NewTape().LayerNorm(x, g, b)
	want := make([]float64, rows*c)
	for i := range rows {
		var mu, v float64
		for j := range c {
			mu += float64(x.Data[i*c+j])
		}
		mu /= float64(c)
		for j := range c {
			d := float64(x.Data[i*c+j]) - mu
			v += d * d
		}
		v /= float64(c)
		for j := range c {
			want[i*c+j] = (float64(x.Data[i*c+j])-mu)/math.Sqrt(v+LayerNormEps)*float64(g.Data[j]) + float64(b.Data[j])
		}
	}
	closeRel(t, "LayerNorm", got.Data, want, 1e-5)
}

func TestFastMath(t *testing.T) {
	for x := -90.0; x <= 88.7; x += 0.01 { // e^88.73 overflows float32
		want := math.Exp(x)
		if got := float64(exp32(float32(x))); math.Abs(got-math.Exp(float64(float32(x)))) > 4e-7*want && want > 1e-37 {
			t.Fatalf("exp32(%v) = %v, want %v", x, got, want)
		}
	}
	for x := -12.0; x <= 12; x += 0.001 {
		xf := float64(float32(x))
		if got, want := float64(tanh32(float32(x))), math.Tanh(xf); math.Abs(got-want) > 3e-7*math.Max(math.Abs(want), 1e-30)+1e-9 {
			t.Fatalf("tanh32(%v) = %v, want %v", x, got, want)
		}
		u := math.Sqrt(2/math.Pi) * (xf + 0.044715*xf*xf*xf)
		if got, want := float64(gelu32(float32(x))), 0.5*xf*(1+math.Tanh(u)); math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("gelu32(%v) = %v, want %v", x, got, want)
		}
	}
	if v := exp32(float32(math.NaN())); v == v {
		t.Errorf("exp32(NaN) = %v", v)
	}
	if v := exp32(100); !math.IsInf(float64(v), 1) {
		t.Errorf("exp32(100) = %v", v)
	}
}

func TestSoftmaxRowsSumToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x := randTensor(rng, 50, 33)
	for i := range x.Data {
		x.Data[i] *= 30 // large logits: the max shift must keep exp finite
	}
	y := NewTape().Softmax(x, nil)
	for r := range 50 {
		var s float64
		for _, v := range y.Row(r) {
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Fatalf("row %d sums to %v", r, s)
		}
	}
}

func TestShapePanics(t *testing.T) {
	tp := NewTape()
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Add", func() { tp.Add(New(2, 3), New(3, 2)) }},
		{"MatMul", func() { tp.MatMul(New(2, 3), New(2, 3), false, false) }},
		{"Linear", func() { tp.Linear(New(2, 3), New(4, 2), nil) }},
		{"AddRow", func() { tp.AddRow(New(2, 3), New(2)) }},
		{"AddCol", func() { tp.AddCol(New(2, 3), New(3)) }},
		{"Attention", func() { tp.Attention(New(1, 2, 4), New(1, 3, 4), New(1, 3, 4), 3, nil) }},
		{"Reshape", func() { tp.Reshape(New(2, 3), 4) }},
	} {
		func() {
			defer func() {
				r := recover()
				if msg, ok := r.(string); !ok || len(msg) < len("tensor: ") || msg[:8] != "tensor: " {
					t.Errorf("%s: panic %v, want a tensor: message", c.name, r)
				}
			}()
			c.f()
		}()
	}
}

// TestTapeReuseNoAlloc runs the same step repeatedly on one tape and checks
// that, once warm, no tensor storage is allocated: what remains are the
// closures handed to the parallel helper (a few dozen bytes per op), so the
// bytes per step must stay far below one activation (64×64 floats = 16 KB).
//
// The figure is the least over several windows of steps: on a loaded
// machine a gemm task can be preempted while it holds a packing buffer, so
// more tasks overlap than ever before and the free list grows by one buffer
// (tens of KB, once). That is warm-up arriving late, not a per-step cost; a
// step that allocates storage every time shows in every window.
func TestTapeReuseNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	w := randParam(rng, -1, 1, 64, 64)
	b := randParam(rng, -1, 1, 64)
	g := randParam(rng, -1, 1, 64)
	x := randTensor(rng, 64, 64)
	targets := make([]int32, 64)
	tp := NewTape()
	step := func() {
		tp.Reset()
		h := tp.LayerNorm(tp.Tanh(tp.Linear(x, w, b)), g, nil)
		h = tp.BiasGELU(tp.Attention(tp.Reshape(h, 4, 16, 64), tp.Reshape(h, 4, 16, 64), tp.Reshape(h, 4, 16, 64), 4, nil), b)
		tp.Backward(tp.CrossEntropy(tp.Reshape(h, 64, 64), targets))
	}
	// Warm: the tape's storage, and the gemm free lists, which fill as
	// concurrent tasks first need their packing buffers (how many tasks
	// overlap varies from step to step, so a few steps are not enough when
	// this test runs alone).
	for range 50 {
		step()
	}
	const windows, runs = 8, 20
	minBytes, minAllocs := uint64(math.MaxUint64), uint64(math.MaxUint64)
	for range windows {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			step()
		}
		runtime.ReadMemStats(&after)
		minBytes = min(minBytes, (after.TotalAlloc-before.TotalAlloc)/runs)
		minAllocs = min(minAllocs, (after.Mallocs-before.Mallocs)/runs)
	}
	if minBytes > 2048 {
		t.Errorf("steady-state step allocates %d bytes, want < 2048", minBytes)
	}
	if minAllocs > 30 {
		t.Errorf("steady-state step makes %d allocations, want at most 30", minAllocs)
	}
}

func TestDropoutSeededAndUnbiased(t *testing.T) {
	x := New(100, 100)
	for i := range x.Data {
		x.Data[i] = 1
	}
	const p = 0.3
	a := NewTape().Dropout(x, p, rand.New(rand.NewPCG(4, 4)))
	b := NewTape().Dropout(x, p, rand.New(rand.NewPCG(4, 4)))
	zeros, sum := 0, 0.0
	for i, v := range a.Data {
		if v != b.Data[i] {
			t.Fatalf("element %d differs between equal seeds: %v vs %v", i, v, b.Data[i])
		}
		if v == 0 {
			zeros++
		} else if math.Abs(float64(v)-1/(1-p)) > 1e-6 {
			t.Fatalf("kept element scaled to %v, want %v", v, 1/(1-p))
		}
		sum += float64(v)
	}
	// 10⁴ Bernoulli(0.3) draws: standard deviation of the count is 46.
	if zeros < 3000-230 || zeros > 3000+230 {
		t.Errorf("%d of 10000 dropped, want about 3000", zeros)
	}
	if mean := sum / 1e4; math.Abs(mean-1) > 0.05 {
		t.Errorf("mean after dropout %v, want about 1 (unbiased)", mean)
	}
}

func TestGatherRowsAndReshapeView(t *testing.T) {
	table := FromData([]float32{0, 1, 10, 11, 20, 21}, 3, 2)
	tp := NewTape()
	y := tp.Gather(table, []int32{2, 0, 2})
	want := []float32{20, 21, 0, 1, 20, 21}
	for i := range want {
		if y.Data[i] != want[i] {
			t.Fatalf("Gather = %v, want %v", y.Data, want)
		}
	}
	v := tp.Reshape(y, -1)
	if len(v.Shape) != 1 || v.Shape[0] != 6 || &v.Data[0] != &y.Data[0] {
		t.Fatalf("Reshape(-1) gave %v without sharing data", v.Shape)
	}
}

// TestSoftmaxMaskedLargeLogits: masked positions must get exactly 0 and not
// take part in the normaliser even when the logits are huge.
func TestSoftmaxMaskedLargeLogits(t *testing.T) {
	row := []float32{1e10, 2e10, 1e10, -5, 3, 1e10, 0, 1e10, 1e10, 7}
	mask := []bool{true, false, true, true, true, true, true, true, true, false}
	y := NewTape().Softmax(FromData(row, 1, len(row)), mask)
	for j, v := range y.Data {
		want := float32(0)
		if mask[j] && row[j] == 1e10 {
			want = 0.2 // five kept entries tie at the maximum
		}
		if math.Abs(float64(v-want)) > 1e-6 {
			t.Fatalf("softmax[%d] = %v, want %v (all %v)", j, v, want, y.Data)
		}
	}
}

// TestDropoutSameOnAnyCores: the mask is filled in parallel from one draw
// of the rng, so the same seed gives the same mask on one core and on
// several, for an odd length too (element pairs share a hash), and two
// successive calls draw different masks.
func TestDropoutSameOnAnyCores(t *testing.T) {
	x := New(301, 257)
	for i := range x.Data {
		x.Data[i] = 1
	}
	mask := func(procs int) ([]float32, []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rng := rand.New(rand.NewPCG(7, 7))
		tp := NewTape()
		return slices.Clone(tp.Dropout(x, 0.1, rng).Data), slices.Clone(tp.Dropout(x, 0.1, rng).Data)
	}
	a1, a2 := mask(1)
	b1, b2 := mask(4)
	if !slices.Equal(a1, b1) || !slices.Equal(a2, b2) {
		t.Fatal("dropout masks differ between 1 and 4 cores")
	}
	if slices.Equal(a1, a2) {
		t.Fatal("two successive dropout calls drew the same mask")
	}
}

// TestPackedAttentionReference: packed sequences of different lengths
// (one with a single query, one with no queries, one with no keys) against
// attention over each sequence alone in float64.
func TestPackedAttentionReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	heads, c := 2, 6
	d := c / heads
	tqs, tks := []int{3, 1, 0, 4, 2}, []int{5, 2, 3, 4, 0}
	qOff, kOff := []int{0}, []int{0}
	for i := range tqs {
		qOff = append(qOff, qOff[i]+tqs[i])
		kOff = append(kOff, kOff[i]+tks[i])
	}
	rq, rk := qOff[len(tqs)], kOff[len(tks)]
	q, k, v := randTensor(rng, rq, c), randTensor(rng, rk, c), randTensor(rng, rk, c)
	got := NewTape().PackedAttention(q, k, v, heads, qOff, kOff, nil)
	want := make([]float64, rq*c)
	for s := range tqs {
		for h := range heads {
			for i := qOff[s]; i < qOff[s+1]; i++ {
				w := make([]float64, tks[s])
				var z float64
				for j := range w {
					for l := range d {
						w[j] += float64(q.Data[i*c+h*d+l]) * float64(k.Data[(kOff[s]+j)*c+h*d+l])
					}
					w[j] = math.Exp(w[j] / math.Sqrt(float64(d)))
					z += w[j]
				}
				for j := range w {
					for l := range d {
						want[i*c+h*d+l] += w[j] / z * float64(v.Data[(kOff[s]+j)*c+h*d+l])
					}
				}
			}
		}
	}
	closeRel(t, "PackedAttention", got.Data, want, 1e-5)
	for _, bad := range []func(){
		func() { NewTape().PackedAttention(q, k, v, heads, qOff[:3], kOff, nil) },
		func() { NewTape().PackedAttention(q, k, v, heads, qOff, append([]int{0}, kOff[2:]...), nil) },
		func() { NewTape().PackedAttention(q, k, v, 4, qOff, kOff, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("inconsistent offsets or heads did not panic")
				}
			}()
			bad()
		}()
	}
}

// TestInterleave: rows of two packed tensors alternate sequence by
// sequence, empty pieces included.
func TestInterleave(t *testing.T) {
	a := FromData([]float32{1, 2, 3}, 3, 1)        // sequences: [1], [], [2 3]
	b := FromData([]float32{10, 20, 30, 40}, 4, 1) // sequences: [10 20], [30], [40]
	y := NewTape().Interleave(a, b, []int{0, 1, 1, 3}, []int{0, 2, 3, 4})
	if want := []float32{1, 10, 20, 30, 2, 3, 40}; !slices.Equal(y.Data, want) {
		t.Errorf("Interleave = %v, want %v", y.Data, want)
	}
}

// TestAddDropoutLayerNormIsThePair: the fused op gives, bit for bit, the
// output and input gradients of Dropout then AddLayerNorm drawn from the
// same rng state, on an odd width (element pairs straddle rows).
func TestAddDropoutLayerNormIsThePair(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	run := func(fused bool) (y, dx, dres []float32) {
		x, res := randParam(rng, -1, 1, 37, 9), randParam(rng, -1, 1, 37, 9)
		g, b := randParam(rng, 0, 2, 9), randParam(rng, -1, 1, 9)
		seed := make([]float32, 37*9)
		for i := range seed {
			seed[i] = float32(i%7) - 3
		}
		tp := NewTape()
		drng := rand.New(rand.NewPCG(9, 9))
		var out *Tensor
		if fused {
			out = tp.AddDropoutLayerNorm(x, res, 0.25, drng, g, b)
		} else {
			out = tp.AddLayerNorm(x, tp.Dropout(res, 0.25, drng), g, b)
		}
		tp.BackwardWith(out, seed)
		return slices.Clone(out.Data), x.Grad, res.Grad
	}
	rng = rand.New(rand.NewPCG(2, 3))
	y1, dx1, dr1 := run(true)
	rng = rand.New(rand.NewPCG(2, 3))
	y2, dx2, dr2 := run(false)
	if !slices.Equal(y1, y2) || !slices.Equal(dx1, dx2) || !slices.Equal(dr1, dr2) {
		t.Fatal("AddDropoutLayerNorm differs from Dropout then AddLayerNorm")
	}
	zeros := 0
	for _, v := range dr1 {
		if v == 0 {
			zeros++
		}
	}
	if zeros == 0 || zeros == len(dr1) {
		t.Fatalf("%d of %d branch gradients dropped", zeros, len(dr1))
	}
}

// TestLayerNormRowOrder: LayerNorm, AddLayerNorm and AddDropoutLayerNorm
// give, bit for bit, what the row-at-a-time float32 loop gives (each row's
// sums in column order: the statistics a model's numbers were computed
// with), for every row count modulo the rows the kernel interleaves, with
// and without γ and β, recording or not, on rows whose width is and is not
// a multiple of 8.
func TestLayerNormRowOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []int{37, 40} { // 40: eight rows at once in vector lanes (vec.RowStats8)
		layerNormRowOrder(t, rng, c)
	}
}

func layerNormRowOrder(t *testing.T, rng *rand.Rand, c int) {
	for rows := 1; rows <= 19; rows++ {
		x, res, g, b := randTensor(rng, rows, c), randTensor(rng, rows, c), randTensor(rng, c), randTensor(rng, c)
		for i := range x.Data {
			x.Data[i] = 3 + 5*x.Data[i]
		}
		for _, tc := range []struct {
			name       string
			res, g, b  *Tensor
			drop       float32
			noGrad     bool
			rngSeedKey uint64
		}{
			{"LayerNorm", nil, g, b, 0, true, 0},
			{"LayerNorm without γ, β", nil, nil, nil, 0, false, 0},
			{"AddLayerNorm", res, g, b, 0, true, 0},
			{"AddLayerNorm recording", res, g, b, 0, false, 0},
			{"AddDropoutLayerNorm", res, g, b, 0.3, false, 9},
		} {
			tp := &Tape{NoGrad: tc.noGrad}
			xx := x
			if !tc.noGrad {
				xx = Param("x", rows, c)
				copy(xx.Data, x.Data)
			}
			var got *Tensor
			var mask func(i int) []float32
			switch {
			case tc.res == nil:
				got = tp.LayerNorm(xx, tc.g, tc.b)
			case tc.drop == 0:
				got = tp.AddLayerNorm(xx, tc.res, tc.g, tc.b)
			default:
				r := rand.New(rand.NewPCG(tc.rngSeedKey, 1))
				got = tp.AddDropoutLayerNorm(xx, tc.res, tc.drop, r, tc.g, tc.b)
				spec := newDropSpec("test", tc.drop, rand.New(rand.NewPCG(tc.rngSeedKey, 1)), x)
				mask = func(i int) []float32 {
					m := make([]float32, c)
					spec.row(i, m)
					return m
				}
			}
			for i := range rows {
				row := slices.Clone(x.Data[i*c : (i+1)*c])
				if tc.res != nil {
					var m []float32
					if mask != nil {
						m = mask(i)
					}
					for j := range row {
						if m != nil {
							row[j] += tc.res.Data[i*c+j] * m[j]
						} else {
							row[j] += tc.res.Data[i*c+j]
						}
					}
				}
				var s float32
				for _, v := range row {
					s += v
				}
				mu := s / float32(c)
				var ss float32
				for _, v := range row {
					d := v - mu
					ss += d * d
				}
				r := float32(1 / math.Sqrt(float64(ss/float32(c))+LayerNormEps))
				for j, v := range row {
					h := (v - mu) * r
					if tc.g != nil {
						h = h*tc.g.Data[j] + tc.b.Data[j]
					}
					if w := got.Data[i*c+j]; math.Float32bits(w) != math.Float32bits(h) {
						t.Fatalf("%s, %d rows of %d: row %d column %d = %v, the row loop gives %v", tc.name, rows, c, i, j, w, h)
					}
				}
			}
		}
	}
}

// TestSoftmaxRowBits: the softmax row kernel (vector max and scaling
// where the CPU has them) gives the scalar loop's probabilities bit for
// bit: the maximum found one entry at a time, vec.ExpShiftSum, and each
// exponential multiplied by 1/sum; with and without a mask, for lengths
// with and without a tail past the last eight.
func TestSoftmaxRowBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 1; n <= 70; n++ {
		for _, masked := range []bool{false, true} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 4)
			}
			var m []bool
			if masked {
				m = make([]bool, n)
				for i := range m {
					m[i] = i == 0 || rng.IntN(3) > 0
				}
			}
			want := make([]float32, n)
			mx := float32(math.Inf(-1))
			for j, v := range x {
				if (m == nil || m[j]) && v > mx {
					mx = v
				}
			}
			src := x
			if m != nil {
				src = slices.Clone(x)
				for j := range src {
					if !m[j] {
						src[j] = float32(math.Inf(-1))
					}
				}
			}
			s := vec.ExpShiftSum(want, src, mx)
			inv := 1 / s
			for j := range want {
				if m != nil && !m[j] {
					want[j] = 0
				}
				want[j] *= inv
			}
			got := make([]float32, n)
			lse := softmaxRow(got, x, m)
			for j := range got {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("n=%d masked %v: probability %d = %v, the scalar loop gives %v", n, masked, j, got[j], want[j])
				}
			}
			if w := mx + float32(math.Log(float64(s))); lse != w {
				t.Fatalf("n=%d masked %v: log-sum-exp %v, want %v", n, masked, lse, w)
			}
		}
	}
}

// TestGatherSumBits: GatherSum gives Add(Gather(a), Gather(b)) bit for bit,
// forward and the tables' gradients, with repeated indices.
func TestGatherSumBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ia, ib := []int32{3, 0, 3, 5, 1, 3, 2}, []int32{0, 1, 2, 0, 1, 2, 0}
	seed := make([]float32, len(ia)*13)
	for i := range seed {
		seed[i] = float32(rng.NormFloat64())
	}
	run := func(fused bool) []float32 {
		a, b := randParam(rand.New(rand.NewPCG(1, 2)), -1, 1, 6, 13), randParam(rand.New(rand.NewPCG(3, 4)), -1, 1, 3, 13)
		tp := NewTape()
		var y *Tensor
		if fused {
			y = tp.GatherSum(a, ia, b, ib)
		} else {
			y = tp.Add(tp.Gather(a, ia), tp.Gather(b, ib))
		}
		tp.BackwardWith(y, seed)
		return slices.Concat(y.Data, a.Grad, b.Grad)
	}
	got, want := run(true), run(false)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d (output, then dA, dB): %v, the two gathers and the sum give %v", i, got[i], want[i])
		}
	}
}

// TestGradsZeroedAtBackward: activations' gradients are zeroed as the
// backward pass starts, not as the forward pass allocates them, so a tape
// reused after a step (its gradient buffers dirty) gives the gradients of
// a fresh tape bit for bit, through Backward and BackwardWith.
func TestGradsZeroedAtBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	w := randParam(rng, -1, 1, 48, 48)
	g := randParam(rng, -1, 1, 48)
	x1, x2 := randTensor(rng, 3000, 48), randTensor(rng, 3000, 48)
	targets := make([]int32, 3000)
	run := func(tp *Tape, x *Tensor, with bool) []float32 {
		w.ZeroGrad()
		g.ZeroGrad()
		h := tp.LayerNorm(tp.GELU(tp.Linear(x, w, nil)), g, nil)
		h = tp.Linear(h, w, nil)
		if with {
			seed := make([]float32, len(h.Data))
			for i := range seed {
				seed[i] = float32(i%7) - 3
			}
			tp.BackwardWith(h, seed)
		} else {
			tp.Backward(tp.CrossEntropy(h, targets))
		}
		return append(append([]float32(nil), w.Grad...), g.Grad...)
	}
	for _, with := range []bool{false, true} {
		want := run(NewTape(), x2, with)
		tp := NewTape()
		run(tp, x1, with)
		tp.Reset()
		got := run(tp, x2, with)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("BackwardWith %v: gradient %d on a reused tape %v, fresh %v", with, i, got[i], want[i])
			}
		}
	}
}
