package tsne

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// rowEntropy is -Σ p log p over the row without the diagonal, computed
// directly from the probabilities (independently of calibrateRow's shifted
// formula).
func rowEntropy(row []float64, self int) (h, sum float64) {
	for j, p := range row {
		if j == self || p == 0 {
			continue
		}
		h -= p * math.Log(p)
		sum += p
	}
	return h, sum
}

func TestCalibrateRowRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n          int
		scale      float64 // distance scale, to exercise large and tiny β
		perplexity float64
	}{
		{50, 1, 5},
		{50, 1e4, 30},
		{200, 1e-3, 30},
		{200, 1, 150},
		{10, 1, 1.5},
	} {
		row := make([]float64, tc.n)
		for j := range row {
			row[j] = tc.scale * rng.ExpFloat64()
		}
		d := append([]float64(nil), row...)
		self := tc.n / 3
		beta, _ := calibrateRow(row, self, math.Log(tc.perplexity))
		h, sum := rowEntropy(row, self)
		if math.Abs(math.Exp(h)-tc.perplexity) > 1e-4*tc.perplexity {
			t.Errorf("n=%d scale=%g: perplexity %g, want %g", tc.n, tc.scale, math.Exp(h), tc.perplexity)
		}
		if math.Abs(sum-1) > 1e-12 || row[self] != 0 {
			t.Errorf("n=%d: row sums to %g, diagonal %g", tc.n, sum, row[self])
		}
		// Gaussian form: p_j / p_k = exp(-β (d_j - d_k)).
		j, k := (self+1)%tc.n, (self+2)%tc.n
		if got, want := math.Log(row[j]/row[k]), -beta*(d[j]-d[k]); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("n=%d: log p_j/p_k = %g, want -β Δd = %g", tc.n, got, want)
		}
	}
}

// TestCalibrateRowClosedForm plants β* in a row with k neighbours at distance
// a and m at distance b. With Δ = b − a and e = exp(−β Δ), the conditional
// distribution is p_near = 1/(k + m e), p_far = e/(k + m e), and its entropy
//
//	H(β) = log(k + m e) + β Δ m e / (k + m e)
//
// is monotone in β, so the perplexity exp(H(β*)) must give back β*.
func TestCalibrateRowClosedForm(t *testing.T) {
	H := func(beta float64, k, m int, delta float64) float64 {
		e := math.Exp(-beta * delta)
		s := float64(k) + float64(m)*e
		return math.Log(s) + beta*delta*float64(m)*e/s
	}
	for _, tc := range []struct {
		k, m     int
		a, b     float64
		betaStar float64
	}{
		{3, 20, 1, 2, 1.5},
		{5, 5, 0, 10, 0.05},
		{1, 99, 4, 4.5, 3},
		{10, 40, 100, 300, 0.004},
	} {
		n := tc.k + tc.m + 1
		row := make([]float64, n)
		for j := 1; j <= tc.k; j++ {
			row[j] = tc.a
		}
		for j := tc.k + 1; j < n; j++ {
			row[j] = tc.b
		}
		delta := tc.b - tc.a
		target := H(tc.betaStar, tc.k, tc.m, delta)
		beta, _ := calibrateRow(row, 0, target)
		if got := H(beta, tc.k, tc.m, delta); math.Abs(got-target) > entropyTol {
			t.Errorf("%+v: H(β) = %.8f, want %.8f", tc, got, target)
		}
		if math.Abs(beta-tc.betaStar) > 1e-3*tc.betaStar {
			t.Errorf("%+v: β = %g, want %g", tc, beta, tc.betaStar)
		}
		e := math.Exp(-tc.betaStar * delta)
		if want := 1 / (float64(tc.k) + float64(tc.m)*e); math.Abs(row[1]-want) > 1e-4*want {
			t.Errorf("%+v: p_near = %g, want %g", tc, row[1], want)
		}
	}
}

