package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// LayerNormEps is the ε added to the variance in LayerNorm (BERT's 1e-12 is
// below float32 resolution for unit-scale inputs; 1e-5 as in PyTorch).
const LayerNormEps = 1e-5

// LayerNorm normalises each row of x (…,C) to zero mean and unit variance and
// applies gamma and beta (C); either may be nil (then 1 and 0).
//
// Fused: composing it from Mean, Sub, Square, Sqrt, Div, MulRow and AddRow
// would take seven passes and six intermediate tensors each way; here forward
// is one pass per row (statistics kept, two floats per row) and backward one.
//
//	x̂ = (x − μ)·r, r = 1/√(σ² + ε), y = γ⊙x̂ + β
//	dβ += Σ_rows dy,  dγ += Σ_rows dy⊙x̂
//	dx += r·(g − mean(g) − x̂·mean(g⊙x̂)) with g = dy⊙γ
func (tp *Tape) LayerNorm(x, gamma, beta *Tensor) *Tensor {
	return tp.layerNorm("LayerNorm", x, nil, gamma, beta, dropSpec{})
}

// AddLayerNorm returns LayerNorm(x + res, gamma, beta), the post-LN residual
// step. Fused with the add because the sum would be written, reread, and its
// gradient passed back through an extra pass each way; here the sum is
// formed in registers (and again in backward), and both inputs receive the
// normalisation's input gradient directly.
//
//	s = x + res:  dx += ds,  dres += ds  (ds as for LayerNorm of s)
func (tp *Tape) AddLayerNorm(x, res, gamma, beta *Tensor) *Tensor {
	if !SameShape(x, res) {
		panic(fmt.Sprintf("tensor: AddLayerNorm: shapes %v and %v differ", x.Shape, res.Shape))
	}
	return tp.layerNorm("AddLayerNorm", x, res, gamma, beta, dropSpec{})
}

// AddDropoutLayerNorm returns LayerNorm(x + Dropout(res, p), gamma, beta):
// the post-LN residual step with dropout on the branch, as a transformer
// layer trains. Fused because the unfused pair writes the dropped branch
// and its mask and passes back through both once more; here the mask is
// regenerated from its hash wherever it is needed (forward and backward)
// and never stored. Its mask equals Dropout's for the same rng state, so
// the fused op equals the unfused pair to the last bit of the sum.
//
//	s = x + res⊙m:  dx += ds,  dres += ds⊙m
func (tp *Tape) AddDropoutLayerNorm(x, res *Tensor, p float32, rng *rand.Rand, gamma, beta *Tensor) *Tensor {
	if !SameShape(x, res) {
		panic(fmt.Sprintf("tensor: AddDropoutLayerNorm: shapes %v and %v differ", x.Shape, res.Shape))
	}
	return tp.layerNorm("AddDropoutLayerNorm", x, res, gamma, beta, newDropSpec("AddDropoutLayerNorm", p, rng, x))
}

// lnRow returns row i of x (+ res, or + res⊙m with dropout, m written to
// mask) in buf (or x's row itself without res).
func lnRow(x, res *Tensor, i, c int, buf []float32, drop dropSpec, mask []float32) []float32 {
	xr := x.Data[i*c : (i+1)*c]
	if res == nil {
		return xr
	}
	rr := res.Data[i*c : (i+1)*c]
	buf = buf[:c]
	if drop.on {
		mask = mask[:c]
		drop.row(i, mask)
		for j, v := range xr {
			buf[j] = v + rr[j]*mask[j]
		}
		return buf
	}
	vec.Add(buf, xr, rr)
	return buf
}

