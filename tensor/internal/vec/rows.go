package vec

import "math"

// MaxNaN returns the largest entry of x (−Inf for an empty x) and whether
// an entry is NaN. A maximum does not depend on the order of the
// comparisons (save the sign of a ±0 tie), so the eight-lane AVX2 scan
// gives the value of the scalar loop.
func MaxNaN(x []float32) (mx float32, nan bool) {
	mx = float32(math.Inf(-1))
	v := 0
	if hasAVX2FMA && len(x) >= 8 {
		v = len(x) &^ 7
		mx, nan = maxNaNAVX2(&x[0], v)
	}
	for _, e := range x[v:] {
		if e > mx {
			mx = e
		}
		nan = nan || e != e
	}
	return mx, nan
}

// Scale multiplies every entry of y by s, each product rounded as the
// scalar multiply rounds it.
func Scale(y []float32, s float32) {
	v := 0
	if hasAVX2FMA && len(y) >= 8 {
		v = len(y) &^ 7
		scaleAVX2(&y[0], v, s)
	}
	for j := range y[v:] {
		y[v+j] *= s
	}
}

// LayerNormRow writes y[i] = ((x[i] − mu)·r)·g[i] + b[i], LayerNorm's
// output from a row's mean mu and inverse deviation r: each operation
// rounded on its own, as the scalar float32 expression rounds it, eight
// lanes at a time where the CPU allows.
func LayerNormRow(y, x, g, b []float32, mu, r float32) {
	n := len(x)
	y, g, b = y[:n], g[:n], b[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		lnOutAVX2(&y[0], &x[0], &g[0], &b[0], v, mu, r)
	}
	for j := v; j < n; j++ {
		y[j] = (x[j]-mu)*r*g[j] + b[j]
	}
}

// Add writes y[i] = a[i] + b[i].
func Add(y, a, b []float32) {
	n := len(a)
	y, b = y[:n], b[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		addAVX2(&y[0], &a[0], &b[0], v)
	}
	for j := v; j < n; j++ {
		y[j] = a[j] + b[j]
	}
}

// RowStats8 writes, for the eight rows x[k·stride : k·stride+c] (k < 8),
// their means mu[k] = (Σ_j x_kj) / c and sums of squared deviations q[k] =
// Σ_j (x_kj − mu[k])², each sum in column order, one float32 add after
// another, each square rounded before its add: what the loop over one row
// gives, eight rows side by side (an 8×8 block at a time, transposed in
// registers, so that lane k carries row k's chain). It reports false, and
// writes nothing, when the CPU lacks AVX2 or c is not a multiple of 8.
func RowStats8(x []float32, stride, c int, mu, q *[8]float32) bool {
	if !hasAVX2FMA || c == 0 || c%8 != 0 || stride < c || len(x) < 7*stride+c {
		return false
	}
	rowStats8AVX2(&x[0], stride, c, float32(c), mu, q)
	return true
}

// LNGradRow adds LayerNorm's input gradient for one row,
//
//	d_j = r·((dy_j·gam_j − sg) − xh_j·sgx),
//
// to dx (dx_j += d_j) and, when dr is not nil, to dr (dr_j += d_j, or
// d_j·mask_j when mask is not nil): each operation rounded on its own, in
// that order, as the scalar float32 loop rounds it, eight lanes at a time
// where the CPU has AVX2. dy, gam, xh, dx and the non-nil dr and mask have
// the same length.
func LNGradRow(dx, dr, dy, gam, xh, mask []float32, r, sg, sgx float32) {
	n := len(dy)
	gam, xh, dx = gam[:n], xh[:n], dx[:n]
	if dr != nil {
		dr = dr[:n]
		if mask != nil {
			mask = mask[:n]
		}
	}
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		var drp, mp *float32
		if dr != nil {
			drp = &dr[0]
			if mask != nil {
				mp = &mask[0]
			}
		}
		lnGradAVX2(&dx[0], drp, &dy[0], &gam[0], &xh[0], mp, v, r, sg, sgx)
	}
	for j := v; j < n; j++ {
		d := r * (dy[j]*gam[j] - sg - xh[j]*sgx)
		dx[j] += d
		if dr != nil {
			if mask != nil {
				dr[j] += d * mask[j]
			} else {
				dr[j] += d
			}
		}
	}
}