func TestJointAffinities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 40, 6
	x := randn(rng, n*d, 1)
	P := make([]float64, n*n)
	sqDistances(P, x, n, d, 2)
	jointAffinities(P, n, 10, 2)
	var sum float64
	for i := 0; i < n; i++ {
		if P[i*n+i] != 0 {
			t.Fatalf("P[%d,%d] = %g, want 0", i, i, P[i*n+i])
		}
		for j := 0; j < n; j++ {
			sum += P[i*n+j]
			if P[i*n+j] != P[j*n+i] || P[i*n+j] < 0 {
				t.Fatalf("P not symmetric non-negative at (%d,%d)", i, j)
			}
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("P sums to %g, want 1", sum)
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func randn(rng *rand.Rand, k int, scale float64) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// TestGradientFiniteDifferences checks the analytic gradient against central
// differences of KL(P‖Q) (exag = 1) and of bhtsne's exaggerated objective
// −α Σ p log w + log Z, in 2-D (the specialised loop) and 3-D (the general
// one).
func TestGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 9, 4
	x := randn(rng, n*d, 1)
	P := make([]float64, n*n)
	sqDistances(P, x, n, d, 1)
	jointAffinities(P, n, 3, 1)
	for _, dims := range []int{2, 3} {
		for _, exag := range []float64{1, 12} {
			Y := randn(rng, n*dims, 1)
			objective := func() float64 {
				kl := klDivergence(P, Y, n, dims)
				if exag == 1 {
					return kl
				}
				// KL = Σ p log p − Σ p log w + log Z (Σ p = 1); rebuild
				// −α Σ p log w + log Z from its parts.
				var plogp, plogw float64
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						p := P[i*n+j]
						if i == j || p == 0 {
							continue
						}
						s := 1.0
						for c := 0; c < dims; c++ {
							t := Y[i*dims+c] - Y[j*dims+c]
							s += t * t
						}
						plogp += p * math.Log(p)
						plogw -= p * math.Log(s)
					}
				}
				logZ := kl - plogp + plogw
				return -exag*plogw + logZ
			}
			g := newGradient(n, dims)
			grad := make([]float64, n*dims)
			g.compute(grad, P, Y, exag, 1)
			const h = 1e-6
			var maxErr float64
			for k := range Y {
				y := Y[k]
				Y[k] = y + h
				fp := objective()
				Y[k] = y - h
				fm := objective()
				Y[k] = y
				fd := (fp - fm) / (2 * h)
				err := math.Abs(fd-grad[k]) / math.Max(1e-3, math.Abs(fd))
				maxErr = math.Max(maxErr, err)
			}
			t.Logf("dims=%d exag=%g: max relative error %.2g", dims, exag, maxErr)
			if maxErr > 1e-5 {
				t.Errorf("dims=%d exag=%g: gradient differs from finite differences by %.2g", dims, exag, maxErr)
			}
		}
	}
}

// clusters plants k Gaussian clusters of m points each in d dimensions, with
// centres drawn at scale sep and unit within-cluster spread.
func clusters(seed uint64, k, m, d int, sep float64) (x []float64, labels []int) {
	rng := rand.New(rand.NewPCG(seed, 0))
	for c := 0; c < k; c++ {
		centre := randn(rng, d, sep)
		for i := 0; i < m; i++ {
			for _, v := range centre {
				x = append(x, v+rng.NormFloat64())
			}
			labels = append(labels, c)
		}
	}
	return x, labels
}

// knnAccuracy is the leave-one-out k-nearest-neighbour accuracy of the
// layout Y (n, dims) (majority vote, ties to the smallest label).
func knnAccuracy(Y []float64, n, dims int, labels []int, k int) float64 {
	correct := 0
	type nb struct {
		d float64
		j int
	}
	for i := 0; i < n; i++ {
		nbs := make([]nb, 0, n-1)
		for j := 0; j < n; j++ {
			if j != i {
				nbs = append(nbs, nb{sqDist(Y, i, j, dims), j})
			}
		}
		sort.Slice(nbs, func(a, b int) bool { return nbs[a].d < nbs[b].d })
		votes := map[int]int{}
		for _, v := range nbs[:k] {
			votes[labels[v.j]]++
		}
		best, bestVotes := -1, 0
		for l, v := range votes {
			if v > bestVotes || (v == bestVotes && l < best) {
				best, bestVotes = l, v
			}
		}
		if best == labels[i] {
			correct++
		}
	}
	return float64(correct) / float64(n)
}

