package lorentz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// TestPairDistMatchesSerial checks the pairwise distances, whose forward
// pass and backward sums run on every core, against the serial loops they
// replaced (pairDistSerial, kept here as they were), bit for bit: values
// and both gradients, squared or not, with upstream gradients that are
// zero for some pairs, a coincident pair, and x and y the same tensor.
func TestPairDistMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, h := range []Hyperboloid{{K: 0.5}, {K: 2}} {
		for _, sq := range []bool{false, true} {
			for _, same := range []bool{false, true} {
				t.Run(fmt.Sprintf("K=%v/squared=%v/same=%v", h.K, sq, same), func(t *testing.T) {
					const nx, ny, n = 37, 29, 64
					rng := rand.New(rand.NewPCG(5, 6))
					tp := tensor.NewTape()
					vx, vy := tensor.New(nx, n), tensor.New(ny, n)
					for i := range vx.Data {
						vx.Data[i] = float32(rng.NormFloat64() * 0.3)
					}
					for i := range vy.Data {
						vy.Data[i] = float32(rng.NormFloat64() * 0.3)
					}
					copy(vy.Data[:n], vx.Data[:n]) // one coincident pair
					x0, y0 := h.ExpO(tp, vx), h.ExpO(tp, vy)
					ny2 := ny
					if same {
						ny2 = nx
					}
					seed := make([]float32, nx*ny2)
					for i := range seed {
						if rng.IntN(4) > 0 {
							seed[i] = float32(rng.NormFloat64())
						}
					}
					run := func(f func(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor) (out, gx, gy []float32) {
						px := tensor.Param("x", nx, n+1)
						copy(px.Data, x0.Data)
						py := px
						if !same {
							py = tensor.Param("y", ny, n+1)
							copy(py.Data, y0.Data)
						}
						tp := tensor.NewTape()
						o := f("PairDist", tp, px, py, sq)
						tp.BackwardWith(o, seed)
						return o.Data, px.Grad, py.Grad
					}
					o1, gx1, gy1 := run(h.pairDist)
					o2, gx2, gy2 := run(h.pairDistSerial)
					for _, c := range []struct {
						what string
						a, b []float32
					}{{"distances", o1, o2}, {"x gradient", gx1, gx2}, {"y gradient", gy1, gy2}} {
						for i := range c.a {
							if math.Float32bits(c.a[i]) != math.Float32bits(c.b[i]) {
								t.Fatalf("%s[%d]: %v, serial %v", c.what, i, c.a[i], c.b[i])
							}
						}
					}
				})
			}
		}
	}
}

// pairDistSerial is pairDist as it was before its loops ran on every core.
func (h Hyperboloid) pairDistSerial(op string, tp *tensor.Tape, x, y *tensor.Tensor, squared bool) *tensor.Tensor {
	g := h.geo(op)
	checkPoints(op, x)
	if x.Cols() != y.Cols() {
		panic(fmt.Sprintf("lorentz: %s: point widths %v and %v differ", op, x.Shape, y.Shape))
	}
	c, nx, ny := x.Cols(), x.Rows(), y.Rows()
	out := tp.Alloc(tensor.AnyGrad(x, y), nx, ny)
	rx, ry := newRadii(g, x), newRadii(g, y)
	for i := 0; i < nx; i++ {
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
	tp.Record(out, func() {
		n := c - 1
		accX := make([]float64, n)
		var accY []float64
		if y.Grad != nil {
			accY = make([]float64, ny*n)
		}
		cyS := make([]float64, ny) // Σ_i c_ij·cy_ij per column j
		h2 := 1 / (2 * g.k)
		for i := 0; i < nx; i++ {
			xs := rowOf(x.Data, i, c)[1:]
			clear(accX)
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
				var cij float64
				if squared {
					cij = gij * sqDistDS(g, p.s)
				} else {
					cij = gij * distDS(g, p.s)
				}
				if cij == 0 {
					continue
				}
				cx, cy := chordGradCoef(g, &p)
				cxS += cij * cx
				cyS[j] += cij * cy
				for k, v := range ys {
					accX[k] += cij * float64(v)
				}
				if accY != nil {
					ay := accY[j*n : (j+1)*n]
					for k, v := range xs {
						ay[k] += cij * float64(v)
					}
				}
			}
			if x.Grad != nil {
				gx := rowOf(x.Grad, i, c)[1:]
				for k, v := range xs {
					gx[k] += float32(cxS*float64(v) - h2*accX[k])
				}
			}
		}
		if y.Grad != nil {
			for j := 0; j < ny; j++ {
				gy := rowOf(y.Grad, j, c)[1:]
				ys := rowOf(y.Data, j, c)[1:]
				ay := accY[j*n : (j+1)*n]
				for k, v := range ys {
					gy[k] += float32(cyS[j]*float64(v) - h2*ay[k])
				}
			}
		}
	})
	return out
}
