package tensor

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor/internal/vec"
)

// Masks for Softmax and LogSoftmax: nil (no mask) or G×C booleans for x
// viewed as (Rows, C) with G dividing Rows; row r uses mask row
// r / (Rows/G), so a (C) mask applies to every row, a (Rows, C) mask to one
// row each, and a (B, Tk) key-padding mask to attention scores (B,H,Tq,Tk).
// true means the position takes part; masked positions get probability 0.

func maskRows(op string, x *Tensor, mask []bool) int {
	if mask == nil {
		return 0
	}
	c, rows := x.Cols(), x.Rows()
	if len(mask)%c != 0 || len(mask) == 0 || rows%(len(mask)/c) != 0 {
		panic(fmt.Sprintf("tensor: %s: mask of %d values does not fit %v", op, len(mask), x.Shape))
	}
	return rows / (len(mask) / c) // rows per mask row
}

// softmaxRow writes the (masked) softmax of x into y (which may alias x) and
// returns the log of the normaliser plus the max (log Σ exp x), for
// LogSoftmax: softmaxSum, and one logarithm.
func softmaxRow(y, x []float32, m []bool) float32 {
	mx, s := softmaxSum(y, x, m)
	return mx + float32(math.Log(float64(s)))
}

// softmaxSum writes the (masked) softmax of x into y (which may alias x)
// and returns the max mx and the normaliser s = Σ exp(x − mx) (NaN and
// NaN for a row with a NaN or +Inf, −Inf and 0 for a row without
// unmasked entries). The exponentials go through vec.ExpShiftSum (eight
// lanes at a time where the CPU allows); masked entries are first replaced
// by −Inf, whose exponential is 0 (or 1e-38 in the vector kernel), and
// zeroed after.
func softmaxSum(y, x []float32, m []bool) (mx, s float32) {
	mx, bad := rowMax(x, m)
	if bad {
		// A NaN (or +Inf) input must show in the output: the vector
		// exponential would turn it into a finite probability and hide it
		// from the trainer's NaN guard.
		nv := float32(math.NaN())
		for j := range y {
			y[j] = nv
		}
		return nv, nv
	}
	if math.IsInf(float64(mx), -1) { // every position masked
		clear(y)
		return mx, 0
	}
	src := x
	if m != nil {
		negInf := float32(math.Inf(-1))
		for j, v := range x {
			if m[j] {
				y[j] = v
			} else {
				y[j] = negInf
			}
		}
		src = y
	}
	s = vec.ExpShiftSum(y, src, mx)
	inv := 1 / s
	if m != nil {
		for j := range y {
			if !m[j] {
				y[j] = 0
			}
		}
	}
	vec.Scale(y, inv)
	return mx, s
}

// rowMax returns the largest unmasked entry of x (−Inf when there is
// none), and whether an unmasked entry is NaN or the largest is +Inf. The
// attention's rows are unmasked: vec.MaxNaN scans them eight entries at a
// time (a maximum's value does not depend on the order of the
// comparisons, only a ±0 tie's sign, which exp(x − mx) does not see).
func rowMax(x []float32, m []bool) (mx float32, bad bool) {
	if m == nil {
		mx, nan := vec.MaxNaN(x)
		return mx, nan || math.IsInf(float64(mx), 1)
	}
	mx = float32(math.Inf(-1))
	nan := false
	for j, v := range x {
		if m[j] {
			if v > mx {
				mx = v
			}
			nan = nan || v != v
		}
	}
	return mx, nan || math.IsInf(float64(mx), 1)
}

// Softmax returns the softmax of x over its last axis, with an optional mask
// (see above).
//
//	y = softmax(x):  dx = y ⊙ (dy − Σⱼ dyⱼ·yⱼ)
func (tp *Tape) Softmax(x *Tensor, mask []bool) *Tensor {
	per := maskRows("Softmax", x, mask)
	y := tp.alloc(x.Grad != nil, x.Shape...)
	c := x.Cols()
	parallelFor(x.Rows(), 4, 8*c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			softmaxSum(y.Data[r*c:(r+1)*c], x.Data[r*c:(r+1)*c], maskRow(mask, per, r, c))
		}
	})
	if nd := tp.push(y, softmaxBackward); nd != nil {
		nd.a = x
	}
	return y
}

func maskRow(mask []bool, per, r, c int) []bool {
	if mask == nil {
		return nil
	}
	g := r / per
	return mask[g*c : (g+1)*c]
}

