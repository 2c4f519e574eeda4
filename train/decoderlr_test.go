package train

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// TestDecoderLRScale: the decoder's word rows U move further in one epoch
// with DecoderLRScale = 10 than with the shared rate (Adam's steps scale
// with the rate, so by about 10×; asked here: more than 4×), and a scale of
// 0 means the shared rate, as for checkpoints written before the option.
func TestDecoderLRScale(t *testing.T) {
	g, s := tinyData(t)
	moved := func(scale float64) float64 {
		opt := tinyOptions(1, "cache", 3)
		opt.DecoderLRScale = scale
		opt.TopicInit = "random" // the "fit" start's warm-up moves U on its own
		opt.DecoderRefit = 0     // and so does the refit at the end
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		if name := tr.Model.Topics.U.Name; name != model.DecoderParam {
			t.Fatalf("decoder rows are named %q, the trainer scales %q", name, model.DecoderParam)
		}
		u0 := append([]float32(nil), tr.Model.Topics.U.Data...)
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		var d float64
		for i, v := range tr.Model.Topics.U.Data {
			d += math.Abs(float64(v - u0[i]))
		}
		return d / float64(len(u0))
	}
	base, zero, fast := moved(1), moved(0), moved(10)
	if base != zero {
		t.Errorf("scale 0 moved U by %g, scale 1 by %g: want the same", zero, base)
	}
	if !(fast > 4*base) {
		t.Errorf("scale 10 moved U by %g, scale 1 by %g: want more than 4×", fast, base)
	}
}
