package topicfit

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/hnn"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// FitSimilarity recovers a planted σ: documents whose word counts are
// exactly θ(r*, t*) β (scaled) have their cross-entropy minimised at
// (r*, t*), so a fit started elsewhere must land there, within the grid's
// last step; it never raises the NLL, and started at the optimum it stays.
func TestFitSimilarityRecoversPlanted(t *testing.T) {
	g := tinyGraph(t, 60, 5)
	cfg := tinyConfig(g)
	m, err := model.New(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	docs := allDocs(g.NumDocs())
	in := model.NewInputs(g, model.IDF(g, docs), cfg.MaxLen, cfg.Truncate)
	emb := m.Embed(in, docs, func(int32) []int32 { return nil }, 1, 32)
	// A decoder that tells the topics apart, and σ at the documents' scale.
	if _, err := Fit(m, emb.Tangent, in, docs, Options{Steps: 100, LR: 0.03, Seed: 1, DecoderOnly: true}); err != nil {
		t.Fatal(err)
	}
	rStar, tStar := Calibrate(m, emb.Tangent)
	if !(tStar > 0) {
		t.Fatalf("calibration gave t = %v", tStar)
	}

	// The planted words: counts 1000·p(w|d), p = θ(r*, t*) β.
	n := cfg.Width
	tp := tensor.NewTape()
	tp.NoGrad = true
	d := tp.Alloc(false, len(docs), n)
	copy(d.Data, emb.Tangent)
	z, zh := m.Topics.Embeddings(tp)
	pts := m.M.ExpO(tp, d)
	theta := topictree.Theta(tp, m.Topics.Tables(),
		hnn.FermiDiracRT(tp, m.M.PairSqDist(tp, pts, z), rStar, tStar),
		hnn.FermiDiracRT(tp, m.M.PairSqDist(tp, pts, zh), rStar, tStar))
	p := tp.MatMul(theta, m.Topics.Beta(tp, z), false, false) // (N,V)
	V := cfg.Vocab
	planted := &model.Inputs{N: len(docs), BowPtr: []int64{0}}
	for i := range docs {
		for w := range V {
			planted.BowWord = append(planted.BowWord, int32(w))
			planted.BowCount = append(planted.BowCount, 1000*p.Data[i*V+w])
		}
		planted.BowPtr = append(planted.BowPtr, int64(len(planted.BowWord)))
	}

	for _, start := range []struct{ r, t float64 }{
		{rStar + 2*tStar, tStar * 2},
		{rStar - 1.5*tStar, tStar / 3},
	} {
		m.SetSimilarity(start.r, start.t)
		m.SetLevelSimilarity(0, 0)
		f, err := FitSimilarity(m, emb.Tangent, planted, docs, false)
		if err != nil {
			t.Fatal(err)
		}
		if !(f.After <= f.Before) {
			t.Errorf("start %+v: NLL rose from %v to %v", start, f.Before, f.After)
		}
		if math.Abs(f.R-rStar) > 0.1*tStar || math.Abs(math.Log(f.T/tStar)) > 0.1 || f.LevelR != f.R || f.LevelT != f.T {
			t.Errorf("start %+v: fitted %+v; planted r, t = %.4g, %.4g for both", start, f, rStar, tStar)
		}
		if gr, gt := m.Topics.Similarity(); gr != f.R || gt != f.T || m.Cfg.Tree.FDLevelTemp != 0 {
			t.Errorf("model carries r, t = %v, %v (level t %v), not the fitted %+v", gr, gt, m.Cfg.Tree.FDLevelTemp, f)
		}

		// The level σ on its own from the same start: both pairs land on
		// the planted one, and the model carries them.
		m.SetSimilarity(start.r, start.t)
		f, err = FitSimilarity(m, emb.Tangent, planted, docs, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][2]float64{{f.R, f.T}, {f.LevelR, f.LevelT}} {
			if math.Abs(p[0]-rStar) > 0.1*tStar || math.Abs(math.Log(p[1]/tStar)) > 0.1 {
				t.Errorf("start %+v, levels: fitted %+v; planted r, t = %.4g, %.4g", start, f, rStar, tStar)
			}
		}
		if lr, lt := m.Topics.LevelSimilarity(); lr != f.LevelR || lt != f.LevelT {
			t.Errorf("model's level σ %v, %v, not the fitted %+v", lr, lt, f)
		}
		m.SetLevelSimilarity(0, 0)
	}

	// At the planted optimum the fit keeps it (to the grid), and the NLL
	// does not move.
	m.SetSimilarity(rStar, tStar)
	f, err := FitSimilarity(m, emb.Tangent, planted, docs, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.After > f.Before || f.Before-f.After > 1e-6*math.Abs(f.Before) {
		t.Errorf("at the optimum: NLL %v → %v", f.Before, f.After)
	}

	if _, err := FitSimilarity(m, emb.Tangent[:n], planted, docs, false); err == nil {
		t.Error("tangents of one document for 60: no error")
	}
}
