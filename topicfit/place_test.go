package topicfit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// InitTopicsFromDocs puts the root at the documents' mean and each level-1
// topic at one of the planted clusters: with documents in three tight
// clusters, log_o z of the root equals their mean and every cluster centre
// is some level-1 topic's log_o z (within float32 rounding).
func TestInitTopicsFromDocs(t *testing.T) {
	for _, geom := range []string{"hyperbolic", "euclidean"} {
		cfg := model.Default()
		cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab, cfg.Geometry = 8, 2, 16, 10, model.Geometry(geom)
		cfg.FeatureHops, cfg.FeatureSkip = 0, false // the topic start alone (hop features need model.FitFeatures)
		m, err := model.New(cfg, 3)
		if err != nil {
			t.Fatal(err)
		}
		n := cfg.Width
		rng := rand.New(rand.NewPCG(1, 2))
		centres := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
		for c := range centres {
			for j := range centres[c] {
				centres[c][j] = 0.6 * (rng.Float64() - 0.5)
			}
		}
		var docs []float32
		for i := 0; i < 60; i++ {
			c := centres[i%3]
			for j := 0; j < n; j++ {
				docs = append(docs, float32(c[j]+1e-3*rng.NormFloat64()))
			}
		}
		if err := Place(m, docs, 5); err != nil {
			t.Fatal(err)
		}
		tp := tensor.NewTape()
		tp.NoGrad = true
		z, _ := m.Topics.Embeddings(tp)
		lz := m.M.LogO(tp, z)
		mean := meanRows(docs, n, []int{})
		for i := 0; i < 60; i++ {
			for j := 0; j < n; j++ {
				mean[j] += float64(docs[i*n+j]) / 60
			}
		}
		for j := 0; j < n; j++ {
			if d := math.Abs(float64(lz.Data[j]) - mean[j]); d > 1e-4 {
				t.Fatalf("%s: root coordinate %d is %v, want the mean %v", geom, j, lz.Data[j], mean[j])
			}
		}
		for c, cen := range centres {
			found := false
			for _, r := range m.Topics.Tables().LevelRows[1] {
				ok := true
				for j := 0; j < n; j++ {
					if math.Abs(float64(lz.Data[int(r)*n+j])-cen[j]) > 2e-3 {
						ok = false
						break
					}
				}
				found = found || ok
			}
			if !found {
				t.Errorf("%s: cluster %d has no level-1 topic at its centre", geom, c)
			}
		}
	}
	if err := Place(&model.Model{Cfg: model.Config{Width: 4}}, make([]float32, 6), 1); err == nil {
		t.Error("rows of the wrong width were accepted")
	}
}