func softmaxBackward(nd *node) {
	x, y := nd.a, nd.out
	if x.Grad == nil {
		return
	}
	c := x.Cols()
	parallelFor(x.Rows(), 4, 2*c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr, dy, dx := y.Data[r*c:(r+1)*c], y.Grad[r*c:(r+1)*c], x.Grad[r*c:(r+1)*c]
			var s float32
			for j, g := range dy {
				s += g * yr[j]
			}
			for j, g := range dy {
				dx[j] += yr[j] * (g - s) // masked: yr = 0, no gradient
			}
		}
	})
}

// LogSoftmax returns log softmax(x) over the last axis with an optional mask;
// masked positions hold -Inf and receive no gradient. Computed directly as
// x − log Σ exp x rather than Log(Softmax(x)), which would lose precision for
// small probabilities.
//
//	y = x − logΣexp(x):  dx = dy − softmax(x)·Σⱼ dyⱼ
func (tp *Tape) LogSoftmax(x *Tensor, mask []bool) *Tensor {
	per := maskRows("LogSoftmax", x, mask)
	y := tp.alloc(x.Grad != nil, x.Shape...)
	c := x.Cols()
	negInf := float32(math.Inf(-1))
	parallelFor(x.Rows(), 4, 8*c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x.Data[r*c:(r+1)*c], y.Data[r*c:(r+1)*c]
			m := maskRow(mask, per, r, c)
			lse := softmaxRow(yr, xr, m) // yr is scratch here
			for j, v := range xr {
				if m != nil && !m[j] {
					yr[j] = negInf
				} else {
					yr[j] = v - lse
				}
			}
		}
	})
	if nd := tp.push(y, logSoftmaxBackward); nd != nil {
		nd.a = x
	}
	return y
}

func logSoftmaxBackward(nd *node) {
	x, y := nd.a, nd.out
	if x.Grad == nil {
		return
	}
	c := x.Cols()
	parallelFor(x.Rows(), 4, 8*c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr, dy, dx := y.Data[r*c:(r+1)*c], y.Grad[r*c:(r+1)*c], x.Grad[r*c:(r+1)*c]
			var s float32
			for j, g := range dy {
				if !math.IsInf(float64(yr[j]), -1) {
					s += g
				}
			}
			for j, g := range dy {
				if !math.IsInf(float64(yr[j]), -1) {
					dx[j] += g - exp32(yr[j])*s
				}
			}
		}
	})
}

// CrossEntropy returns the mean over rows of −log softmax(logits)[target] for
// logits (N,V) and targets (N); a negative target marks a row to ignore
// (padding), and the mean is over the remaining rows. Fused: the softmax
// kept for backward is the whole gradient, (p − onehot)/n, so no
// log-probability tensor is materialised. targets must stay unchanged until
// Backward has run.
//
//	L = −(1/n) Σᵢ log pᵢ[tᵢ]:  dlogitsᵢ += dL·(pᵢ − e_{tᵢ})/n
func (tp *Tape) CrossEntropy(logits *Tensor, targets []int32) *Tensor {
	v, n := logits.Cols(), logits.Rows()
	if len(targets) != n {
		panic(fmt.Sprintf("tensor: CrossEntropy: %d targets for logits %v", len(targets), logits.Shape))
	}
	p := tp.alloc(false, n, v)
	y := tp.alloc(logits.Grad != nil, 1)
	var loss float64
	count := 0
	for i, t := range targets {
		if int(t) >= v {
			panic(fmt.Sprintf("tensor: CrossEntropy: target %d outside logits %v", t, logits.Shape))
		}
		lse := softmaxRow(p.Data[i*v:(i+1)*v], logits.Data[i*v:(i+1)*v], nil)
		if t < 0 {
			continue
		}
		loss += float64(lse - logits.Data[i*v+int(t)])
		count++
	}
	if count > 0 {
		y.Data[0] = float32(loss / float64(count))
	}
	if nd := tp.push(y, crossEntropyBackward); nd != nil {
		nd.a, nd.aux, nd.ix, nd.i[0] = logits, p, targets, count
	}
	return y
}

func crossEntropyBackward(nd *node) {
	x, p, count := nd.a, nd.aux, nd.i[0]
	if x.Grad == nil || count == 0 {
		return
	}
	v := x.Cols()
	g := nd.out.Grad[0] / float32(count)
	for i, t := range nd.ix {
		if t < 0 {
			continue
		}
		dx, pr := x.Grad[i*v:(i+1)*v], p.Data[i*v:(i+1)*v]
		for j, q := range pr {
			dx[j] += g * q
		}
		dx[t] -= g
	}
}