func sqDist(Y []float64, i, j, dims int) float64 {
	var s float64
	for c := 0; c < dims; c++ {
		t := Y[i*dims+c] - Y[j*dims+c]
		s += t * t
	}
	return s
}

// silhouette is the mean silhouette coefficient (Rousseeuw 1987) with
// Euclidean distances: s_i = (b_i − a_i) / max(a_i, b_i).
func silhouette(Y []float64, n, dims int, labels []int, k int) float64 {
	var total float64
	for i := 0; i < n; i++ {
		sum := make([]float64, k)
		cnt := make([]int, k)
		for j := 0; j < n; j++ {
			if j != i {
				sum[labels[j]] += math.Sqrt(sqDist(Y, i, j, dims))
				cnt[labels[j]]++
			}
		}
		a := sum[labels[i]] / float64(cnt[labels[i]])
		b := math.Inf(1)
		for c := 0; c < k; c++ {
			if c != labels[i] {
				b = math.Min(b, sum[c]/float64(cnt[c]))
			}
		}
		total += (b - a) / math.Max(a, b)
	}
	return total / float64(n)
}

// TestPlantedClusters: four well-separated Gaussian clusters in 50-D must
// come out as separated clusters in 2-D.
func TestPlantedClusters(t *testing.T) {
	const k, m, d = 4, 50, 50
	x, labels := clusters(7, k, m, d, 3)
	n := k * m
	// Sanity check that the input is clustered but not trivially (a random
	// 2-D projection would not separate it).
	res, err := Embed(x, n, d, Config{Seed: 1, Perplexity: 20})
	if err != nil {
		t.Fatal(err)
	}
	acc := knnAccuracy(res.Y, n, 2, labels, 5)
	sil := silhouette(res.Y, n, 2, labels, k)
	t.Logf("5-NN accuracy %.3f, silhouette %.3f, KL %.3f", acc, sil, res.KL)
	if acc < 0.95 {
		t.Errorf("5-NN accuracy of the map %.3f < 0.95", acc)
	}
	if sil < 0.5 {
		t.Errorf("silhouette of the map %.3f < 0.5", sil)
	}
	// The optimisation must have lowered the objective from the initial
	// layout's.
	Y0 := randn(rand.New(rand.NewPCG(1, 0)), n*2, initScale)
	P := make([]float64, n*n)
	sqDistances(P, x, n, d, 1)
	jointAffinities(P, n, 20, 1)
	if kl0 := klDivergence(P, Y0, n, 2); res.KL >= kl0/2 {
		t.Errorf("KL %g not well below the initial layout's %g", res.KL, kl0)
	}
}

// TestDeterministic: same seed, same bits whatever the worker count; another
// seed, another layout; the distance-matrix entry point gives the same
// layout as the coordinate one.
func TestDeterministic(t *testing.T) {
	x, _ := clusters(8, 3, 30, 10, 3)
	n, d := 90, 10
	cfg := Config{Seed: 42, Iterations: 300, Perplexity: 10}
	run := func(c Config) []float64 {
		res, err := Embed(x, n, d, c)
		if err != nil {
			t.Fatal(err)
		}
		return res.Y
	}
	c1, c4 := cfg, cfg
	c1.Workers, c4.Workers = 1, 4
	a, b := run(c1), run(c4)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("1 and 4 workers differ at %d: %v vs %v", i, a[i], b[i])
		}
	}
	c5 := c4
	c5.Seed = 43
	if c := run(c5); c[0] == a[0] {
		t.Errorf("seeds 42 and 43 gave the same first coordinate %v", c[0])
	}
	D := make([]float64, n*n)
	sqDistances(D, x, n, d, 1)
	res, err := EmbedDistances(D, n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != res.Y[i] {
			t.Fatalf("EmbedDistances differs from Embed at %d", i)
		}
	}
	x32 := make([]float32, len(x))
	for i, v := range x {
		x32[i] = float32(v)
	}
	if r32, err := Embed32(x32, n, d, cfg); err != nil || len(r32.Y) != n*2 {
		t.Fatalf("Embed32: %v", err)
	}
}

