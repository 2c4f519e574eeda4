package tsne

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/gtformer/gtformer/internal/parallel"
)

// Config holds the t-SNE parameters. The zero value of each field selects the
// reference implementation's default, so Config{Seed: s} is a complete
// configuration.
type Config struct {
	// Dims is the output dimension (default 2).
	Dims int
	// Perplexity is the effective number of neighbours each input point
	// spreads its affinity over (default 30). It must be at least 1 and less
	// than N−1.
	Perplexity float64
	// Iterations is the number of gradient steps (default 1000).
	Iterations int
	// LearningRate is η for the true gradient (default max(N/(4·12), 50);
	// see the package documentation for why this matches bhtsne's 200).
	LearningRate float64
	// EarlyExaggeration multiplies P during the first ExaggerationIters
	// iterations (default 12). Set it to 1 to switch exaggeration off.
	EarlyExaggeration float64
	// ExaggerationIters is how long P stays exaggerated (default 250).
	ExaggerationIters int
	// MomentumSwitch is the iteration at which momentum goes from 0.5 to 0.8
	// (default 250).
	MomentumSwitch int
	// Seed seeds the initial layout; the same seed and input give the same
	// output, bit for bit, whatever the number of workers.
	Seed uint64
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int
}

// Result is a finished embedding.
type Result struct {
	// Y holds the coordinates, row-major (N, Dims), centred at the origin.
	Y []float64
	// N and Dims give the shape of Y.
	N, Dims int
	// KL is the final KL(P‖Q), the objective t-SNE minimises (without
	// exaggeration); lower is a more faithful layout.
	KL float64
}

// Reference-implementation constants (bhtsne, tsne.cpp).
const (
	initialMomentum = 0.5
	finalMomentum   = 0.8
	minGain         = 0.01
	initScale       = 1e-4 // standard deviation of the initial layout
	// entropyTol is the bisection tolerance on a row's entropy in nats.
	entropyTol = 1e-5
	// maxBisect caps the bisection; with doubling/halving it covers β over
	// 2^±200, far beyond any distance scale met in practice.
	maxBisect = 200
)