func (tp *Tape) layerNorm(op string, x, res, gamma, beta *Tensor, drop dropSpec) *Tensor {
	c, rows := x.Cols(), x.Rows()
	for _, p := range [2]*Tensor{gamma, beta} {
		if p != nil && len(p.Data) != c {
			panic(fmt.Sprintf("tensor: %s: parameter %v does not fit %v", op, p.Shape, x.Shape))
		}
	}
	grad := anyGrad2(x, res) || (gamma != nil && gamma.Grad != nil) || (beta != nil && beta.Grad != nil)
	y := tp.alloc(grad, x.Shape...)
	stats := tp.alloc(false, rows, 2) // μ, r per row
	// When recording, x̂ is kept for backward, which then reads it instead
	// of forming x + res (and the dropout mask) again and renormalising.
	var xhat *Tensor
	if y.Grad != nil {
		xhat = tp.alloc(false, rows, c)
	}
	// Likewise the dropout mask, when backward passes a gradient through
	// it: made once here rather than again from its hash for every row in
	// backward (a hash per element pair costs more than reading the
	// multiplier back).
	var kept *Tensor
	if y.Grad != nil && drop.on && res.Grad != nil {
		kept = tp.alloc(false, rows, c)
	}
	// Scratch rows for the residual sums of lnGroup rows and the dropout
	// mask, per worker.
	const width = lnGroup + 1
	scratch := tp.alloc(false, numWorkers(), width*c)
	parallelForWorker(rows, 8, 4*c, scratch.Shape[0], func(w, lo, hi int) {
		buf, mask := scratch.Data[w*width*c:(w*width+lnGroup)*c], scratch.Data[(w*width+lnGroup)*c:(w+1)*width*c]
		var xs [lnGroup][]float32
		var mus, rs [lnGroup]float32
		for i0 := lo; i0 < hi; i0 += lnGroup {
			g := min(lnGroup, hi-i0)
			for k := range g {
				m := mask
				if kept != nil {
					m = kept.Data[(i0+k)*c : (i0+k+1)*c]
				}
				xs[k] = lnRow(x, res, i0+k, c, buf[k*c:(k+1)*c], drop, m)
			}
			// The group's rows are consecutive, c apart: x's own or buf's.
			block := buf[:g*c]
			if res == nil {
				block = x.Data[i0*c : (i0+g)*c]
			}
			lnStats(block, xs[:g], mus[:g], rs[:g])
			for k := range g {
				i, xr, mu, r := i0+k, xs[k], mus[k], rs[k]
				yr := y.Data[i*c : (i+1)*c]
				stats.Data[2*i], stats.Data[2*i+1] = mu, r
				lnOut(yr, xr, mu, r, gamma, beta, xhat, i)
			}
		}
	})
	if nd := tp.push(y, layerNormBackward); nd != nil {
		nd.a, nd.b, nd.c, nd.aux = x, gamma, beta, stats
		// Backward's scratch: per fixed row block the dγ, dβ partial sums
		// (deterministic; see parallelBlocks) and a mask row.
		nd.aux2 = tp.alloc(false, reduceBlocks(rows), 3*c)
		nd.xs = append(nd.xs, res, xhat, kept)
		nd.i[1], nd.i[3], nd.f[1] = int(drop.key), int(drop.thr), drop.keep
		if drop.on {
			nd.i[2] = 1
		}
	}
	return y
}

// lnGroup is how many rows lnStats sums side by side.
const lnGroup = 8

// lnStats writes the mean and 1/√(σ² + ε) of each row of xs (equal
// lengths, the rows of block, consecutive) into mu and r. Each row's sums
// run in column order in float32, one add after another: the numbers
// LayerNorm has always given. A row's sum is a chain of dependent adds
// (one per CPU add latency), so rows are summed side by side, their
// chains interleaved: eight at once in vector lanes (vec.RowStats8, 8×8
// blocks transposed in registers), else four at once in scalar registers;
// the same adds in the same order per row, several times the throughput.
func lnStats(block []float32, xs [][]float32, mu, r []float32) {
	if len(xs) == 8 {
		var m, q [8]float32
		if c := len(xs[0]); vec.RowStats8(block, c, c, &m, &q) {
			for k := range 8 {
				mu[k], r[k] = m[k], lnInv(q[k], c)
			}
			return
		}
	}
	for len(xs) >= 4 {
		lnStats4(xs[:4], mu[:4], r[:4])
		xs, mu, r = xs[4:], mu[4:], r[4:]
	}
	for k, xr := range xs {
		var s float32
		for _, v := range xr {
			s += v
		}
		m := s / float32(len(xr))
		var ss float32
		for _, v := range xr {
			d := v - m
			ss += d * d
		}
		mu[k], r[k] = m, lnInv(ss, len(xr))
	}
}

