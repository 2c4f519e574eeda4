package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// layerNormBackwardRef is layerNormBackward as it was before rows were
// taken in pairs (one row at a time, the reference for the same bits).
func layerNormBackwardRef(nd *node) {
	x, res, xhat, gamma, beta, stats, scratch := nd.a, nd.xs[0], nd.xs[1], nd.b, nd.c, nd.aux, nd.aux2
	dyAll := nd.out.Grad
	drop := dropSpec{key: uint64(nd.i[1]), thr: uint32(nd.i[3]), keep: nd.f[1], on: nd.i[2] == 1, cols: x.Cols()}
	c, rows := x.Cols(), x.Rows()
	clear(scratch.Data)
	parallelBlocks(rows, 8*c, func(w, lo, hi int) {
		pg, pb := scratch.Data[w*3*c:w*3*c+c], scratch.Data[w*3*c+c:w*3*c+2*c]
		mask := scratch.Data[w*3*c+2*c : (w+1)*3*c]
		for i := lo; i < hi; i++ {
			xh, dy := xhat.Data[i*c:(i+1)*c], dyAll[i*c:(i+1)*c]
			r := stats.Data[2*i+1]
			var sg, sgx float32
			for j, g := range dy {
				pg[j] += g * xh[j]
				pb[j] += g
				if gamma != nil {
					g *= gamma.Data[j]
				}
				sg += g
				sgx += g * xh[j]
			}
			sg /= float32(c)
			sgx /= float32(c)
			var dx, dr []float32
			if x.Grad != nil {
				dx = x.Grad[i*c : (i+1)*c]
			}
			if res != nil && res.Grad != nil {
				dr = res.Grad[i*c : (i+1)*c]
				if drop.on {
					drop.row(i, mask)
				}
			}
			if dx == nil && dr == nil {
				continue
			}
			for j, g := range dy {
				if gamma != nil {
					g *= gamma.Data[j]
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

// TestLayerNormBackwardRowPairs: the backward that sums rows in pairs
// gives the one-row-at-a-time backward's gradients bit for bit (x, the
// residual, γ, β), with and without γ, residual and dropout, for even and
// odd row counts.
func TestLayerNormBackwardRowPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, rows := range []int{1, 2, 5, 37, 300} {
		for _, c := range []int{8, 128} {
			for kind := range 4 { // LayerNorm, no γ; LayerNorm; AddLayerNorm; AddDropoutLayerNorm
				x, res := randParamN(rng, "x", rows, c), randParamN(rng, "res", rows, c)
				gamma, beta := randParamN(rng, "gamma", c), randParamN(rng, "beta", c)
				tp := NewTape()
				var y *Tensor
				switch kind {
				case 0:
					gamma = nil
					y = tp.LayerNorm(x, nil, beta)
				case 1:
					y = tp.LayerNorm(x, gamma, beta)
				case 2:
					y = tp.AddLayerNorm(x, res, gamma, beta)
				case 3:
					y = tp.AddDropoutLayerNorm(x, res, 0.1, rng, gamma, beta)
				}
				for i := range y.Grad {
					y.Grad[i] = float32(rng.NormFloat64())
				}
				nd := &tp.nodes[len(tp.nodes)-1]
				params := []*Tensor{x, res, beta}
				if gamma != nil {
					params = append(params, gamma)
				}
				grads := func(bw func(*node)) [][]float32 {
					for _, p := range params {
						clear(p.Grad)
					}
					bw(nd)
					var g [][]float32
					for _, p := range params {
						g = append(g, append([]float32(nil), p.Grad...))
					}
					return g
				}
				want, got := grads(layerNormBackwardRef), grads(layerNormBackward)
				for k := range want {
					for i, v := range got[k] {
						if math.Float32bits(v) != math.Float32bits(want[k][i]) {
							t.Fatalf("rows %d, c %d, kind %d, %s: gradient %d is %v, want %v", rows, c, kind, params[k].Name, i, v, want[k][i])
						}
					}
				}
			}
		}
	}
}

func randParamN(rng *rand.Rand, name string, shape ...int) *Tensor {
	p := Param(name, shape...)
	for i := range p.Data {
		p.Data[i] = float32(rng.NormFloat64())
	}
	return p
}
