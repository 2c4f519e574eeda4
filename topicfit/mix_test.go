package topicfit

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// With the background mixture, the topic start's fits score the words as
// the topic loss does (model.Topics.WordProbs): Fit's NLL is BowNLL of
// WordProbs, FitSimilarity's the per-token NLL of WordProbs, both unlike
// θβ's; the full fit trains ρ, the decoder-only fit leaves it.
func TestFitsWithBackgroundMix(t *testing.T) {
	g := tinyGraph(t, 40, 3)
	cfg := tinyConfig(g)
	cfg.Tree.BackgroundMix = 0.3
	docs := allDocs(g.NumDocs())
	build := func() (*model.Model, *model.Inputs, []float32) { return preparedModel(t, g, cfg, docs) }
	m, in, tangent := build()
	tp := tensor.NewTape()
	tp.NoGrad = true
	d := tp.Alloc(false, len(docs), cfg.Width)
	copy(d.Data, tangent)
	z, zh := m.Topics.Embeddings(tp)
	theta := m.Topics.Theta(tp, m.M.ExpO(tp, d), z, zh)
	beta := m.Topics.Beta(tp, z)
	p := m.Topics.WordProbs(tp, theta, beta)
	q := tp.MatMul(theta, beta, false, false)
	ptr, word, count := in.SubsetBoW(docs)
	want := float64(model.BowNLL(tp, p, ptr, word, count).Data[0])
	plain := float64(model.BowNLL(tp, q, ptr, word, count).Data[0])
	if math.Abs(want-plain) < 1e-3 {
		t.Fatalf("the mixture barely changes the NLL (%.6g vs %.6g): the check proves nothing", want, plain)
	}
	for _, decoderOnly := range []bool{false, true} {
		m, in, tangent := build()
		rho := m.Topics.Mix.Data[0]
		got, err := Fit(m, tangent, in, docs, Options{Steps: 1, LR: 0.01, DecoderOnly: decoderOnly})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-5*math.Abs(want) {
			t.Errorf("decoder only %v: Fit's NLL %.8g, BowNLL of WordProbs %.8g (of θβ %.8g)", decoderOnly, got, want, plain)
		}
		if moved := m.Topics.Mix.Data[0] != rho; moved == decoderOnly {
			t.Errorf("decoder only %v: ρ moved %v", decoderOnly, moved)
		}
	}

	// FitSimilarity's starting NLL: per token over all documents.
	V := p.Cols()
	var nll, n float64
	for i := range docs {
		for k := ptr[i]; k < ptr[i+1]; k++ {
			nll -= float64(count[k]) * math.Log(float64(p.Data[i*V+int(word[k])]))
			n += float64(count[k])
		}
	}
	f, err := FitSimilarity(m, tangent, in, docs, false)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Before-nll/n) > 1e-5 {
		t.Errorf("FitSimilarity's NLL before %.8g, WordProbs' %.8g", f.Before, nll/n)
	}
}
