package topicfit_test

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/topicfit"
)

// The fitted topic start that train's default ("fit") runs before the first
// step: topics at clusters of the documents, σ calibrated to their
// distances, then the decoder fitted alone to their words.
func Example() {
	g := &corpus.Graph{
		Vocab:  []string{"graph", "node", "edge", "topic", "word", "tree"},
		Tokens: []int32{0, 1, 2, 1, 0, 2, 3, 4, 5, 4, 3, 5, 0, 1, 2, 3, 4, 5},
		DocPtr: []int64{0, 3, 6, 9, 12, 15, 18},
	}
	g.SetLinks([][2]int32{{0, 1}, {2, 3}, {4, 5}})
	cfg := model.Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden = 16, 2, 32
	cfg.Vocab = len(g.Vocab)
	// The topic start alone: hop features would need model.FitFeatures.
	cfg.FeatureHops, cfg.FeatureSkip = 0, false
	m, err := model.New(cfg, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	all := []int32{0, 1, 2, 3, 4, 5}
	in := model.NewInputs(g, model.IDF(g, all), cfg.MaxLen, cfg.Truncate)
	emb := m.Embed(in, all, func(d int32) []int32 { return g.Neighbors(int(d)) }, 4, 64)

	if err := topicfit.Place(m, emb.Tangent, 1); err != nil {
		fmt.Println(err)
		return
	}
	r, t := topicfit.Calibrate(m, emb.Tangent)
	fmt.Println("σ calibrated:", r > 0 && t > 0 && m.Cfg.Tree.FDRadius == r && m.Cfg.Tree.FDTemp == t)
	nll, err := topicfit.Fit(m, emb.Tangent, in, all, topicfit.Options{Steps: 50, LR: 0.03, DecoderOnly: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("per-token NLL below the uniform log 6:", nll < math.Log(6))
	// Output:
	// σ calibrated: true
	// per-token NLL below the uniform log 6: true
}
