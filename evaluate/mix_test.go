package evaluate_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// wordProbsNLL is the per-token NLL of docs' words (rows of theta, (N,T))
// under the model's WordProbs: the perplexity exponent as the topic loss
// forms the word probabilities.
func wordProbsNLL(t *testing.T, m *model.Model, theta []float32, T int, docs [][]int32) float64 {
	t.Helper()
	tp := tensor.NewTape()
	tp.NoGrad = true
	z, _ := m.Topics.Embeddings(tp)
	beta := m.Topics.Beta(tp, z)
	p := m.Topics.WordProbs(tp, tensor.FromData(theta, len(docs), T), beta)
	V := p.Cols()
	var nll, n float64
	for i, ws := range docs {
		for _, w := range ws {
			nll -= math.Log(float64(p.Data[i*V+int(w)]))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no words: the check proves nothing")
	}
	return nll / n
}

// With the background mixture, the perplexities (test and completion) are
// those of the model's WordProbs, and differ from θβ's.
func TestPerplexityWithBackgroundMix(t *testing.T) {
	g := handGraph()
	s := corpus.PaperSplit(g)
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 2, 2, 1, 4, 8
	cfg.Tree.InitDepth, cfg.Tree.Branching = 2, 2
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	cfg.Tree.BackgroundMix = 0.4
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(g, s.Train, 1); err != nil {
		t.Fatal(err)
	}
	in := model.NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	res := evaluate.Run(m, g, s, in, evaluate.Options{EmbedBatch: 7})
	T := res.Emb.Topics
	theta := make([]float32, 0, len(s.Test)*T)
	docs := make([][]int32, len(s.Test))
	for i, d := range s.Test {
		theta = append(theta, res.Emb.Theta[int(d)*T:int(d+1)*T]...)
		docs[i] = g.Doc(int(d))
	}
	encoder := wordProbsNLL(t, m, theta, T, docs)
	mix := m.Topics.WordMix().Func()
	theta = metrics.FoldIn(theta, m.Beta(), T, metrics.Subset(g, s.Test), mix, m.Cfg.FoldIn)
	want := wordProbsNLL(t, m, theta, T, docs)
	if !(want < encoder) {
		t.Errorf("fold-in: log-perplexity %.6g, the encoder's θ gives %.6g: want it lower", want, encoder)
	}
	got := res.Test.LogPerplexity
	if got == nil || math.Abs(*got-want) > 1e-5 {
		t.Errorf("log-perplexity %s, WordProbs' %.8g", show(got), want)
	}
	plain := metrics.PerplexityExponent(theta, m.Beta(), T, metrics.Subset(g, s.Test))
	if got != nil && math.Abs(*got-plain) < 1e-3 {
		t.Errorf("log-perplexity %.6g with the mixture equals θβ's %.6g", *got, plain)
	}

	obs, held := metrics.CompletionSplit(metrics.Subset(g, s.Test), evaluate.CompletionSeed)
	half := g.WithDocs(s.Test, obs)
	emb := m.Embed(m.Inputs(half, s.TrainNeighbors32), s.Test, s.TrainNeighbors32, 64, 128)
	heldDocs := make([][]int32, len(s.Test))
	for i := range s.Test {
		heldDocs[i] = held.Doc(i)
	}
	want = wordProbsNLL(t, m, metrics.FoldIn(emb.Theta, m.Beta(), T, obs, mix, m.Cfg.FoldIn), T, heldDocs)
	if c := res.Test.LogPerplexityCompletion; c == nil || math.Abs(*c-want) > 1e-5 {
		t.Errorf("completion log-perplexity %s, WordProbs' %.8g", show(c), want)
	}
}

func show(p *float64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprintf("%.8g", *p)
}
