package synth

import (
	"math"
	"math/rand/v2"
)

// aliasTable samples an index in [0,n) with probability proportional to
// given weights in O(1) (Vose's alias method). Tables for many groups share
// flat arrays: a table is a window [off, off+n) of prob and idx, with idx
// holding window-relative indices.
type aliasTable struct {
	prob []float32
	idx  []int32
}

func newAliasTable(n int) *aliasTable {
	return &aliasTable{prob: make([]float32, n), idx: make([]int32, n)}
}

// build fills the window [off, off+len(w)) from weights w (non-negative, not
// all zero; all-zero falls back to uniform). small and large are scratch of
// at least len(w) entries, so building many windows allocates nothing.
func (a *aliasTable) build(off int, w []float64, small, large []int32) {
	n := len(w)
	prob, idx := a.prob[off:off+n], a.idx[off:off+n]
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	// scaled[i] = w[i]*n/sum is kept in prob as float32 while building; the
	// pairing below only needs comparisons with 1.
	ns, nl := 0, 0
	for i, x := range w {
		p := 1.0
		if sum > 0 {
			p = x * float64(n) / sum
		}
		prob[i] = float32(p)
		idx[i] = int32(i)
		if p < 1 {
			small[ns] = int32(i)
			ns++
		} else {
			large[nl] = int32(i)
			nl++
		}
	}
	for ns > 0 && nl > 0 {
		ns--
		s := small[ns]
		l := large[nl-1]
		idx[s] = l
		prob[l] -= 1 - prob[s]
		if prob[l] < 1 {
			nl--
			small[ns] = l
			ns++
		}
	}
	// Leftovers are 1 up to rounding.
	for ; nl > 0; nl-- {
		prob[large[nl-1]] = 1
	}
	for ; ns > 0; ns-- {
		prob[small[ns-1]] = 1
	}
}

// sample draws from the window [off, off+n) with one random word: the high
// 32 bits pick a column, the low 32 bits decide between it and its alias.
func (a *aliasTable) sample(rng *rand.Rand, off, n int) int {
	r := rng.Uint64()
	i := int((r >> 32) * uint64(n) >> 32)
	u := float32(uint32(r)) * (1.0 / (1 << 32))
	if u < a.prob[off+i] {
		return i
	}
	return int(a.idx[off+i])
}

// gamma draws from Gamma(shape, 1) by Marsaglia and Tsang's method (ACM
// TOMS 26(3), 2000), with the u^(1/shape) boost for shape < 1.
func gamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gamma(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// dirichlet fills out with a draw from Dirichlet(alpha) and returns it.
func dirichlet(rng *rand.Rand, alpha, out []float64) []float64 {
	sum := 0.0
	for i, a := range alpha {
		out[i] = gamma(rng, a)
		sum += out[i]
	}
	if sum == 0 { // every gamma underflowed: tiny alphas; fall back to one-hot
		out[rng.IntN(len(out))] = 1
		return out
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}