// lnStats4 is lnStats of four rows.
func lnStats4(xs [][]float32, mu, r []float32) {
	x0 := xs[0]
	x1, x2, x3 := xs[1][:len(x0)], xs[2][:len(x0)], xs[3][:len(x0)]
	var s0, s1, s2, s3 float32
	for j, v := range x0 {
		s0 += v
		s1 += x1[j]
		s2 += x2[j]
		s3 += x3[j]
	}
	c := float32(len(x0))
	m0, m1, m2, m3 := s0/c, s1/c, s2/c, s3/c
	var q0, q1, q2, q3 float32
	for j, v := range x0 {
		d0, d1, d2, d3 := v-m0, x1[j]-m1, x2[j]-m2, x3[j]-m3
		q0 += d0 * d0
		q1 += d1 * d1
		q2 += d2 * d2
		q3 += d3 * d3
	}
	mu[0], mu[1], mu[2], mu[3] = m0, m1, m2, m3
	r[0], r[1], r[2], r[3] = lnInv(q0, len(x0)), lnInv(q1, len(x0)), lnInv(q2, len(x0)), lnInv(q3, len(x0))
}

// lnInv is 1/√(σ² + ε) from the sum of squared deviations ss of c values.
func lnInv(ss float32, c int) float32 {
	return float32(1 / math.Sqrt(float64(ss/float32(c))+LayerNormEps))
}

// lnOut writes row i of LayerNorm's output, yr = γ⊙x̂ + β with x̂ =
// (xr − mu)·r, and x̂ into xhat when it is kept (non-nil).
func lnOut(yr, xr []float32, mu, r float32, gamma, beta, xhat *Tensor, i int) {
	c := len(xr)
	if xhat != nil {
		for j, v := range xr {
			xhat.Data[i*c+j] = (v - mu) * r
		}
	}
	if gamma != nil && beta != nil {
		vec.LayerNormRow(yr, xr, gamma.Data, beta.Data, mu, r)
		return
	}
	for j, v := range xr {
		h := (v - mu) * r
		if gamma != nil {
			h *= gamma.Data[j]
		}
		if beta != nil {
			h += beta.Data[j]
		}
		yr[j] = h
	}
}

