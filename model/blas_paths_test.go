package model

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// TestBLASPathsAgree computes the loss and gradients of one training step
// (dropout on) on every BLAS path this machine has: bit-identical when
// repeated on one path (same seed, same numbers), and across paths equal to
// float32 rounding — relative 1e-3, with gradients near zero measured
// against a hundredth of the largest (measured: a few 1e-6).
func TestBLASPathsAgree(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	cfg := tinyConfig(g)
	cfg.Dropout = 0.2
	// The default model's hop features (tinyConfig turns them off).
	def := Default()
	cfg.FeatureHops, cfg.FeatureSkip = def.FeatureHops, def.FeatureSkip
	if cfg.FeatureHops == 0 {
		t.Fatal("the default config has no hop features: this test is meant to cover them")
	}
	b := linkBatch(t, g, [][2]int32{{0, 1}, {2, 3}, {4, 7}}, cfg.Neighbors, 3)
	step := func() []float32 {
		m, err := New(cfg, 42)
		if err != nil {
			t.Fatal(err)
		}
		// Their basis and propagation (products too) are computed on the
		// path under test.
		in := preparedInputs(t, m, g)
		tp := tensor.NewTape()
		loss, _, err := m.Loss(tp, in, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		tp.Backward(loss)
		out := []float32{loss.Data[0]}
		for _, p := range m.Params() {
			out = append(out, p.Grad...)
		}
		return out
	}
	active := tensor.BLASName()
	defer func() {
		if err := tensor.UseBLAS(active); err != nil {
			t.Fatal(err)
		}
	}()
	paths := tensor.BLASPaths()
	var ref []float32
	for _, name := range paths {
		if err := tensor.UseBLAS(name); err != nil {
			t.Fatal(err)
		}
		r1, r2 := step(), step()
		for i := range r1 {
			if math.Float32bits(r1[i]) != math.Float32bits(r2[i]) {
				t.Fatalf("%s: value %d is %v, then %v: not repeatable", name, i, r1[i], r2[i])
			}
		}
		if ref == nil {
			ref = r1
			continue
		}
		scale := 0.0
		for _, v := range ref[1:] {
			scale = math.Max(scale, math.Abs(float64(v)))
		}
		worst := 0.0
		for i := range r1 {
			d := math.Abs(float64(r1[i])-float64(ref[i])) / math.Max(math.Abs(float64(ref[i])), 1e-2*scale)
			if math.IsNaN(d) || d > 1e-3 {
				t.Fatalf("%s: value %d (0 is the loss) = %v, %s gives %v", name, i, r1[i], paths[0], ref[i])
			}
			worst = math.Max(worst, d)
		}
		t.Logf("%s vs %s: largest relative difference %.2g", name, paths[0], worst)
	}
}