func (c Config) withDefaults(n int) Config {
	if c.Dims == 0 {
		c.Dims = 2
	}
	if c.Perplexity == 0 {
		c.Perplexity = 30
	}
	if c.Iterations == 0 {
		c.Iterations = 1000
	}
	if c.EarlyExaggeration == 0 {
		c.EarlyExaggeration = 12
	}
	if c.ExaggerationIters == 0 {
		c.ExaggerationIters = 250
	}
	if c.MomentumSwitch == 0 {
		c.MomentumSwitch = 250
	}
	if c.LearningRate == 0 {
		c.LearningRate = math.Max(float64(n)/(4*c.EarlyExaggeration), 50)
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

func (c Config) validate(n int) error {
	switch {
	case n < 3:
		return fmt.Errorf("tsne: need at least 3 points, got %d", n)
	case c.Dims < 1:
		return fmt.Errorf("tsne: output dimension %d < 1", c.Dims)
	case !(c.Perplexity >= 1) || c.Perplexity >= float64(n-1):
		return fmt.Errorf("tsne: perplexity %g outside [1, N-1) for N = %d points", c.Perplexity, n)
	case c.Iterations < 0:
		return fmt.Errorf("tsne: negative iteration count %d", c.Iterations)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("tsne: learning rate %g must be positive and finite", c.LearningRate)
	case !(c.EarlyExaggeration >= 1) || math.IsInf(c.EarlyExaggeration, 0):
		return fmt.Errorf("tsne: early exaggeration %g must be ≥ 1 and finite", c.EarlyExaggeration)
	case c.ExaggerationIters < 0 || c.MomentumSwitch < 0:
		return errors.New("tsne: negative iteration schedule")
	}
	return nil
}

// Embed lays out n points given as a row-major (n, d) matrix x.
func Embed(x []float64, n, d int, cfg Config) (*Result, error) {
	if n < 0 || d < 1 || len(x) != n*d {
		return nil, fmt.Errorf("tsne: input has %d values, not n×d = %d×%d", len(x), n, d)
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tsne: input row %d column %d is %g", k/d, k%d, v)
		}
	}
	cfg = cfg.withDefaults(n)
	if err := cfg.validate(n); err != nil {
		return nil, err
	}
	dist := make([]float64, n*n)
	sqDistances(dist, x, n, d, cfg.Workers)
	return run(dist, n, cfg)
}

// Embed32 is Embed for float32 input, as produced by the model's embedding
// tables. Distances are computed in float64.
func Embed32(x []float32, n, d int, cfg Config) (*Result, error) {
	x64 := make([]float64, len(x))
	for i, v := range x {
		x64[i] = float64(v)
	}
	return Embed(x64, n, d, cfg)
}

// EmbedDistances lays out n points given by their (n, n) row-major matrix of
// squared distances (for hyperbolic embeddings: squared geodesic distances).
// Row i defines the input affinities p_{j|i}; the diagonal is ignored. The
// matrix is not modified.
func EmbedDistances(sqDist []float64, n int, cfg Config) (*Result, error) {
	if n < 0 || len(sqDist) != n*n {
		return nil, fmt.Errorf("tsne: distance matrix has %d values, not n² = %d²", len(sqDist), n)
	}
	for k, v := range sqDist {
		if k/n == k%n {
			continue
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tsne: squared distance (%d, %d) is %g, want finite and ≥ 0", k/n, k%n, v)
		}
	}
	cfg = cfg.withDefaults(n)
	if err := cfg.validate(n); err != nil {
		return nil, err
	}
	return run(append([]float64(nil), sqDist...), n, cfg)
}

// run turns the squared distances in buf (n, n) into joint affinities in
// place and optimises the layout.
func run(buf []float64, n int, cfg Config) (*Result, error) {
	jointAffinities(buf, n, cfg.Perplexity, cfg.Workers)
	P := buf
	dims := cfg.Dims

	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	Y := make([]float64, n*dims)
	for i := range Y {
		Y[i] = initScale * rng.NormFloat64()
	}
	g := newGradient(n, dims)
	grad := make([]float64, n*dims)
	update := make([]float64, n*dims)
	gains := make([]float64, n*dims)
	for i := range gains {
		gains[i] = 1
	}
	for it := 0; it < cfg.Iterations; it++ {
		exag := 1.0
		if it < cfg.ExaggerationIters {
			exag = cfg.EarlyExaggeration
		}
		momentum := initialMomentum
		if it >= cfg.MomentumSwitch {
			momentum = finalMomentum
		}
		g.compute(grad, P, Y, exag, cfg.Workers)
		for k := range Y {
			// Grow the gain while the gradient keeps pointing against the
			// running update (progress in a consistent direction), shrink it
			// when they agree in sign (overshoot). Signs as in bhtsne, where
			// sign(0) = 0, so the first step grows every gain.
			if sign(grad[k]) != sign(update[k]) {
				gains[k] += 0.2
			} else {
				gains[k] *= 0.8
			}
			if gains[k] < minGain {
				gains[k] = minGain
			}
			update[k] = momentum*update[k] - cfg.LearningRate*gains[k]*grad[k]
			Y[k] += update[k]
		}
		center(Y, n, dims)
	}
	for _, v := range Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tsne: layout diverged (learning rate %g too large?)", cfg.LearningRate)
		}
	}
	return &Result{Y: Y, N: n, Dims: dims, KL: klDivergence(P, Y, n, dims)}, nil
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// center subtracts the column means of Y (n, dims), as bhtsne does after every
// step: the objective is translation invariant and this keeps Y bounded.
func center(Y []float64, n, dims int) {
	for c := 0; c < dims; c++ {
		var s float64
		for i := 0; i < n; i++ {
			s += Y[i*dims+c]
		}
		m := s / float64(n)
		for i := 0; i < n; i++ {
			Y[i*dims+c] -= m
		}
	}
}

