package lorentz

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/tensor"
)

// Hyperboloid is the Lorentz model H^{n,K} = {x : ⟨x,x⟩_L = −K, x0 > 0} of
// curvature −1/K. K must be positive and finite.
type Hyperboloid struct{ K float64 }

// Name implements Manifold.
func (h Hyperboloid) Name() string { return fmt.Sprintf("hyperboloid(K=%g)", h.K) }

func (h Hyperboloid) geo(op string) geo {
	if !(h.K > 0) || math.IsInf(h.K, 0) {
		panic(fmt.Sprintf("lorentz: %s: curvature parameter K = %v, want finite K > 0", op, h.K))
	}
	return newGeo(h.K)
}

// Origin implements Manifold: rows copies of (√K, 0, …, 0).
func (h Hyperboloid) Origin(tp *tensor.Tape, rows, n int) *tensor.Tensor {
	g := h.geo("Origin")
	o := tp.Alloc(false, rows, n+1)
	for i := 0; i < rows; i++ {
		o.Data[i*(n+1)] = float32(g.sk)
	}
	return o
}

// ExpO implements Manifold: (N,n) -> (N,n+1), exp_o(v) = (√K cosh α, sinhc(α)·v),
// α = |v|/√K capped at MaxTangentNorm.
func (h Hyperboloid) ExpO(tp *tensor.Tape, v *tensor.Tensor) *tensor.Tensor {
	g := h.geo("ExpO")
	n := v.Cols()
	shape, r := shapeWithCols(v.Shape, n+1)
	y := tp.Alloc(v.Grad != nil, shape[:r]...)
	rows := v.Rows()
	for i := 0; i < rows; i++ {
		expO(g, v.Data[i*n:(i+1)*n], y.Data[i*(n+1):(i+1)*(n+1)])
	}
	tp.Record(y, func() {
		for i := 0; i < rows; i++ {
			expOBack(g, v.Data[i*n:(i+1)*n], y.Data[i*(n+1):(i+1)*(n+1)],
				y.Grad[i*(n+1):(i+1)*(n+1)], v.Grad[i*n:(i+1)*n])
		}
	})
	return y
}

// LogO implements Manifold: (N,n+1) -> (N,n), log_o(x) = √K·asinh(|x_s|/√K)·x_s/|x_s|.
func (h Hyperboloid) LogO(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	g := h.geo("LogO")
	checkPoints("LogO", x)
	c := x.Cols()
	shape, r := shapeWithCols(x.Shape, c-1)
	u := tp.Alloc(x.Grad != nil, shape[:r]...)
	rows := x.Rows()
	for i := 0; i < rows; i++ {
		logO(g, x.Data[i*c:(i+1)*c], u.Data[i*(c-1):(i+1)*(c-1)])
	}
	tp.Record(u, func() {
		for i := 0; i < rows; i++ {
			logOBack(g, x.Data[i*c:(i+1)*c], u.Grad[i*(c-1):(i+1)*(c-1)], x.Grad[i*c:(i+1)*c])
		}
	})
	return u
}

// rowsOf returns row i of a (rows, c) view of t's data or gradient; nil when
// the slice is nil.
func rowOf(s []float32, i, c int) []float32 {
	if s == nil {
		return nil
	}
	return s[i*c : (i+1)*c]
}

// ExpX implements Manifold. Only the spatial part of v is read; its time
// coordinate is implied by tangency at x (package documentation).
func (h Hyperboloid) ExpX(tp *tensor.Tape, x, v *tensor.Tensor) *tensor.Tensor {
	g := h.geo("ExpX")
	checkSameRows("ExpX", x, v)
	c, rows := x.Cols(), x.Rows()
	y := tp.Alloc(tensor.AnyGrad(x, v), x.Shape...)
	for i := 0; i < rows; i++ {
		expX(g, rowOf(x.Data, i, c), rowOf(v.Data, i, c), rowOf(y.Data, i, c))
	}
	tp.Record(y, func() {
		for i := 0; i < rows; i++ {
			expXBack(g, rowOf(x.Data, i, c), rowOf(v.Data, i, c), rowOf(y.Data, i, c),
				rowOf(y.Grad, i, c), rowOf(x.Grad, i, c), rowOf(v.Grad, i, c))
		}
	})
	return y
}