func layerNormBackward(nd *node) {
	x, res, xhat, kept, gamma, beta, stats, scratch := nd.a, nd.xs[0], nd.xs[1], nd.xs[2], nd.b, nd.c, nd.aux, nd.aux2
	dyAll := nd.out.Grad
	drop := dropSpec{key: uint64(nd.i[1]), thr: uint32(nd.i[3]), keep: nd.f[1], on: nd.i[2] == 1, cols: x.Cols()}
	c, rows := x.Cols(), x.Rows()
	var gam []float32
	if gamma != nil {
		gam = gamma.Data[:c]
	}
	clear(scratch.Data)
	parallelBlocks(rows, 8*c, func(w, lo, hi int) {
		pg, pb := scratch.Data[w*3*c:w*3*c+c], scratch.Data[w*3*c+c:w*3*c+2*c]
		mask := scratch.Data[w*3*c+2*c : (w+1)*3*c]
		row := func(i int) ([]float32, []float32) { return xhat.Data[i*c : (i+1)*c], dyAll[i*c : (i+1)*c] }
		maskOf := func(i int) ([]float32, bool) {
			if kept != nil {
				return kept.Data[i*c : (i+1)*c], true
			}
			return mask, false
		}
		for i := lo; i < hi; i += 2 {
			// Rows in pairs: the two rows' sums are independent chains of
			// adds, interleaved (lnGradSums2); pg and pb still receive row
			// i's terms before row i+1's.
			xh, dy := row(i)
			var sg, sgx float32
			if i+1 < hi {
				xh2, dy2 := row(i + 1)
				var sg2, sgx2 float32
				sg, sgx, sg2, sgx2 = lnGradSums2(pg, pb, gam, xh, dy, xh2, dy2)
				m, made := maskOf(i)
				lnGradRow(x, res, drop, m, made, gam, i, xh, dy, stats.Data[2*i+1], sg, sgx)
				m, made = maskOf(i + 1)
				lnGradRow(x, res, drop, m, made, gam, i+1, xh2, dy2, stats.Data[2*i+3], sg2, sgx2)
				continue
			}
			sg, sgx = lnGradSums(pg, pb, gam, xh, dy)
			m, made := maskOf(i)
			lnGradRow(x, res, drop, m, made, gam, i, xh, dy, stats.Data[2*i+1], sg, sgx)
		}
	})
	for w := range scratch.Shape[0] {
		if gamma != nil && gamma.Grad != nil {
			for j, v := range scratch.Data[w*3*c : w*3*c+c] {
				gamma.Grad[j] += v
			}
		}
		if beta != nil && beta.Grad != nil {
			for j, v := range scratch.Data[w*3*c+c : w*3*c+2*c] {
				beta.Grad[j] += v
			}
		}
	}
}

// lnGradSums adds row dy's terms to the dγ and dβ partial sums pg and pb
// (dy⊙x̂ and dy) and returns mean(g) and mean(g⊙x̂) for g = dy⊙γ (γ nil:
// g = dy), each summed in column order.
func lnGradSums(pg, pb, gam, xh, dy []float32) (sg, sgx float32) {
	pg, pb, xh = pg[:len(dy)], pb[:len(dy)], xh[:len(dy)]
	for j, g := range dy {
		pg[j] += g * xh[j]
		pb[j] += g
		if gam != nil {
			g *= gam[j]
		}
		sg += g
		sgx += g * xh[j]
	}
	n := float32(len(dy))
	return sg / n, sgx / n
}

// lnGradSums2 is lnGradSums for two rows at once, the same adds in the
// same order per row and per partial sum (row 1's term before row 2's):
// each row's sums are chains of dependent adds, and two rows' chains side
// by side keep the adder busy.
func lnGradSums2(pg, pb, gam, xh, dy, xh2, dy2 []float32) (sg, sgx, sg2, sgx2 float32) {
	c := len(dy)
	pg, pb, xh, xh2, dy2 = pg[:c], pb[:c], xh[:c], xh2[:c], dy2[:c]
	for j, g := range dy {
		g2 := dy2[j]
		pg[j] += g * xh[j]
		pb[j] += g
		pg[j] += g2 * xh2[j]
		pb[j] += g2
		if gam != nil {
			g *= gam[j]
			g2 *= gam[j]
		}
		sg += g
		sgx += g * xh[j]
		sg2 += g2
		sgx2 += g2 * xh2[j]
	}
	n := float32(c)
	return sg / n, sgx / n, sg2 / n, sgx2 / n
}

// lnGradRow adds row i's input gradient r·(g − mean(g) − x̂·mean(g⊙x̂))
// to x's gradient and to res's (through the dropout mask when on: the row's
// mask kept by forward when made, else mask is scratch for it), r the
// row's 1/√(σ² + ε).
func lnGradRow(x, res *Tensor, drop dropSpec, mask []float32, made bool, gam []float32, i int, xh, dy []float32, r, sg, sgx float32) {
	c := len(dy)
	var dx, dr []float32
	if x.Grad != nil {
		dx = x.Grad[i*c : (i+1)*c]
	}
	if res != nil && res.Grad != nil {
		dr = res.Grad[i*c : (i+1)*c]
		if drop.on && !made {
			drop.row(i, mask)
		}
	}
	if dx == nil && dr == nil {
		return
	}
	if dx != nil && gam != nil {
		var m []float32
		if dr != nil && drop.on {
			m = mask
		}
		vec.LNGradRow(dx, dr, dy, gam, xh, m, r, sg, sgx)
		return
	}
	for j, g := range dy {
		if gam != nil {
			g *= gam[j]
		}
		d := r * (g - sg - xh[j]*sgx)
		if dx != nil {
			dx[j] += d
		}
		if dr != nil {
			if drop.on {
				dr[j] += d * mask[j]
			} else {
				dr[j] += d
			}
		}
	}
}

