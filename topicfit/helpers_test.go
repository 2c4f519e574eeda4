package topicfit

import (
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
)

// tinyGraph is a built-in-style corpus with a planted 13-topic tree: docs
// documents of about 12 words over 60 words, 2 links per document.
func tinyGraph(t testing.TB, docs int, seed uint64) *corpus.Graph {
	t.Helper()
	cfg := synth.Default()
	cfg.Docs, cfg.Vocab, cfg.Links, cfg.MeanLength, cfg.Seed = docs, 60, 2*docs, 12, seed
	g, _, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tinyConfig is a width-8, 2-layer model for g.
func tinyConfig(g *corpus.Graph) model.Config {
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 8, 2, 2, 16, 16
	cfg.Vocab = len(g.Vocab)
	cfg.NumLabels = g.NumLabels()
	// The topic start on its own: no hop features (they need a fitted
	// basis), and the calibration's original contrast (its closed form is
	// checked in TestCalibrateSimilarity; the contrast in TestContrast).
	cfg.FeatureHops, cfg.FeatureSkip = 0, false
	cfg.Tree.FDContrast = 0
	return cfg
}

// allDocs returns 0..n-1.
func allDocs(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// preparedModel is a model of cfg (seed 2) prepared on docs of g, its
// inputs, and docs' tangent vectors (len(docs), width), each document
// embedded without neighbours.
func preparedModel(t testing.TB, g *corpus.Graph, cfg model.Config, docs []int32) (*model.Model, *model.Inputs, []float32) {
	t.Helper()
	m, err := model.New(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(g, docs, 1); err != nil {
		t.Fatal(err)
	}
	in := model.NewInputs(g, m.IDF, cfg.MaxLen, cfg.Truncate)
	return m, in, m.Embed(in, docs, func(int32) []int32 { return nil }, 1, 32).Tangent
}