// LogX implements Manifold: log_x(y) = d·u/‖u‖_L with u = y + ⟨x,y⟩_L x/K.
func (h Hyperboloid) LogX(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	g := h.geo("LogX")
	checkSameRows("LogX", x, y)
	c, rows := x.Cols(), x.Rows()
	z := tp.Alloc(tensor.AnyGrad(x, y), x.Shape...)
	for i := 0; i < rows; i++ {
		logX(g, rowOf(x.Data, i, c), rowOf(y.Data, i, c), rowOf(z.Data, i, c))
	}
	tp.Record(z, func() {
		for i := 0; i < rows; i++ {
			logXBack(g, rowOf(x.Data, i, c), rowOf(y.Data, i, c), rowOf(z.Grad, i, c),
				rowOf(x.Grad, i, c), rowOf(y.Grad, i, c))
		}
	})
	return z
}

// Dist implements Manifold: d = 2√K·asinh(√s), s = ‖x−y‖_L²/(4K).
func (h Hyperboloid) Dist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return h.rowDist("Dist", tp, x, y, false)
}

// SqDist implements Manifold: d².
func (h Hyperboloid) SqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return h.rowDist("SqDist", tp, x, y, true)
}

// rowDist is Dist/SqDist. Backward: ∂L/∂x_s = ḡ·(∂d/∂s)·∂s/∂x_s with
// ∂d/∂s = √K/(√s√(1+s)) (0 at s = 0), ∂d²/∂s = 4K·asinhc(√s)/√(1+s).
func (h Hyperboloid) rowDist(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor {
	g := h.geo(op)
	checkSameRows(op, x, y)
	c, rows := x.Cols(), x.Rows()
	shape, r := shapeWithCols(x.Shape, 1)
	out := tp.Alloc(tensor.AnyGrad(x, y), shape[:r]...)
	for i := 0; i < rows; i++ {
		p := newPairGeom(g, rowOf(x.Data, i, c)[1:], rowOf(y.Data, i, c)[1:])
		d := distFromS(g, p.s)
		if squared {
			d *= d
		}
		out.Data[i] = float32(d)
	}
	tp.Record(out, func() {
		for i := 0; i < rows; i++ {
			xs, ys := rowOf(x.Data, i, c)[1:], rowOf(y.Data, i, c)[1:]
			p := newPairGeom(g, xs, ys)
			var ds float64
			if squared {
				ds = sqDistDS(g, p.s)
			} else {
				ds = distDS(g, p.s)
			}
			var gx, gy []float32
			if x.Grad != nil {
				gx = rowOf(x.Grad, i, c)[1:]
			}
			if y.Grad != nil {
				gy = rowOf(y.Grad, i, c)[1:]
			}
			addChordGrad(g, &p, float64(out.Grad[i])*ds, xs, ys, gx, gy)
		}
	})
	return out
}

// PairDist implements Manifold: (N,n+1),(M,n+1) -> (N,M).
func (h Hyperboloid) PairDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return h.pairDist("PairDist", tp, x, y, false)
}

// PairSqDist implements Manifold: (N,n+1),(M,n+1) -> (N,M) squared distances.
func (h Hyperboloid) PairSqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	return h.pairDist("PairSqDist", tp, x, y, true)
}

// radii holds the per-point quantities of a batch for the pairwise kernels.
type radii struct{ r, ir, x0, a []float64 }

func newRadii(g geo, x *tensor.Tensor) radii {
	rows, c := x.Rows(), x.Cols()
	buf := make([]float64, 4*rows)
	rd := radii{r: buf[:rows], ir: buf[rows : 2*rows], x0: buf[2*rows : 3*rows], a: buf[3*rows:]}
	for i := 0; i < rows; i++ {
		rd.r[i], rd.ir[i], rd.x0[i], rd.a[i] = pointRadius(g, rowOf(x.Data, i, c)[1:])
	}
	return rd
}

