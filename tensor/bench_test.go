package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSgemm measures C = A·B on every BLAS path at the shapes of the
// transformer layer (N = 64·128 tokens, width 256, MLP 1024), at 1024³ and
// at one attention head's product, reporting GFLOP/s from 2·m·n·k
// operations per product.
func BenchmarkSgemm(b *testing.B) {
	defer UseBLAS(BLASName())
	for _, path := range BLASPaths() {
		for _, d := range [][3]int{{1024, 1024, 1024}, {8192, 256, 256}, {8192, 1024, 256}, {8192, 256, 1024}, {256, 256, 8192}, {128, 128, 64}} {
			m, n, k := d[0], d[1], d[2]
			b.Run(fmt.Sprintf("%s/%dx%dx%d", path, m, n, k), func(b *testing.B) {
				if err := UseBLAS(path); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				x, y := randTensor(rng, m, k), randTensor(rng, k, n)
				tp := &Tape{NoGrad: true}
				tp.MatMul(x, y, false, false) // warm the arena: steady state only
				b.ReportAllocs()
				for b.Loop() {
					tp.Reset()
					tp.MatMul(x, y, false, false)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkAttention is the fused attention of the reference layer
// (B=64, T=128, C=256, 4 heads), forward + backward; 4·B·T²·C multiply-adds
// forward (scores and weighted values), twice that backward.
func BenchmarkAttention(b *testing.B) {
	bs, t, c, h := 64, 128, 256, 4
	rng := rand.New(rand.NewPCG(1, 1))
	q, k, v := randParam(rng, -1, 1, bs, t, c), randParam(rng, -1, 1, bs, t, c), randParam(rng, -1, 1, bs, t, c)
	seed := make([]float32, bs*t*c)
	tp := NewTape()
	tp.BackwardWith(tp.Attention(q, k, v, h, nil), seed) // warm the arena
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		tp.BackwardWith(tp.Attention(q, k, v, h, nil), seed)
	}
	b.ReportMetric(3*4*float64(bs*t*t*c)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkElementwise times the fused element-wise ops on one activation of
// the reference layer, forward + backward.
func BenchmarkElementwise(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n, c := 64*128, 256
	x := randParam(rng, -2, 2, n, c)
	h := randParam(rng, -2, 2, n, 4*c)
	g, be, bias := randParam(rng, 0, 1, c), randParam(rng, 0, 1, c), randParam(rng, 0, 1, 4*c)
	for _, op := range []struct {
		name string
		f    func(tp *Tape) *Tensor
	}{
		{"LayerNorm", func(tp *Tape) *Tensor { return tp.LayerNorm(x, g, be) }},
		{"Add", func(tp *Tape) *Tensor { return tp.Add(x, x) }},
		{"BiasGELU", func(tp *Tape) *Tensor { return tp.BiasGELU(h, bias) }},
		{"Softmax", func(tp *Tape) *Tensor { return tp.Softmax(x, nil) }},
	} {
		b.Run(op.name, func(b *testing.B) {
			tp := NewTape()
			y := op.f(tp)
			seed := make([]float32, len(y.Data))
			tp.BackwardWith(y, seed) // warm the arena
			b.ReportAllocs()
			for b.Loop() {
				tp.Reset()
				tp.BackwardWith(op.f(tp), seed)
			}
			b.ReportMetric(float64(len(y.Data))*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}

// BenchmarkOneQueryAttention is a [CLS]-only layer's attention at the
// default model's shapes (128 documents of 60 rows, width 128, 4 heads):
// folded through the query (OneQueryAttention) against projecting every
// key row to k and v and attending with one query per sequence.
func BenchmarkOneQueryAttention(b *testing.B) {
	docs, rows, c, heads := 128, 60, 128, 4
	rng := rand.New(rand.NewPCG(1, 1))
	q, x := randTensor(rng, docs, c), randTensor(rng, docs*rows, c)
	wk, wv, bv := randTensor(rng, c, c), randTensor(rng, c, c), randTensor(rng, c)
	tp := &Tape{NoGrad: true}
	kOff, qOff := tp.UniformOffsets(docs, rows), tp.UniformOffsets(docs, 1)
	kOff, qOff = append([]int(nil), kOff...), append([]int(nil), qOff...)
	b.Run("folded", func(b *testing.B) {
		for b.Loop() {
			tp.Reset()
			tp.OneQueryAttention(q, x, wk, wv, bv, heads, kOff, nil)
		}
	})
	b.Run("projected", func(b *testing.B) {
		for b.Loop() {
			tp.Reset()
			tp.PackedAttention(q, tp.MatMul(x, wk, false, false), tp.Linear(x, wv, bv), heads, qOff, kOff, nil)
		}
	})
}
