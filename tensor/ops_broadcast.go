package tensor

import "fmt"

// Broadcasting of a row vector r (C) over every row of x (…,C), and of a
// column vector c (one value per row of x, i.e. Rows(x) values) over every
// column. The kind selects +, -, ⊙ or ÷ so one kernel serves eight ops.

type bcastKind int

const (
	bcAdd bcastKind = iota
	bcSub
	bcMul
	bcDiv
)

var bcastNames = [...]string{"Add", "Sub", "Mul", "Div"}

// AddRow returns x + r broadcast over rows: x (…,C), r (C).
//
//	dx += dy,  dr += Σ_rows dy
func (tp *Tape) AddRow(x, r *Tensor) *Tensor { return tp.rowOp(bcAdd, x, r) }

// SubRow returns x - r broadcast over rows.
//
//	dx += dy,  dr -= Σ_rows dy
func (tp *Tape) SubRow(x, r *Tensor) *Tensor { return tp.rowOp(bcSub, x, r) }

// MulRow returns x ⊙ r broadcast over rows.
//
//	dx += dy·r,  dr += Σ_rows dy·x
func (tp *Tape) MulRow(x, r *Tensor) *Tensor { return tp.rowOp(bcMul, x, r) }

// DivRow returns x ÷ r broadcast over rows.
//
//	dx += dy/r,  dr -= Σ_rows dy·y/r
func (tp *Tape) DivRow(x, r *Tensor) *Tensor { return tp.rowOp(bcDiv, x, r) }

// AddCol returns x + c with c (Rows(x)) broadcast over columns.
//
//	dx += dy,  dc += Σ_cols dy
func (tp *Tape) AddCol(x, c *Tensor) *Tensor { return tp.colOp(bcAdd, x, c) }

// SubCol returns x - c broadcast over columns.
//
//	dx += dy,  dc -= Σ_cols dy
func (tp *Tape) SubCol(x, c *Tensor) *Tensor { return tp.colOp(bcSub, x, c) }

// MulCol returns x ⊙ c broadcast over columns.
//
//	dx += dy·c,  dc += Σ_cols dy·x
func (tp *Tape) MulCol(x, c *Tensor) *Tensor { return tp.colOp(bcMul, x, c) }

// DivCol returns x ÷ c broadcast over columns.
//
//	dx += dy/c,  dc -= Σ_cols dy·y/c
func (tp *Tape) DivCol(x, c *Tensor) *Tensor { return tp.colOp(bcDiv, x, c) }

func apply(k bcastKind, dst, x []float32, v float32) {
	switch k {
	case bcAdd:
		for i, a := range x {
			dst[i] = a + v
		}
	case bcSub:
		for i, a := range x {
			dst[i] = a - v
		}
	case bcMul:
		for i, a := range x {
			dst[i] = a * v
		}
	case bcDiv:
		for i, a := range x {
			dst[i] = a / v
		}
	}
}

func (tp *Tape) rowOp(k bcastKind, x, r *Tensor) *Tensor {
	cols := x.Cols()
	if len(r.Data) != cols {
		panic(fmt.Sprintf("tensor: %sRow: row vector %v does not fit %v", bcastNames[k], r.Shape, x.Shape))
	}
	y := tp.alloc(anyGrad2(x, r), x.Shape...)
	parallelFor(x.Rows(), 16, cols, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, yr := x.Data[i*cols:(i+1)*cols], y.Data[i*cols:(i+1)*cols]
			switch k {
			case bcAdd:
				for j, a := range xr {
					yr[j] = a + r.Data[j]
				}
			case bcSub:
				for j, a := range xr {
					yr[j] = a - r.Data[j]
				}
			case bcMul:
				for j, a := range xr {
					yr[j] = a * r.Data[j]
				}
			case bcDiv:
				for j, a := range xr {
					yr[j] = a / r.Data[j]
				}
			}
		}
	})
	if nd := tp.push(y, rowOpBackward); nd != nil {
		nd.a, nd.b, nd.i[0] = x, r, int(k)
	}
	return y
}

func rowOpBackward(nd *node) {
	x, r, y, k := nd.a, nd.b, nd.out, bcastKind(nd.i[0])
	cols, rows := x.Cols(), x.Rows()
	if x.Grad != nil {
		parallelFor(rows, 16, cols, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dx, dy := x.Grad[i*cols:(i+1)*cols], y.Grad[i*cols:(i+1)*cols]
				switch k {
				case bcAdd, bcSub:
					for j, g := range dy {
						dx[j] += g
					}
				case bcMul:
					for j, g := range dy {
						dx[j] += g * r.Data[j]
					}
				case bcDiv:
					for j, g := range dy {
						dx[j] += g / r.Data[j]
					}
				}
			}
		})
	}
	if r.Grad != nil {
		// Columns split among workers; each sums its columns over all rows.
		parallelFor(cols, 16, rows, func(lo, hi int) {
			dr := r.Grad[lo:hi]
			for i := range rows {
				o := i*cols + lo
				dy := y.Grad[o : o+hi-lo]
				switch k {
				case bcAdd:
					for j, g := range dy {
						dr[j] += g
					}
				case bcSub:
					for j, g := range dy {
						dr[j] -= g
					}
				case bcMul:
					xs := x.Data[o : o+hi-lo]
					for j, g := range dy {
						dr[j] += g * xs[j]
					}
				case bcDiv:
					ys := y.Data[o : o+hi-lo]
					for j, g := range dy {
						dr[j] -= g * ys[j] / r.Data[lo+j]
					}
				}
			}
		})
	}
}

func (tp *Tape) colOp(k bcastKind, x, c *Tensor) *Tensor {
	cols, rows := x.Cols(), x.Rows()
	if len(c.Data) != rows {
		panic(fmt.Sprintf("tensor: %sCol: column vector %v does not fit %v (want %d values)", bcastNames[k], c.Shape, x.Shape, rows))
	}
	y := tp.alloc(anyGrad2(x, c), x.Shape...)
	parallelFor(rows, 16, cols, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			apply(k, y.Data[i*cols:(i+1)*cols], x.Data[i*cols:(i+1)*cols], c.Data[i])
		}
	})
	if nd := tp.push(y, colOpBackward); nd != nil {
		nd.a, nd.b, nd.i[0] = x, c, int(k)
	}
	return y
}

func colOpBackward(nd *node) {
	x, c, y, k := nd.a, nd.b, nd.out, bcastKind(nd.i[0])
	cols, rows := x.Cols(), x.Rows()
	parallelFor(rows, 16, cols, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dy := y.Grad[i*cols : (i+1)*cols]
			cv := c.Data[i]
			if x.Grad != nil {
				dx := x.Grad[i*cols : (i+1)*cols]
				switch k {
				case bcAdd, bcSub:
					for j, g := range dy {
						dx[j] += g
					}
				case bcMul:
					for j, g := range dy {
						dx[j] += g * cv
					}
				case bcDiv:
					for j, g := range dy {
						dx[j] += g / cv
					}
				}
			}
			if c.Grad != nil {
				var s float32
				switch k {
				case bcAdd:
					for _, g := range dy {
						s += g
					}
				case bcSub:
					for _, g := range dy {
						s -= g
					}
				case bcMul:
					xr := x.Data[i*cols : (i+1)*cols]
					for j, g := range dy {
						s += g * xr[j]
					}
				case bcDiv:
					yr := y.Data[i*cols : (i+1)*cols]
					for j, g := range dy {
						s -= g * yr[j]
					}
					s /= cv
				}
				c.Grad[i] += s
			}
		}
	})
}