// sqDistances fills dist (n, n) with squared Euclidean distances between the
// rows of x (n, d).
func sqDistances(dist, x []float64, n, d, workers int) {
	parallelRows(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i*d : (i+1)*d]
			row := dist[i*n : (i+1)*n]
			for j := 0; j < n; j++ {
				xj := x[j*d : (j+1)*d]
				var s float64
				for k, v := range xi {
					t := v - xj[k]
					s += t * t
				}
				row[j] = s
			}
			row[i] = 0
		}
	})
}

// jointAffinities replaces the squared distances in buf (n, n) with the
// symmetric joint affinities P: first each row becomes p_{j|i} calibrated to
// the perplexity, then P = (P + Pᵀ) / (2n).
func jointAffinities(buf []float64, n int, perplexity float64, workers int) {
	target := math.Log(perplexity)
	parallelRows(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			calibrateRow(buf[i*n:(i+1)*n], i, target)
		}
	})
	inv := 1 / (2 * float64(n))
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (buf[i*n+j] + buf[j*n+i]) * inv
			buf[i*n+j] = v
			buf[j*n+i] = v
		}
	}
}

// calibrateRow replaces row (the squared distances from point self to every
// point) with the conditional affinities p_{j|self} = exp(-β d_j) / Σ, with β
// found by bisection so that the row's entropy is target nats. It returns β
// and the entropy reached.
//
// Distances are shifted by their minimum before exponentiating: this leaves
// p unchanged and keeps the nearest neighbour at exp(0) = 1, so a large
// distance scale cannot underflow the whole row to zero.
func calibrateRow(row []float64, self int, target float64) (beta, entropy float64) {
	dmin := math.Inf(1)
	for j, d := range row {
		if j != self && d < dmin {
			dmin = d
		}
	}
	beta = 1
	lo, hi := math.Inf(-1), math.Inf(1)
	// eval returns the entropy of the row for β and the normaliser Σ_j
	// exp(-β s_j); row itself is overwritten only once β is final.
	eval := func(beta float64) (h, sum float64) {
		var sumDP float64
		for j, d := range row {
			if j == self {
				continue
			}
			s := d - dmin
			p := math.Exp(-beta * s)
			sum += p
			sumDP += s * p
		}
		// H = -Σ p log p with p = e^{-βs}/sum  ⇒  H = log sum + β Σ s p / sum.
		return math.Log(sum) + beta*sumDP/sum, sum
	}
	for it := 0; it < maxBisect; it++ {
		h, _ := eval(beta)
		entropy = h
		if math.Abs(h-target) < entropyTol {
			break
		}
		if h > target { // too spread out: sharpen
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			if math.IsInf(lo, -1) {
				beta /= 2
			} else {
				beta = (beta + lo) / 2
			}
		}
	}
	entropy, sum := eval(beta)
	for j, d := range row {
		if j == self {
			row[j] = 0
			continue
		}
		row[j] = math.Exp(-beta*(d-dmin)) / sum
	}
	return beta, entropy
}

// gradient holds the per-row partial sums of one gradient evaluation.
type gradient struct {
	n, dims int
	attr    []float64 // (n, dims) Σ_j p_ij w_ij (y_i − y_j)
	rep     []float64 // (n, dims) Σ_j w²_ij (y_i − y_j)
	z       []float64 // (n) Σ_j w_ij
}

func newGradient(n, dims int) *gradient {
	return &gradient{n: n, dims: dims,
		attr: make([]float64, n*dims), rep: make([]float64, n*dims), z: make([]float64, n)}
}

