package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
)

// topicOnlyFit fits the topic side alone to the built-in corpus: the
// transformer is replaced by free document points (N tangent vectors at the
// origin), and Adam minimises L_topic over the whole corpus for the given
// steps, the default 13-topic tree held fixed. It returns the final
// per-token NLL and the largest share of the corpus's leaf mass on one leaf
// (1 = collapsed onto one path). radius is the Fermi-Dirac r; uStd and
// uRate set the decoder rows' initial deviation and learning-rate scale.
func topicOnlyFit(t *testing.T, steps int, radius, uStd, uRate float64) (nll, maxLeaf float64) {
	t.Helper()
	g, _, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	cfg := Default()
	cfg.Width = 64
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	cfg.Tree.FDRadius = radius
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Topics.U.Data {
		m.Topics.U.Data[i] *= float32(uStd / decoderInitStd)
	}
	N, n := g.NumDocs(), cfg.Width
	in := NewInputs(g, IDF(g, allDocs(N)), 64, "tfidf")
	ptr, word, count := subsetBoW(in, allDocs(N))
	D := tensor.Param("docs", N, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range D.Data {
		D.Data[i] = float32(rng.NormFloat64() / math.Sqrt(float64(n)))
	}
	ocfg := optim.DefaultConfig()
	ocfg.LRScale = func(name string) float64 {
		if name == DecoderParam {
			return uRate
		}
		return 1
	}
	opt := optim.NewAdamW(ocfg)
	ps := append(m.Topics.Params(), D)
	for _, p := range ps {
		if err := opt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	var theta *tensor.Tensor
	for s := 0; s < steps; s++ {
		tp := tensor.NewTape()
		z, zh := m.Topics.embeddings(tp)
		theta = m.Topics.theta(tp, m.M.ExpO(tp, D), z, zh)
		loss := bowNLL(tp, tp.MatMul(theta, m.Topics.beta(tp, z), false, false), ptr, word, count)
		for _, p := range ps {
			clear(p.Grad)
		}
		tp.Backward(loss)
		opt.Step(1e-3)
		nll = float64(loss.Data[0])
	}
	tab := m.Topics.Tables()
	share := make([]float64, tab.T)
	var total float64
	for i := 0; i < N; i++ {
		for _, l := range tab.Leaf {
			v := float64(theta.Data[i*tab.T+int(l)])
			share[l] += v
			total += v
		}
	}
	for _, l := range tab.Leaf {
		maxLeaf = math.Max(maxLeaf, share[l]/total)
	}
	return nll, maxLeaf
}

// TestTopicOnlyFit is the diagnosis of the tree collapse recorded in
// docs/results.md, kept as a regression test: with free document points, the
// paper's σ (r = 0) and the default decoder, the topic side fits the built-in
// corpus poorly (per-token NLL ≈ 5.2 after 600 steps; the planted model's own
// is 4.29); with HGCN's radius r = 4, decoder rows
// N(0,1) and a 10× decoder rate it fits far better (≈ 4.4) and spreads the
// mass over the leaves. If a change to the topic side makes the default fit
// as well, this test says so, and the defaults should follow.
func TestTopicOnlyFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the topic side for 2 × 600 steps")
	}
	nll0, max0 := topicOnlyFit(t, 600, 0, decoderInitStd, 1)
	nll1, max1 := topicOnlyFit(t, 600, 4, 1, 10)
	t.Logf("paper σ, default decoder: NLL %.3f, largest leaf %.2f", nll0, max0)
	t.Logf("r = 4, N(0,1) decoder ×10 rate: NLL %.3f, largest leaf %.2f", nll1, max1)
	if !(nll1 < nll0-0.3) {
		t.Errorf("r = 4 with the faster decoder fits to %.3f, the defaults to %.3f: want at least 0.3 lower", nll1, nll0)
	}
	if !(max1 < 0.5) {
		t.Errorf("r = 4 with the faster decoder put %.2f of the leaf mass on one leaf, want < 0.5", max1)
	}
}
