package topicstart

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// TestFitMixWeightMaximises checks FitMixWeight against an independent
// reference: the per-token NLL of model.Topics.WordProbs (the tape's
// mixture, in float32, not FitMixWeight's token columns) over a grid of
// λ. From every start the fit lands on the grid's best point (the
// likelihood is concave in λ, so one maximum), its NLL is at most the
// grid's best, its reported NLLs are the reference's at the start and at
// the end, and no other topic parameter moves.
func TestFitMixWeightMaximises(t *testing.T) {
	g := tinyGraph(t, 40, 3)
	cfg := tinyConfig(g)
	cfg.Tree.BackgroundMix = 0.3
	docs := allDocs(g.NumDocs())
	build := func() (*model.Model, *model.Inputs, []float32) {
		m, in, tangent := preparedModel(t, g, cfg, docs)
		// Fitted topics, so that the best weight lies inside (0, 1):
		// random topics explain the words worse than the unigram does.
		if _, err := Fit(m, tangent, in, docs, Options{Steps: 150, LR: 0.03, DecoderOnly: true}); err != nil {
			t.Fatal(err)
		}
		return m, in, tangent
	}
	m, in, tangent := build()
	ptr, word, count := in.SubsetBoW(docs)
	reference := func(m *model.Model, l float64) float64 {
		m.Topics.SetLambda(l)
		tp := tensor.NewTape()
		tp.NoGrad = true
		d := tp.Alloc(false, len(docs), cfg.Width)
		copy(d.Data, tangent)
		z, zh := m.Topics.Embeddings(tp)
		p := m.Topics.WordProbs(tp, m.Topics.Theta(tp, m.M.ExpO(tp, d), z, zh), m.Topics.Beta(tp, z))
		V := p.Cols()
		var nll, n float64
		for i := range docs {
			for k := ptr[i]; k < ptr[i+1]; k++ {
				nll -= float64(count[k]) * math.Log(float64(p.Data[i*V+int(word[k])]))
				n += float64(count[k])
			}
		}
		return nll / n
	}
	const step = 0.005
	bestL, bestNLL := 0.0, math.Inf(1)
	for l := step; l < 1; l += step {
		if v := reference(m, l); v < bestNLL {
			bestL, bestNLL = l, v
		}
	}
	if bestL < 0.05 || bestL > 0.95 {
		t.Fatalf("the grid's best weight %.3f is at an edge: the check proves nothing", bestL)
	}
	for _, start := range []float64{0.02, 0.3, 0.9} {
		m, in, tangent := build()
		m.Topics.SetLambda(start)
		before := reference(m, start)
		params := map[*tensor.Tensor][]float32{}
		for _, p := range m.Topics.Params() {
			params[p] = slices.Clone(p.Data)
		}
		f, err := FitMixWeight(m, tangent, in, docs)
		if err != nil {
			t.Fatal(err)
		}
		l := m.Topics.Lambda()
		if math.Abs(l-bestL) > step || math.Abs(f.Lambda-l) > 1e-5 || math.Abs(f.Lambda0-start) > 1e-6 {
			t.Errorf("start %.2f: λ %.5f (reported %.5f, from %.5f), grid's best %.3f", start, l, f.Lambda, f.Lambda0, bestL)
		}
		if math.Abs(f.Before-before) > 1e-5 {
			t.Errorf("start %.2f: NLL before %.7f, reference %.7f", start, f.Before, before)
		}
		for p, was := range params {
			if p != m.Topics.Mix && !slices.Equal(p.Data, was) {
				t.Errorf("start %.2f: %s moved", start, p.Name)
			}
		}
		if after := reference(m, l); math.Abs(f.After-after) > 1e-5 || f.After > bestNLL+1e-6 || f.After > f.Before {
			t.Errorf("start %.2f: NLL after %.7f (reference %.7f), before %.7f, grid's best %.7f", start, f.After, after, f.Before, bestNLL)
		}
	}
}

// TestFitMixWeightErrors: no mixture to fit, or tangents that do not
// match the documents, are errors; no documents change nothing.
func TestFitMixWeightErrors(t *testing.T) {
	g := tinyGraph(t, 40, 1)
	docs := allDocs(g.NumDocs())
	for _, tc := range []struct {
		name    string
		mix     float64
		tangent int // tangent values per document
		docs    []int32
		want    string
	}{
		{"no mixture", 0, -1, docs, "the background mixture is off"},
		{"short tangents", 0.3, 3, docs, "tangent values for"},
		{"no documents", 0.3, -1, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			cfg.Tree.BackgroundMix = tc.mix
			m, in, _ := preparedModel(t, g, cfg, docs)
			per := cfg.Width
			if tc.tangent >= 0 {
				per = tc.tangent
			}
			f, err := FitMixWeight(m, make([]float32, len(tc.docs)*per), in, tc.docs)
			switch {
			case tc.want == "" && (err != nil || !math.IsNaN(f.After) || f.Lambda != m.Topics.Lambda()):
				t.Errorf("got %+v, %v; want no change and a NaN NLL", f, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}