// compute writes 4 Σ_j (exag·p_ij − q_ij) w_ij (y_i − y_j) into grad (n, dims):
// with exag = 1 the exact gradient of KL(P‖Q); otherwise bhtsne's exaggerated
// step, the gradient of −exag Σ p_ij log w_ij + log Z.
func (g *gradient) compute(grad, P, Y []float64, exag float64, workers int) {
	n, dims := g.n, g.dims
	parallelRows(n, workers, func(lo, hi int) {
		if dims == 2 {
			g.rows2(P, Y, lo, hi)
		} else {
			g.rowsN(P, Y, lo, hi)
		}
	})
	// Z summed in row order so the result does not depend on scheduling.
	var Z float64
	for _, v := range g.z {
		Z += v
	}
	invZ := 1 / Z
	for k := range grad {
		grad[k] = 4 * (exag*g.attr[k] - invZ*g.rep[k])
	}
}

// rows2 is the two-dimensional specialisation of rowsN: the inner loop is the
// whole cost of t-SNE, and keeping both coordinates in registers halves it.
func (g *gradient) rows2(P, Y []float64, lo, hi int) {
	n := g.n
	for i := lo; i < hi; i++ {
		yi0, yi1 := Y[2*i], Y[2*i+1]
		prow := P[i*n : (i+1)*n]
		var a0, a1, r0, r1, z float64
		for j := 0; j < n; j++ {
			d0 := yi0 - Y[2*j]
			d1 := yi1 - Y[2*j+1]
			w := 1 / (1 + d0*d0 + d1*d1)
			pw := prow[j] * w
			w2 := w * w
			z += w
			a0 += pw * d0
			a1 += pw * d1
			r0 += w2 * d0
			r1 += w2 * d1
		}
		// j = i contributed w = 1 to z and nothing else (d = 0, p_ii = 0).
		g.z[i] = z - 1
		g.attr[2*i], g.attr[2*i+1] = a0, a1
		g.rep[2*i], g.rep[2*i+1] = r0, r1
	}
}

func (g *gradient) rowsN(P, Y []float64, lo, hi int) {
	n, dims := g.n, g.dims
	diff := make([]float64, dims)
	for i := lo; i < hi; i++ {
		yi := Y[i*dims : (i+1)*dims]
		attr := g.attr[i*dims : (i+1)*dims]
		rep := g.rep[i*dims : (i+1)*dims]
		clear(attr)
		clear(rep)
		prow := P[i*n : (i+1)*n]
		var z float64
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			yj := Y[j*dims : (j+1)*dims]
			s := 1.0
			for c := range diff {
				diff[c] = yi[c] - yj[c]
				s += diff[c] * diff[c]
			}
			w := 1 / s
			pw := prow[j] * w
			w2 := w * w
			z += w
			for c, d := range diff {
				attr[c] += pw * d
				rep[c] += w2 * d
			}
		}
		g.z[i] = z
	}
}

// klDivergence returns KL(P‖Q) = Σ_{i≠j} p_ij log(p_ij / q_ij) for the layout
// Y (n, dims), in float64 and serially: it is the reference the gradient is
// tested against.
func klDivergence(P, Y []float64, n, dims int) float64 {
	w := func(i, j int) float64 {
		s := 1.0
		for c := 0; c < dims; c++ {
			d := Y[i*dims+c] - Y[j*dims+c]
			s += d * d
		}
		return 1 / s
	}
	var Z float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				Z += w(i, j)
			}
		}
	}
	var kl float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if p := P[i*n+j]; i != j && p > 0 {
				kl += p * math.Log(p*Z/w(i, j))
			}
		}
	}
	return kl
}

// parallelRows runs fn over [0, n) in chunks on up to workers goroutines
// (internal/parallel). Chunks are claimed dynamically (a core slowed by
// other load does fewer), which is safe for determinism because every
// row's result is computed by a single call in a fixed order, whichever
// goroutine makes it.
func parallelRows(n, workers int, fn func(lo, hi int)) {
	const chunk = 16
	parallel.ForWorker(n, chunk, parallel.Heavy, max(workers, 1), func(_, lo, hi int) { fn(lo, hi) })
}