func TestThreeDims(t *testing.T) {
	x, labels := clusters(9, 3, 30, 20, 3)
	res, err := Embed(x, 90, 20, Config{Seed: 1, Dims: 3, Perplexity: 10, Iterations: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Y) != 270 || res.Dims != 3 {
		t.Fatalf("shape %d×%d", res.N, res.Dims)
	}
	if acc := knnAccuracy(res.Y, 90, 3, labels, 5); acc < 0.95 {
		t.Errorf("3-D map 5-NN accuracy %.3f < 0.95", acc)
	}
}

func TestErrors(t *testing.T) {
	x := make([]float64, 20*3)
	for i := range x {
		x[i] = float64(i % 7)
	}
	nan := append([]float64(nil), x...)
	nan[5] = math.NaN()
	D := make([]float64, 10*10)
	D[3] = -1
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"shape", func() error { _, err := Embed(x, 20, 4, Config{}); return err }, "n×d"},
		{"nan", func() error { _, err := Embed(nan, 20, 3, Config{Perplexity: 5}); return err }, "row 1 column 2"},
		{"too few", func() error { _, err := Embed(x[:6], 2, 3, Config{}); return err }, "at least 3"},
		{"perplexity", func() error { _, err := Embed(x, 20, 3, Config{}); return err }, "perplexity 30"},
		{"perplexity<1", func() error { _, err := Embed(x, 20, 3, Config{Perplexity: 0.5}); return err }, "perplexity 0.5"},
		{"rate", func() error { _, err := Embed(x, 20, 3, Config{Perplexity: 5, LearningRate: -1}); return err }, "learning rate"},
		{"exaggeration", func() error { _, err := Embed(x, 20, 3, Config{Perplexity: 5, EarlyExaggeration: 0.5}); return err }, "exaggeration"},
		{"dist shape", func() error { _, err := EmbedDistances(D[:90], 10, Config{}); return err }, "n²"},
		{"dist negative", func() error { _, err := EmbedDistances(D, 10, Config{Perplexity: 3}); return err }, "(0, 3)"},
	} {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want mention of %q", tc.name, err, tc.want)
		}
	}
}

// TestGradient2DMatchesGeneral checks the 2-D specialised loop against the
// general one over many row chunks, and that the gradient does not depend on
// the number of workers.
func TestGradient2DMatchesGeneral(t *testing.T) {
	rng := newRand(11)
	n, d := 537, 5
	x := randn(rng, n*d, 1)
	P := make([]float64, n*n)
	sqDistances(P, x, n, d, 2)
	jointAffinities(P, n, 30, 2)
	Y := randn(rng, n*2, 3)
	ref := newGradient(n, 2)
	ref.rowsN(P, Y, 0, n)
	var want []float64
	for _, workers := range []int{1, 2, 5} {
		g := newGradient(n, 2)
		grad := make([]float64, n*2)
		g.compute(grad, P, Y, 1, workers)
		for i := 0; i < n; i++ {
			if math.Abs(g.z[i]-ref.z[i]) > 1e-12*ref.z[i] {
				t.Fatalf("z[%d] = %g, general loop %g", i, g.z[i], ref.z[i])
			}
			for c := 0; c < 2; c++ {
				k := 2*i + c
				if math.Abs(g.attr[k]-ref.attr[k]) > 1e-12 || math.Abs(g.rep[k]-ref.rep[k]) > 1e-9 {
					t.Fatalf("row %d: attr %g rep %g, general loop %g %g", i, g.attr[k], g.rep[k], ref.attr[k], ref.rep[k])
				}
			}
		}
		if want == nil {
			want = grad
			continue
		}
		for k := range grad {
			if grad[k] != want[k] {
				t.Fatalf("%d workers: gradient differs from 1 worker at %d", workers, k)
			}
		}
	}
}
