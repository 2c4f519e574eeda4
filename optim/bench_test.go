package optim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// BenchmarkAdamStep10M steps AdamW over 10M parameters in 10 (1000, 1000)
// matrices. Each element reads p, g, m, v and writes p, m, v: 28 bytes, so
// the step moves 280 MB and is bound by memory bandwidth.
func BenchmarkAdamStep10M(b *testing.B) {
	cfg := DefaultConfig()
	cfg.WeightDecay = 0.01
	o := NewAdamW(cfg)
	rng := rand.New(rand.NewPCG(1, 0))
	for i := range 10 {
		p := tensor.Param(fmt.Sprintf("layer.%d.w", i), 1000, 1000)
		for j := range p.Data {
			p.Data[j] = rng.Float32()
			p.Grad[j] = rng.Float32() - 0.5
		}
		if err := o.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	o.Step(1e-3) // plan the chunks outside the timer
	b.SetBytes(28 * 10_000_000)
	b.ReportAllocs()
	for b.Loop() {
		o.Step(1e-3)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e7, "ns/param")
}

// BenchmarkClipGradNorm10M is the norm pass plus scaling over 10M gradients.
func BenchmarkClipGradNorm10M(b *testing.B) {
	var ps []*tensor.Tensor
	for i := range 10 {
		p := tensor.Param(fmt.Sprintf("w%d", i), 1000, 1000)
		for j := range p.Grad {
			p.Grad[j] = 1
		}
		ps = append(ps, p)
	}
	b.SetBytes(8 * 10_000_000)
	for b.Loop() {
		ClipGradNorm(ps, 1e9) // norm only: no scaling, gradients unchanged
	}
}
