package bench

import (
	"math"
	"testing"
	"time"
)

// TestStepFLOPs checks the stated count for the reference layer against the
// sum written out term by term: projections 4·2·N·C², attention 2·2·B·T²·C,
// MLP 2·2·N·C·4C, times 3 for forward + backward.
func TestStepFLOPs(t *testing.T) {
	const want = 3 * (4*2*8192*256*256 + 2*2*64*128*128*256 + 2*2*8192*256*1024) // 41 875 931 136
	if got := StepFLOPs(DefaultLayer); got != want {
		t.Errorf("StepFLOPs = %v, want %v", got, float64(want))
	}
}

// TestSmallStep runs the measured step on a tiny layer: the gradients it
// produces are finite and not all zero, and the timing helpers return
// positive rates.
func TestSmallStep(t *testing.T) {
	c := LayerConfig{Batch: 2, Tokens: 8, Width: 16, Heads: 2, Hidden: 32}
	l := NewLayer(c, 3)
	l.Step()
	nonzero := 0
	for _, p := range l.Layer.Params() {
		for _, g := range p.Grad {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				t.Fatalf("%s: non-finite gradient", p.Name)
			}
			if g != 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("step produced no gradient")
	}
	if g := Step(c, 1, 0); !(g > 0) {
		t.Errorf("Step rate %v", g)
	}
	if g := Sgemm(32, 1, time.Duration(0)); !(g > 0) {
		t.Errorf("Sgemm rate %v", g)
	}
}