// Dropout zeroes each element with probability p and scales the survivors by
// 1/(1−p). Callers skip it at inference. The multiplier mask is kept for
// backward.
//
//	y = x⊙m:  dx += dy⊙m,  m ∈ {0, 1/(1−p)}
//
// The mask comes from one draw of rng: a 64-bit key, from which each
// element's keep-or-drop follows by a counter-based hash of (key, its row,
// its column) (dropSpec). Each element's draw is then independent of which
// core computes it, so the mask is filled in parallel and a seeded rng
// still gives the same mask on any number of cores. (One serial rng call
// per element, as before, took longer than the layer's matrix products on
// small widths.)
func (tp *Tape) Dropout(x *Tensor, p float32, rng *rand.Rand) *Tensor {
	drop := newDropSpec("Dropout", p, rng, x)
	y := tp.alloc(x.Grad != nil, x.Shape...)
	m := tp.alloc(false, x.Shape...)
	c, rows := drop.cols, x.Rows()
	parallelFor(rows, 8, 4*c, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			mr, yr := m.Data[i*c:(i+1)*c], y.Data[i*c:(i+1)*c]
			drop.row(i, mr)
			for j, v := range x.Data[i*c : (i+1)*c] {
				yr[j] = v * mr[j]
			}
		}
	})
	if nd := tp.push(y, dropoutBackward); nd != nil {
		nd.a, nd.aux = x, m
	}
	return y
}

// dropSpec is one dropout mask: element (i, j) of a tensor with cols
// columns is dropped when 32 bits of dropBits(key, i·⌈cols/2⌉ + j/2) (the
// low half for even j, the high half for odd) are below thr = p·2³², so
// with probability p up to 2⁻³² (p < 1, so thr fits 32 bits); kept
// elements are scaled by keep = 1/(1−p).
type dropSpec struct {
	key  uint64
	thr  uint32
	keep float32
	cols int
	on   bool
}

func newDropSpec(op string, p float32, rng *rand.Rand, x *Tensor) dropSpec {
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("tensor: %s: probability %v outside [0,1) for %v", op, p, x.Shape))
	}
	return dropSpec{key: rng.Uint64(), thr: uint32(float64(p) * (1 << 32)), keep: 1 / (1 - p), cols: x.Cols(), on: true}
}

// row writes row i's mask multipliers (0 or keep) to m (cols long): the
// values pick gives for dropBits(key, base + j/2), computed without a
// branch on the random bits (a dropout of p = 0.1 makes a comparison
// branch mispredict about one element in ten, and the mask is made three
// times per residual step: forward, and backward for each input) and with
// the hash's counter advanced by adding γ (mod 2⁶⁴, the same values as
// dropBits's multiply).
func (d dropSpec) row(i int, m []float32) {
	m = m[:d.cols]
	keep := math.Float32bits(d.keep)
	z := d.key + (uint64(i)*uint64((d.cols+1)/2)+1)*dropGamma
	j := vec.DropPairs(m, z, dropGamma, d.thr, keep) // sixteen at a time where the CPU can
	z += uint64(j/2) * dropGamma
	for ; j+1 < len(m); j += 2 {
		h := splitMix(z)
		z += dropGamma
		m[j] = math.Float32frombits(keepBits(uint32(h), d.thr, keep))
		m[j+1] = math.Float32frombits(keepBits(uint32(h>>32), d.thr, keep))
	}
	if j < len(m) {
		m[j] = math.Float32frombits(keepBits(uint32(splitMix(z)), d.thr, keep))
	}
}

