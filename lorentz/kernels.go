package lorentz

import "math"

// This file holds the per-row kernels of the hyperboloid ops. They are generic
// over the storage type so that the tape ops run them on float32 rows while
// the tests run the identical code on float64 rows for finite differences.
// Every kernel computes in float64. Backward kernels accumulate (+=) into
// gradient rows that are non-nil.

// MaxTangentNorm caps ‖v‖_L/√K before exp; see the package documentation for
// why 12.
const MaxTangentNorm = 12.0

// seriesCut is the argument below which derivative ratios use their Taylor
// series instead of the cancelling closed form (package documentation).
const seriesCut = 1e-2

type real interface{ ~float32 | ~float64 }

// geo carries the curvature parameter and its square root.
type geo struct{ k, sk float64 }

func newGeo(k float64) geo { return geo{k: k, sk: math.Sqrt(k)} }

// sumSq and dot keep four partial sums so that the float64 additions do not
// form one serial dependency chain (4× faster on 256-wide rows).
func sumSq[T real](x []T) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func dot[T real](x, y []T) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * float64(y[i])
		s1 += float64(x[i+1]) * float64(y[i+1])
		s2 += float64(x[i+2]) * float64(y[i+2])
		s3 += float64(x[i+3]) * float64(y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// sinhc(a) = sinh(a)/a, 1 at 0.
func sinhc(a float64) float64 {
	if a == 0 {
		return 1
	}
	return math.Sinh(a) / a
}

// sinhcD(a) = sinhc'(a)/a = (a·cosh a − sinh a)/a³ = 1/3 + a²/30 + a⁴/840 + …
func sinhcD(a float64) float64 {
	if a < seriesCut {
		a2 := a * a
		return 1.0/3 + a2/30 + a2*a2/840
	}
	return (a*math.Cosh(a) - math.Sinh(a)) / (a * a * a)
}

// asinhc(a) = asinh(a)/a, 1 at 0.
func asinhc(a float64) float64 {
	if a == 0 {
		return 1
	}
	return math.Asinh(a) / a
}

// asinhcD(a) = asinhc'(a)/a = (a/√(1+a²) − asinh a)/a³ = −1/3 + 3a²/10 − 15a⁴/56 + …
func asinhcD(a float64) float64 {
	if a < seriesCut {
		a2 := a * a
		return -1.0/3 + 3*a2/10 - 15*a2*a2/56
	}
	return (a/math.Sqrt(1+a*a) - math.Asinh(a)) / (a * a * a)
}

// bsinh(b) = b/sinh(b), 1 at 0 (the log_x scale factor).
func bsinh(b float64) float64 {
	if b == 0 {
		return 1
	}
	return b / math.Sinh(b)
}

// bsinhD(b) = bsinh'(b)/b = (1 − b·coth b)/(b·sinh b) = −1/3 + 7b²/90 − 31b⁴/2520 + …
// (written with coth so that nothing overflows before b ≈ 710).
func bsinhD(b float64) float64 {
	if b < seriesCut {
		b2 := b * b
		return -1.0/3 + 7*b2/90 - 31*b2*b2/2520
	}
	return (1 - b/math.Tanh(b)) / (b * math.Sinh(b))
}

// pairGeom holds what the chord kernels need about a pair of points x, y.
type pairGeom struct {
	rx, ry float64 // |x_s|, |y_s|
	ix, iy float64 // 1/|x_s|, 1/|y_s| (0 for a zero vector)
	x0, y0 float64 // recomputed time coordinates
	a, b   float64 // asinh(|x_s|/√K), asinh(|y_s|/√K): geodesic radii / √K
	s      float64 // sinh²(d/(2√K)) = ‖x−y‖_L²/(4K)
}

// pointRadius fills the per-point part of pairGeom: r, 1/r, x0, asinh(r/√K).
func pointRadius[T real](g geo, xs []T) (r, ir, x0, a float64) {
	r2 := sumSq(xs)
	r = math.Sqrt(r2)
	if r > 0 {
		ir = 1 / r
	}
	return r, ir, math.Sqrt(g.k + r2), math.Asinh(r / g.sk)
}

// chordS returns s = sinh²((a−b)/2) + sinh(a)sinh(b)|x̂−ŷ|²/4 given the radii
// and q = |x̂−ŷ|²; sinh(a)sinh(b) = rx·ry/K.
func chordS(g geo, a, b, rx, ry, q float64) float64 {
	h := math.Sinh((a - b) / 2)
	return h*h + rx*ry*q/(4*g.k)
}

// unitDiffSq returns |x̂−ŷ|² = Σ (x_k/rx − y_k/ry)², formed from differences
// so that nearly parallel directions keep their precision.
func unitDiffSq[T real](xs, ys []T, ix, iy float64) float64 {
	var q float64
	for k, v := range xs {
		d := float64(v)*ix - float64(ys[k])*iy
		q += d * d
	}
	return q
}

func newPairGeom[T real](g geo, xs, ys []T) pairGeom {
	var p pairGeom
	p.rx, p.ix, p.x0, p.a = pointRadius(g, xs)
	p.ry, p.iy, p.y0, p.b = pointRadius(g, ys)
	p.s = chordS(g, p.a, p.b, p.rx, p.ry, unitDiffSq(xs, ys, p.ix, p.iy))
	return p
}

// chordGradCoef returns cx, cy with
//
//	∂s/∂x_s = cx·x_s − y_s/(2K),   ∂s/∂y_s = cy·y_s − x_s/(2K),
//	cx = (sinh(a−b)/(2x0) + |y_s|/(2K)) / |x_s|,
//
// from ∂a/∂x_s = x̂/x0, ∂/∂a sinh²((a−b)/2) = sinh(a−b)/2 and
// sinh(a)sinh(b)|x̂−ŷ|²/4 = (|x_s||y_s| − x_s·y_s)/(2K). cx·x_s stays bounded
// as |x_s| → 0 because the bracket vanishes like |x_s|.
func chordGradCoef(g geo, p *pairGeom) (cx, cy float64) {
	sab := math.Sinh(p.a - p.b)
	cx = (sab/(2*p.x0) + p.ry/(2*g.k)) * p.ix
	cy = (-sab/(2*p.y0) + p.rx/(2*g.k)) * p.iy
	return cx, cy
}

// addChordGrad accumulates c·∂s/∂x_s into gx and c·∂s/∂y_s into gy.
func addChordGrad[T real](g geo, p *pairGeom, c float64, xs, ys, gx, gy []T) {
	if c == 0 {
		return
	}
	cx, cy := chordGradCoef(g, p)
	h := 1 / (2 * g.k)
	if gx != nil {
		for k := range xs {
			gx[k] += T(c * (cx*float64(xs[k]) - h*float64(ys[k])))
		}
	}
	if gy != nil {
		for k := range ys {
			gy[k] += T(c * (cy*float64(ys[k]) - h*float64(xs[k])))
		}
	}
}

// distFromS returns d = 2√K·asinh(√s).
func distFromS(g geo, s float64) float64 { return 2 * g.sk * math.Asinh(math.Sqrt(s)) }

// distDS returns ∂d/∂s = √K/(√s·√(1+s)); 0 at s = 0 (coincident points, zero
// subgradient; see the package documentation).
func distDS(g geo, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return g.sk / (math.Sqrt(s) * math.Sqrt(1+s))
}

// sqDistDS returns ∂d²/∂s = 2d·∂d/∂s = 4K·asinhc(√s)/√(1+s), smooth at 0.
func sqDistDS(g geo, s float64) float64 {
	t := math.Sqrt(s)
	return 4 * g.k * asinhc(t) / math.Sqrt(1+s)
}

// foldTime returns the factor t0 with which the gradient g0 of an output time
// coordinate y0 = sqrt(K+|y_s|²) reaches the spatial part: ∂y0/∂y_s = y_s/y0,
// so ḡ_s = g_s + t0·y_s with t0 = g0/y0.
func foldTime[T real](g geo, y, gy []T) float64 {
	if gy[0] == 0 {
		return 0
	}
	return float64(gy[0]) / math.Sqrt(g.k+sumSq(y[1:]))
}

// writePoint stores the spatial part ys (already in y[1:]) and the time
// coordinate recomputed from the stored (rounded) spatial values, so that the
// stored row is the closest representable point to the hyperboloid.
func writeTime[T real](g geo, y []T) {
	y[0] = T(math.Sqrt(g.k + sumSq(y[1:])))
}

// ---- exp_o / log_o ----

// expO: y_s = S·v with S = sinhc(α), α = |v|/√K; beyond the cap
// v ← (MaxTangentNorm/α)·v.
func expO[T real](g geo, v, y []T) {
	al := math.Sqrt(sumSq(v)) / g.sk
	S := sinhc(al)
	if al > MaxTangentNorm {
		S = sinhc(MaxTangentNorm) * MaxTangentNorm / al
	}
	for k, x := range v {
		y[k+1] = T(S * float64(x))
	}
	writeTime(g, y)
}

// expOBack: with ḡ the folded output gradient,
//
//	α ≤ cap:  ∂L/∂v = S·ḡ + (ḡ·v)·(S'(α)/α)/K · v       (∂α/∂v = v/(Kα))
//	α > cap:  y_s = S(c)·(c/α)·v, ∂L/∂v = S(c)(c/α)·(ḡ − (ḡ·v)v/|v|²)
func expOBack[T real](g geo, v, y, gy, gv []T) {
	t0 := foldTime(g, y, gy)
	vv := sumSq(v)
	al := math.Sqrt(vv) / g.sk
	var gdv float64 // ḡ·v
	for k, x := range v {
		gdv += (float64(gy[k+1]) + t0*float64(y[k+1])) * float64(x)
	}
	var S, m float64
	if al > MaxTangentNorm {
		S = sinhc(MaxTangentNorm) * MaxTangentNorm / al
		m = -S * gdv / vv
	} else {
		S = sinhc(al)
		m = gdv * sinhcD(al) / g.k
	}
	for k, x := range v {
		gs := float64(gy[k+1]) + t0*float64(y[k+1])
		gv[k] += T(S*gs + m*float64(x))
	}
}

// logO: u = asinhc(ρ)·x_s with ρ = |x_s|/√K (= √K·asinh(ρ)·x̂).
func logO[T real](g geo, x, u []T) {
	xs := x[1:]
	A := asinhc(math.Sqrt(sumSq(xs)) / g.sk)
	for k, v := range xs {
		u[k] = T(A * float64(v))
	}
}

// logOBack: ∂L/∂x_s = A·ḡ + (ḡ·x_s)·(A'(ρ)/ρ)/K · x_s (∂ρ/∂x_s = x_s/(Kρ)).
func logOBack[T real](g geo, x, gu, gx []T) {
	xs := x[1:]
	rho := math.Sqrt(sumSq(xs)) / g.sk
	A := asinhc(rho)
	m := dot(gu, xs) * asinhcD(rho) / g.k
	for k, v := range xs {
		gx[k+1] += T(A*float64(gu[k]) + m*float64(v))
	}
}

// ---- exp_x ----

// expXGeom holds the tangent-vector quantities of exp_x.
type expXGeom struct {
	x0, xv, q float64 // time coordinate, x_s·v_s, ‖v‖_L²
	al        float64 // ‖v‖_L/√K before the cap
	c, s      float64 // cosh and effective sinhc factor (cap included)
	ix        float64 // 1/|x_s| (0 at the origin)
	p         float64 // x̂·v_s
}

// newExpXGeom computes ‖v‖_L² for the tangent vector v = (x_s·v_s/x0, v_s)
// stably as (K|v_s|² + |x_s|²·|v⊥|²)/x0², v⊥ = v_s − (x̂·v_s)x̂, instead of
// |v_s|² − (x_s·v_s)²/x0², which cancels for radial v at far-out x.
func newExpXGeom[T real](g geo, xs, vs []T) expXGeom {
	var e expXGeom
	r2 := sumSq(xs)
	e.x0 = math.Sqrt(g.k + r2)
	e.xv = dot(xs, vs)
	vv := sumSq(vs)
	if r2 > 0 {
		e.ix = 1 / math.Sqrt(r2)
	}
	e.p = e.xv * e.ix
	var perp2 float64
	for k, v := range vs {
		d := float64(v) - e.p*float64(xs[k])*e.ix
		perp2 += d * d
	}
	e.q = (g.k*vv + r2*perp2) / (e.x0 * e.x0)
	e.al = math.Sqrt(e.q) / g.sk
	a := min(e.al, MaxTangentNorm)
	e.c = math.Cosh(a)
	e.s = sinhc(a)
	if e.al > MaxTangentNorm {
		e.s *= MaxTangentNorm / e.al
	}
	return e
}

// expX: y_s = cosh(α)·x_s + sinhc(α)·v_s, α = ‖v‖_L/√K
// (the paper's cosh(α)x + √K sinh(α) v/‖v‖_L, since ‖v‖_L = √K·α).
func expX[T real](g geo, x, v, y []T) {
	xs, vs := x[1:], v[1:]
	e := newExpXGeom(g, xs, vs)
	for k := range xs {
		y[k+1] = T(e.c*float64(xs[k]) + e.s*float64(vs[k]))
	}
	writeTime(g, y)
}

// expXBack: let w = ∂Q/∂v_s / 2 = v_s − (x_s·v_s)x_s/x0², formed stably as
// v⊥ + (x̂·v_s)K/x0²·x̂; then ∂Q/∂x_s = −2(x_s·v_s)/x0²·w and
//
//	∂L/∂v_s = S·ḡ + 2m·w,   ∂L/∂x_s = C·ḡ − 2m·(x_s·v_s)/x0²·w,
//	m = ∂L/∂Q = ḡ·(S·x_s + (S'(α)/α)·v_s)/(2K)      (α ≤ cap; ∂α/∂Q = 1/(2Kα))
//	m = −S·(ḡ·v_s)/(2Q)                               (α > cap: only λ = c√K/√Q moves)
func expXBack[T real](g geo, x, v, y, gy, gx, gv []T) {
	xs, vs := x[1:], v[1:]
	e := newExpXGeom(g, xs, vs)
	t0 := foldTime(g, y, gy)
	var gdx, gdv float64 // ḡ·x_s, ḡ·v_s
	for k := range xs {
		gs := float64(gy[k+1]) + t0*float64(y[k+1])
		gdx += gs * float64(xs[k])
		gdv += gs * float64(vs[k])
	}
	var m float64
	if e.al > MaxTangentNorm {
		m = -e.s * gdv / (2 * e.q)
	} else {
		m = (e.s*gdx + sinhcD(e.al)*gdv) / (2 * g.k)
	}
	kx := e.p * g.k / (e.x0 * e.x0) * e.ix // coefficient of x_s in w beyond v⊥
	fx := e.xv / (e.x0 * e.x0)
	for k := range xs {
		gs := float64(gy[k+1]) + t0*float64(y[k+1])
		xk, vk := float64(xs[k]), float64(vs[k])
		w := vk - e.p*e.ix*xk + kx*xk
		if gv != nil {
			gv[k+1] += T(e.s*gs + 2*m*w)
		}
		if gx != nil {
			gx[k+1] += T(e.c*gs - 2*m*fx*w)
		}
	}
}

// ---- log_x ----

// logX: z = bsinh(β)·u with u = y − cosh(β)x = (y − x) − 2s·x, β = d/√K
// (the paper's d·u/‖u‖_L, since ‖u‖_L = √K·sinh β). The time part uses
// y0 − x0 = (y_s−x_s)·(y_s+x_s)/(x0+y0).
func logX[T real](g geo, x, y, z []T) {
	xs, ys := x[1:], y[1:]
	p := newPairGeom(g, xs, ys)
	beta := 2 * math.Asinh(math.Sqrt(p.s))
	f := bsinh(beta)
	var dd float64
	for k := range xs {
		dd += (float64(ys[k]) - float64(xs[k])) * (float64(ys[k]) + float64(xs[k]))
	}
	z[0] = T(f * (dd/(p.x0+p.y0) - 2*p.s*p.x0))
	for k := range xs {
		z[k+1] = T(f * (float64(ys[k]) - float64(xs[k]) - 2*p.s*float64(xs[k])))
	}
}

// logXBack: with ḡ = (g0, g_s) on z = f(β(s))·u(x, y, s), u = y − (1+2s)x,
//
//	∂L/∂y_s = f·(g_s + g0·y_s/y0) + κ·∂s/∂y_s
//	∂L/∂x_s = −f(1+2s)·(g_s + g0·x_s/x0) + κ·∂s/∂x_s
//	κ = (ḡ·u)·f'(β)·β'(s) − 2f·(ḡ·x),   f'(β)β'(s) = (f'(β)/β)·2asinhc(√s)/√(1+s)
func logXBack[T real](g geo, x, y, gz, gx, gy []T) {
	xs, ys := x[1:], y[1:]
	p := newPairGeom(g, xs, ys)
	rs := math.Sqrt(p.s)
	beta := 2 * math.Asinh(rs)
	f := bsinh(beta)
	var dd, gu, gxd float64
	for k := range xs {
		xk, yk := float64(xs[k]), float64(ys[k])
		dd += (yk - xk) * (yk + xk)
		gu += float64(gz[k+1]) * (yk - xk - 2*p.s*xk)
		gxd += float64(gz[k+1]) * xk
	}
	g0 := float64(gz[0])
	gu += g0 * (dd/(p.x0+p.y0) - 2*p.s*p.x0)
	gxd += g0 * p.x0
	kappa := gu*bsinhD(beta)*2*asinhc(rs)/math.Sqrt(1+p.s) - 2*f*gxd
	for k := range xs {
		gs := float64(gz[k+1])
		if gy != nil {
			gy[k+1] += T(f * (gs + g0*float64(ys[k])/p.y0))
		}
		if gx != nil {
			gx[k+1] += T(-f * (1 + 2*p.s) * (gs + g0*float64(xs[k])/p.x0))
		}
	}
	var gxs, gys []T
	if gx != nil {
		gxs = gx[1:]
	}
	if gy != nil {
		gys = gy[1:]
	}
	addChordGrad(g, &p, kappa, xs, ys, gxs, gys)
}

// ---- parallel transport ----

// transportO: PT_{o→x}([0|b]) = [0|b] + ⟨x,b'⟩_L/(K + √K·x0)·(o + x), i.e.
//
//	v0 = (x_s·b)/√K,   v_s = b + (x_s·b)/(K + √K·x0)·x_s,
//
// whose denominator is at least 2K.
func transportO[T real](g geo, x, b, v []T) {
	xs := x[1:]
	x0 := math.Sqrt(g.k + sumSq(xs))
	c := dot(xs, b)
	d := g.k + g.sk*x0
	v[0] = T(c / g.sk)
	for k := range xs {
		v[k+1] = T(float64(b[k]) + c/d*float64(xs[k]))
	}
}

// transportOBack: with c = x_s·b, D = K + √K·x0, ∂D/∂x_s = √K·x_s/x0,
//
//	∂L/∂b   = g_s + (g0/√K + (g_s·x_s)/D)·x_s
//	∂L/∂x_s = (g0/√K + (g_s·x_s)/D)·b + (c/D)·g_s − c(g_s·x_s)√K/(D²x0)·x_s
func transportOBack[T real](g geo, x, b, gv, gx, gb []T) {
	xs := x[1:]
	x0 := math.Sqrt(g.k + sumSq(xs))
	c := dot(xs, b)
	d := g.k + g.sk*x0
	gsx := dot(gv[1:], xs)
	h := float64(gv[0])/g.sk + gsx/d
	tx := c * gsx * g.sk / (d * d * x0)
	for k := range xs {
		gs := float64(gv[k+1])
		if gb != nil {
			gb[k] += T(gs + h*float64(xs[k]))
		}
		if gx != nil {
			gx[k+1] += T(h*float64(b[k]) + c/d*gs - tx*float64(xs[k]))
		}
	}
}

// transport: PT_{x→y}(v) = v + λ(x + y), λ = ⟨y−x, v⟩_L/(2K(1+s)), with
// v0 = x_s·v_s/x0 implied by tangency and y0 − x0 = (y_s−x_s)·(y_s+x_s)/(x0+y0).
// (K − ⟨x,y⟩_L = K + K·cosh β = 2K(1+s).)
func transport[T real](g geo, x, y, v, w []T) {
	xs, ys, vs := x[1:], y[1:], v[1:]
	p := newPairGeom(g, xs, ys)
	v0 := dot(xs, vs) / p.x0
	var dd, nv float64
	for k := range xs {
		xk, yk := float64(xs[k]), float64(ys[k])
		dd += (yk - xk) * (yk + xk)
		nv += (yk - xk) * float64(vs[k])
	}
	delta := dd / (p.x0 + p.y0)
	lam := (nv - delta*v0) / (2 * g.k * (1 + p.s))
	w[0] = T(v0 + lam*(p.x0+p.y0))
	for k := range xs {
		w[k+1] = T(float64(vs[k]) + lam*(float64(xs[k])+float64(ys[k])))
	}
}

// transportBack differentiates transport through v_s, v0(x_s,v_s), λ(N, s),
// N = (y_s−x_s)·v_s − Δ·v0 with Δ = y0 − x0, and x + y:
//
//	Gλ = ḡ·(x+y);  ∂L/∂N = Gλ/(2K(1+s));  ∂L/∂s = −Gλ·λ/(1+s)
//	x_s: λ(g_s + g0 x_s/x0) + ∂L/∂N·(−v_s + v0 x_s/x0) + ∂L/∂v0·(v_s/x0 − v0 x_s/x0²) + ∂L/∂s·∂s/∂x_s
//	y_s: λ(g_s + g0 y_s/y0) + ∂L/∂N·(v_s − v0 y_s/y0) + ∂L/∂s·∂s/∂y_s
//	v_s: g_s + ∂L/∂N·(y_s − x_s) + ∂L/∂v0·x_s/x0,   ∂L/∂v0 = g0 − ∂L/∂N·Δ
func transportBack[T real](g geo, x, y, v, gw, gx, gy, gv []T) {
	xs, ys, vs := x[1:], y[1:], v[1:]
	p := newPairGeom(g, xs, ys)
	v0 := dot(xs, vs) / p.x0
	var dd, nv float64
	for k := range xs {
		xk, yk := float64(xs[k]), float64(ys[k])
		dd += (yk - xk) * (yk + xk)
		nv += (yk - xk) * float64(vs[k])
	}
	delta := dd / (p.x0 + p.y0)
	den := 2 * g.k * (1 + p.s)
	lam := (nv - delta*v0) / den
	g0 := float64(gw[0])
	gl := g0 * (p.x0 + p.y0)
	for k := range xs {
		gl += float64(gw[k+1]) * (float64(xs[k]) + float64(ys[k]))
	}
	dN := gl / den
	dS := -gl * lam / (1 + p.s)
	dv0 := g0 - dN*delta
	for k := range xs {
		gs := float64(gw[k+1])
		xk, yk, vk := float64(xs[k]), float64(ys[k]), float64(vs[k])
		if gx != nil {
			gx[k+1] += T(lam*(gs+g0*xk/p.x0) + dN*(-vk+v0*xk/p.x0) + dv0*(vk-v0*xk/p.x0)/p.x0)
		}
		if gy != nil {
			gy[k+1] += T(lam*(gs+g0*yk/p.y0) + dN*(vk-v0*yk/p.y0))
		}
		if gv != nil {
			gv[k+1] += T(gs + dN*(yk-xk) + dv0*xk/p.x0)
		}
	}
	var gxs, gys []T
	if gx != nil {
		gxs = gx[1:]
	}
	if gy != nil {
		gys = gy[1:]
	}
	addChordGrad(g, &p, dS, xs, ys, gxs, gys)
}