// pairDist computes s for every pair (i, j) from per-point radii and the
// float64 sum of squared differences of unit vectors (a matmul-shaped loop).
// Backward:
//
//	∂L/∂x_i = Σ_j c_ij·(cx_ij·x_i − y_j/(2K)),   ∂L/∂y_j = Σ_i c_ij·(cy_ij·y_j − x_i/(2K)),
//
// with c_ij = ḡ_ij·∂d/∂s (or ∂d²/∂s) and cx, cy as in chordGradCoef; the sums
// Σ_j c_ij·y_j and Σ_i c_ij·x_i are accumulated in float64.
func (h Hyperboloid) pairDist(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor {
	g := h.geo(op)
	checkPoints(op, x)
	if x.Cols() != y.Cols() {
		panic(fmt.Sprintf("lorentz: %s: point widths %v and %v differ", op, x.Shape, y.Shape))
	}
	c, nx, ny := x.Cols(), x.Rows(), y.Rows()
	out := tp.Alloc(tensor.AnyGrad(x, y), nx, ny)
	rx, ry := newRadii(g, x), newRadii(g, y)
	// Rows of x on every core: each distance is computed as on one.
	parallel.For(nx, 1, ny*4*c, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs := rowOf(x.Data, i, c)[1:]
			o := out.Data[i*ny : (i+1)*ny]
			for j := 0; j < ny; j++ {
				q := unitDiffSq(xs, rowOf(y.Data, j, c)[1:], rx.ir[i], ry.ir[j])
				d := distFromS(g, chordS(g, rx.a[i], ry.a[j], rx.r[i], ry.r[j], q))
				if squared {
					d *= d
				}
				o[j] = float32(d)
			}
		}
	})
	tp.Record(out, func() {
		n := c - 1
		h2 := 1 / (2 * g.k)
		// Two passes on every core, each sum in the order of the serial
		// loop it replaced (j ascending for x_i's, i ascending for y_j's):
		// over rows i, every pair's c_ij and cy_ij (kept for the second
		// pass; c_ij = 0 where the pair adds nothing) and x_i's gradient;
		// then over columns j, y_j's gradient.
		var cij, cyij []float64
		if y.Grad != nil {
			cij, cyij = make([]float64, nx*ny), make([]float64, nx*ny)
		}
		accX := make([]float64, parallel.Workers()*n)
		parallel.ForWorker(nx, 1, ny*8*c, parallel.Workers(), func(w, lo, hi int) {
			acc := accX[w*n : (w+1)*n]
			for i := lo; i < hi; i++ {
				xs := rowOf(x.Data, i, c)[1:]
				clear(acc)
				var cxS float64
				for j := 0; j < ny; j++ {
					gij := float64(out.Grad[i*ny+j])
					if gij == 0 {
						continue
					}
					ys := rowOf(y.Data, j, c)[1:]
					p := pairGeom{rx: rx.r[i], ry: ry.r[j], ix: rx.ir[i], iy: ry.ir[j],
						x0: rx.x0[i], y0: ry.x0[j], a: rx.a[i], b: ry.a[j]}
					p.s = chordS(g, p.a, p.b, p.rx, p.ry, unitDiffSq(xs, ys, p.ix, p.iy))
					var cc float64
					if squared {
						cc = gij * sqDistDS(g, p.s)
					} else {
						cc = gij * distDS(g, p.s)
					}
					if cc == 0 {
						continue
					}
					cx, cy := chordGradCoef(g, &p)
					if cij != nil {
						cij[i*ny+j], cyij[i*ny+j] = cc, cy
					}
					cxS += cc * cx
					for k, v := range ys {
						acc[k] += cc * float64(v)
					}
				}
				if x.Grad != nil {
					gx := rowOf(x.Grad, i, c)[1:]
					for k, v := range xs {
						gx[k] += float32(cxS*float64(v) - h2*acc[k])
					}
				}
			}
		})
		if y.Grad == nil {
			return
		}
		accY := make([]float64, parallel.Workers()*n)
		parallel.ForWorker(ny, 1, nx*4*c, parallel.Workers(), func(w, lo, hi int) {
			ay := accY[w*n : (w+1)*n]
			for j := lo; j < hi; j++ {
				clear(ay)
				var cyS float64
				for i := 0; i < nx; i++ {
					cc := cij[i*ny+j]
					if cc == 0 {
						continue
					}
					cyS += cc * cyij[i*ny+j]
					for k, v := range rowOf(x.Data, i, c)[1:] {
						ay[k] += cc * float64(v)
					}
				}
				gy := rowOf(y.Grad, j, c)[1:]
				for k, v := range rowOf(y.Data, j, c)[1:] {
					gy[k] += float32(cyS*float64(v) - h2*ay[k])
				}
			}
		})
	})
	return out
}

// TransportO implements Manifold. b is (N,n) or (n) (shared by all rows; its
// gradient is summed over rows).
func (h Hyperboloid) TransportO(tp *tensor.Tape, x, b *tensor.Tensor) *tensor.Tensor {
	g := h.geo("TransportO")
	checkPoints("TransportO", x)
	c, rows := x.Cols(), x.Rows()
	shared := checkBias("TransportO", x, b)
	v := tp.Alloc(tensor.AnyGrad(x, b), x.Shape...)
	brow := func(s []float32, i int) []float32 {
		if s == nil {
			return nil
		}
		if shared {
			return s
		}
		return rowOf(s, i, c-1)
	}
	for i := 0; i < rows; i++ {
		transportO(g, rowOf(x.Data, i, c), brow(b.Data, i), rowOf(v.Data, i, c))
	}
	tp.Record(v, func() {
		for i := 0; i < rows; i++ {
			transportOBack(g, rowOf(x.Data, i, c), brow(b.Data, i), rowOf(v.Grad, i, c),
				rowOf(x.Grad, i, c), brow(b.Grad, i))
		}
	})
	return v
}