// keepBits is keep when r ≥ thr, else 0 (the bits of pick's answer), as a
// conditional move.
func keepBits(r, thr, keep uint32) uint32 {
	b := uint32(0)
	if r >= thr {
		b = keep
	}
	return b
}

func (d dropSpec) pick(r uint32) float32 {
	if r < d.thr {
		return 0
	}
	return d.keep
}

// dropBits is the SplitMix64 output function applied to key + (j+1)·γ
// (γ the golden-ratio increment): a counter-based generator whose outputs
// for consecutive j pass BigCrush (Steele, Lea & Flood, 2014), so element
// pairs j get independent uniform bits from one key.
func dropBits(key, j uint64) uint64 { return splitMix(key + (j+1)*dropGamma) }

// dropGamma is SplitMix64's increment γ.
const dropGamma = 0x9e3779b97f4a7c15

// splitMix is SplitMix64's output function.
func splitMix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func dropoutBackward(nd *node) {
	x, m, dy := nd.a, nd.aux, nd.out.Grad
	if x.Grad == nil {
		return
	}
	parallelFor(len(dy), 4096, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x.Grad[i] += dy[i] * m.Data[i]
		}
	})
}

// BiasGELU returns gelu(x + b) for x (…,C) and b (C): the MLP's first
// activation after Linear(x, w, nil). Fused because the unfused pair writes
// and rereads the widest activation of the layer (N×4C) once more each way.
// When recording, forward also stores gelu'(x + b), computed from the same
// tanh, so backward is a multiply instead of a second tanh per element (the
// tanh dominates; the extra N×4C write costs less).
//
//	y = gelu(x + b):  d = dy·gelu'(x + b);  dx += d,  db += Σ_rows d
func (tp *Tape) BiasGELU(x, b *Tensor) *Tensor {
	c, rows := x.Cols(), x.Rows()
	if len(b.Data) != c {
		panic(fmt.Sprintf("tensor: BiasGELU: bias %v does not fit %v", b.Shape, x.Shape))
	}
	y := tp.alloc(anyGrad2(x, b), x.Shape...)
	var deriv *Tensor
	if y.Grad != nil {
		deriv = tp.alloc(false, x.Shape...)
	}
	// Without a gradient the vector kernel skips the derivative; its y is
	// the recording kernel's bit for bit, so inference evaluates gelu
	// exactly as training's forward pass does.
	parallelForWorker(rows, 8, 12*c, numWorkers(), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, yr := x.Data[i*c:(i+1)*c], y.Data[i*c:(i+1)*c]
			br := b.Data[:len(xr)]
			if deriv == nil {
				vec.GELURow(yr, xr, br)
				continue
			}
			geluGradRow(yr, deriv.Data[i*c:(i+1)*c], xr, br)
		}
	})
	if nd := tp.push(y, biasGELUBackward); nd != nil {
		nd.a, nd.b, nd.aux = x, b, deriv
		nd.aux2 = tp.alloc(false, reduceBlocks(rows), c) // db partial sums per fixed row block
	}
	return y
}

func biasGELUBackward(nd *node) {
	x, b, deriv, part, y := nd.a, nd.b, nd.aux, nd.aux2, nd.out
	c, rows := x.Cols(), x.Rows()
	clear(part.Data)
	parallelBlocks(rows, 2*c, func(w, lo, hi int) {
		pb := part.Data[w*c : (w+1)*c]
		for i := lo; i < hi; i++ {
			var dx []float32
			if x.Grad != nil {
				dx = x.Grad[i*c : (i+1)*c]
			}
			vec.MulAcc(pb, dx, y.Grad[i*c:(i+1)*c], deriv.Data[i*c:(i+1)*c])
		}
	})
	if b.Grad != nil {
		for w := range part.Shape[0] {
			for j, v := range part.Data[w*c : (w+1)*c] {
				b.Grad[j] += v
			}
		}
	}
}
