package model

import (
	"fmt"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/tensor"
)

// benchSetup is the default configuration (width 128, 3 layers, 13 topics,
// k = 5) over a synthetic corpus of 256 documents of 22 to 96 tokens (mean
// 59, as the kept lengths of Cora ML and PL) and a vocabulary of 2000, with
// a batch of 16 links = 32 distinct centres.
func benchSetup(b *testing.B) (*Model, *Inputs, *Batch, *corpus.Graph) {
	b.Helper()
	g := tinyGraph(256, 2000, 22, 96, false, 9)
	cfg := Default()
	cfg.Vocab = len(g.Vocab)
	cfg.NumLabels = g.NumLabels()
	m, err := New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	in := preparedInputs(b, m, g)
	var links [][2]int32
	for i := int32(0); i < 16; i++ {
		links = append(links, [2]int32{2 * i, 2*i + 1}) // ring links
	}
	batch := linkBatch(b, g, links, cfg.Neighbors, 1)
	if len(batch.Centres) != 32 {
		b.Fatalf("%d centres", len(batch.Centres))
	}
	return m, in, batch, g
}

// BenchmarkLoss: one training step's forward and backward for 32 centres;
// docs/s counts centre documents.
func BenchmarkLoss(b *testing.B) {
	for _, mode := range []string{"nested", "cache"} {
		b.Run(mode, func(b *testing.B) {
			m, in, batch, _ := benchSetup(b)
			var cache *Cache
			if mode == "cache" {
				cache = m.NewCache(in.N)
				m.Refresh(cache, in, allDocs(in.N), 64)
			}
			tp := tensor.NewTape()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tp.Reset()
				for _, p := range m.Params() {
					p.ZeroGrad()
				}
				loss, _, err := m.Loss(tp, in, batch, cache)
				if err != nil {
					b.Fatal(err)
				}
				tp.Backward(loss)
			}
			b.ReportMetric(float64(len(batch.Centres)*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// benchHops runs op over all 256 documents of benchSetup once per
// iteration, one hop against two, reporting documents per second.
func benchHops(b *testing.B, op func(m *Model, in *Inputs, g *corpus.Graph, docs []int32)) {
	for _, hops := range []int{1, 2} {
		b.Run(fmt.Sprintf("hops=%d", hops), func(b *testing.B) {
			m, in, _, g := benchSetup(b)
			m.Cfg.Hops = hops
			docs := allDocs(in.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				op(m, in, g, docs)
			}
			b.ReportMetric(float64(len(docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkEmbed: inference over all 256 documents (each neighbour
// re-encoded for the cache — with two hops, nested over its own neighbours
// — then the documents in batches of 64 with up to 5 neighbours).
func BenchmarkEmbed(b *testing.B) {
	benchHops(b, func(m *Model, in *Inputs, g *corpus.Graph, docs []int32) {
		m.Embed(in, docs, nbrsOf(g), 5, 64)
	})
}

// BenchmarkRefreshNeighbors: the per-epoch cache refresh of training over
// all 256 documents, one hop (own text) against two (plus the nested pass).
func BenchmarkRefreshNeighbors(b *testing.B) {
	var c *Cache
	benchHops(b, func(m *Model, in *Inputs, g *corpus.Graph, docs []int32) {
		if c == nil || c.N != in.N {
			c = m.NewCache(in.N)
		}
		m.RefreshNeighbors(c, in, docs, nbrsOf(g), 64, 64)
	})
}

// BenchmarkFeatures: gtformer train's features phase as the trainer runs
// it (FitFeatures on the training documents, then PropagateFeatures over
// the holdout's neighbours, three hops at the default width) on a
// synthetic corpus of 25,000 documents shaped as bench/scale.sh's (600
// words, 60 tokens, 56,180 links: 1M per 445K documents), whose 20,000
// training documents are exactly the basis's sample cap. Run with
// -benchmem: B/op is what the phase allocates (its transient buffers
// set the phase's peak); docs/s counts every document's features.
func BenchmarkFeatures(b *testing.B) {
	for _, docs := range []int{25000} {
		b.Run(fmt.Sprintf("docs=%d", docs), func(b *testing.B) {
			cfg := synth.Default()
			cfg.Docs, cfg.Links = docs, (docs*1000000+222500)/445000
			g, _, err := synth.Generate(cfg)
			if err != nil {
				b.Fatal(err)
			}
			s := corpus.PaperSplit(g)
			h := s.Holdout(g)
			mc := Default()
			mc.Vocab, mc.NumLabels = len(g.Vocab), g.NumLabels()
			m, err := New(mc, 1)
			if err != nil {
				b.Fatal(err)
			}
			m.IDF = IDF(g, s.Train)
			in := NewInputs(g, m.IDF, mc.MaxLen, mc.Truncate)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.LSA = nil
				if err := m.FitFeatures(in, s.Train, 1); err != nil {
					b.Fatal(err)
				}
				m.PropagateFeatures(in, h.TrainNeighbors32)
			}
			b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