// SoftmaxGradRow overwrites p with softmax's backward for one row,
// p_j = (a·p_j)·(d_j − s), each operation rounded on its own as the scalar
// float32 expression rounds it, eight lanes at a time where the CPU has
// AVX2. d has p's length.
func SoftmaxGradRow(p, d []float32, a, s float32) {
	n := len(p)
	d = d[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		softmaxGradAVX2(&p[0], &d[0], v, a, s)
	}
	for j := v; j < n; j++ {
		p[j] = a * p[j] * (d[j] - s)
	}
}

// AddScaled adds a·x to y (y[i] += a·x[i]), the product rounded before its
// add as the scalar float32 loop rounds it (no fused multiply-add), eight
// lanes at a time where the CPU has AVX2. x has y's length.
func AddScaled(y, x []float32, a float32) {
	n := len(y)
	x = x[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		addScaledAVX2(&y[0], &x[0], v, a)
	}
	for j := v; j < n; j++ {
		y[j] += a * x[j]
	}
}

// MulAcc adds the products a[i]·b[i] to p and, when x is not nil, to x as
// well (p[i] += d, x[i] += d, d = a[i]·b[i] rounded before the adds), as
// the scalar float32 loop does: a gradient through an element-wise factor
// (d) into both an input's gradient and a per-column partial sum, eight
// lanes at a time where the CPU has AVX2 (with x; without, the rare case,
// the scalar loop). p, b and x (when given) have a's length.
func MulAcc(p, x, a, b []float32) {
	n := len(a)
	p, b = p[:n], b[:n]
	v := 0
	if hasAVX2FMA && n >= 8 && x != nil {
		v = n &^ 7
		x = x[:n]
		mulAcc2AVX2(&p[0], &x[0], &a[0], &b[0], v)
	}
	for j := v; j < n; j++ {
		d := a[j] * b[j]
		p[j] += d
		if x != nil {
			x[j] += d
		}
	}
}

// DropPairs writes dropout multipliers to the first elements of m, two
// per counter z = z0, z0+γ, z0+2γ, … (mod 2⁶⁴): for h = SplitMix64(z),
// element 2p is keep's bits when uint32(h) ≥ thr, else 0, and element
// 2p+1 likewise from h>>32. It writes a multiple of 16 elements, sixteen
// at a time, where the CPU has AVX-512 (F and DQ), and returns how many
// (0 without it), for the caller's scalar loop to go on from.
func DropPairs(m []float32, z0, gamma uint64, thr, keep uint32) int {
	v := len(m) &^ 15
	if !hasAVX512DQ || v == 0 {
		return 0
	}
	var lanes [8]uint64
	for k := range lanes {
		lanes[k] = z0 + uint64(k)*gamma
	}
	dropPairsAVX512(&m[0], v, &lanes, 8*gamma, thr, keep)
	return v
}

// GELUGradRow writes gelu(x+b) to y and gelu'(x+b) to d.
func GELUGradRow(y, d, x, b []float32) {
	n := len(x)
	y, d, b = y[:n], d[:n], b[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		geluGradAVX2(&y[0], &d[0], &x[0], &b[0], v)
	}
	for j := v; j < n; j++ {
		y[j], d[j] = GELUAndGrad(x[j] + b[j])
	}
}

// GELURow writes gelu(x+b) to y, the values GELUGradRow writes to its y
// bit for bit, without the derivative.
func GELURow(y, x, b []float32) {
	n := len(x)
	y, b = y[:n], b[:n]
	v := 0
	if hasAVX2FMA && n >= 8 {
		v = n &^ 7
		geluAVX2(&y[0], &x[0], &b[0], v)
	}
	for j := v; j < n; j++ {
		y[j], _ = GELUAndGrad(x[j] + b[j])
	}
}