// checkBias validates a (n) or (N,n) tangent vector at the origin against
// points x (N,n+1) and reports whether it is shared by all rows.
func checkBias(op string, x, b *tensor.Tensor) bool {
	n := x.Cols() - 1
	if b.Cols() != n {
		panic(fmt.Sprintf("lorentz: %s: tangent vectors %v do not fit points %v", op, b.Shape, x.Shape))
	}
	if len(b.Data) == n {
		return true
	}
	if b.Rows() != x.Rows() {
		panic(fmt.Sprintf("lorentz: %s: %d tangent vectors for %d points", op, b.Rows(), x.Rows()))
	}
	return false
}

// Transport implements Manifold. Only the spatial part of v is read.
func (h Hyperboloid) Transport(tp *tensor.Tape, x, y, v *tensor.Tensor) *tensor.Tensor {
	g := h.geo("Transport")
	checkSameRows("Transport", x, y)
	checkSameRows("Transport", x, v)
	c, rows := x.Cols(), x.Rows()
	w := tp.Alloc(tensor.AnyGrad(x, y, v), x.Shape...)
	for i := 0; i < rows; i++ {
		transport(g, rowOf(x.Data, i, c), rowOf(y.Data, i, c), rowOf(v.Data, i, c), rowOf(w.Data, i, c))
	}
	tp.Record(w, func() {
		for i := 0; i < rows; i++ {
			transportBack(g, rowOf(x.Data, i, c), rowOf(y.Data, i, c), rowOf(v.Data, i, c),
				rowOf(w.Grad, i, c), rowOf(x.Grad, i, c), rowOf(y.Grad, i, c), rowOf(v.Grad, i, c))
		}
	})
	return w
}

// Project implements Manifold: (sqrt(K + |x_s|²), x_s).
// Backward: ∂L/∂x_s = g_s + g0·x_s/x0.
func (h Hyperboloid) Project(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor {
	g := h.geo("Project")
	checkPoints("Project", x)
	c, rows := x.Cols(), x.Rows()
	y := tp.Alloc(x.Grad != nil, x.Shape...)
	for i := 0; i < rows; i++ {
		yi := rowOf(y.Data, i, c)
		copy(yi[1:], rowOf(x.Data, i, c)[1:])
		writeTime(g, yi)
	}
	tp.Record(y, func() {
		for i := 0; i < rows; i++ {
			yi, gyi, gxi := rowOf(y.Data, i, c), rowOf(y.Grad, i, c), rowOf(x.Grad, i, c)
			t0 := foldTime(g, yi, gyi)
			for k := 1; k < c; k++ {
				gxi[k] += gyi[k] + float32(t0*float64(yi[k]))
			}
		}
	})
	return y
}

// Inner implements Manifold: ⟨x,y⟩_L = −x0y0 + Σ x_k y_k of the rows as given
// (time coordinates included: it serves points and tangent vectors alike),
// accumulated in float64. Backward: ∂/∂x = ḡ·(−y0, y_s), ∂/∂y = ḡ·(−x0, x_s).
func (h Hyperboloid) Inner(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor {
	checkSameRows("Inner", x, y)
	return innerOp(tp, x, y, -1)
}

// innerOp computes sign·x0y0 + Σ_{k≥1} x_k y_k row-wise.
func innerOp(tp *tensor.Tape, x, y *tensor.Tensor, sign float64) *tensor.Tensor {
	c, rows := x.Cols(), x.Rows()
	shape, r := shapeWithCols(x.Shape, 1)
	out := tp.Alloc(tensor.AnyGrad(x, y), shape[:r]...)
	for i := 0; i < rows; i++ {
		xi, yi := rowOf(x.Data, i, c), rowOf(y.Data, i, c)
		out.Data[i] = float32(sign*float64(xi[0])*float64(yi[0]) + dot(xi[1:], yi[1:]))
	}
	tp.Record(out, func() {
		for i := 0; i < rows; i++ {
			gi := float64(out.Grad[i])
			xi, yi := rowOf(x.Data, i, c), rowOf(y.Data, i, c)
			if x.Grad != nil {
				gx := rowOf(x.Grad, i, c)
				gx[0] += float32(gi * sign * float64(yi[0]))
				for k := 1; k < c; k++ {
					gx[k] += float32(gi * float64(yi[k]))
				}
			}
			if y.Grad != nil {
				gy := rowOf(y.Grad, i, c)
				gy[0] += float32(gi * sign * float64(xi[0]))
				for k := 1; k < c; k++ {
					gy[k] += float32(gi * float64(xi[k]))
				}
			}
		}
	})
	return out
}
