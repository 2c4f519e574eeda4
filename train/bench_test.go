package train

import (
	"fmt"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
)

// BenchmarkBatch builds one step's batch (centres, sampled neighbours,
// admissible negatives) on synthetic graphs of growing size at the
// 445K-document graph's link density: the time per batch must not grow
// with the graph (compare the sizes' ns/op).
func BenchmarkBatch(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			cfg := synth.Default()
			cfg.Docs, cfg.Links = n, n*1000000/445000
			g, _, err := synth.Generate(cfg)
			if err != nil {
				b.Fatal(err)
			}
			s := corpus.PaperSplit(g)
			mc := model.Default()
			mc.Width, mc.Layers, mc.Heads, mc.MLPHidden, mc.MaxLen = 16, 2, 2, 32, 24
			mc.Vocab, mc.NumLabels = len(g.Vocab), g.NumLabels()
			opt := DefaultOptions()
			opt.StepsPerEpoch = 300
			m, err := model.New(mc, 1)
			if err != nil {
				b.Fatal(err)
			}
			tr, err := New(m, g, s, opt, Env{})
			if err != nil {
				b.Fatal(err)
			}
			nbr := tr.sampler.Resample(0)
			links := tr.epochLinks(0)
			b.ResetTimer()
			i := 0
			for b.Loop() {
				lo := (i % opt.StepsPerEpoch) * opt.BatchLinks
				tr.batch(links[lo:lo+opt.BatchLinks], nbr, tr.sampler.K())
				i++
			}
		})
	}
}
