package train

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// topicPaths returns, for each document, the root-to-topic path (topic ids)
// of its most probable topic under θ (rows of T values in the tables' dense
// order).
func topicPaths(m *model.Model, theta []float32) [][]int {
	tab := m.Topics.Tables()
	out := make([][]int, len(theta)/tab.T)
	for i := range out {
		row := theta[i*tab.T : (i+1)*tab.T]
		best := 0
		for r, v := range row {
			if v > row[best] {
				best = r
			}
		}
		var path []int
		for id := tab.ID[best]; id >= 0; id = m.Topics.Tree.Parent(id) {
			path = append(path, id)
		}
		slices.Reverse(path)
		out[i] = path
	}
	return out
}

// TestSaveLoadEmbedsTheSame trains a model (the tree grown or pruned, the
// idf buffer set from the training documents), saves it with model.Save and
// loads it with model.Load: the loaded model embeds every document to
// bit-identical points, tangent vectors and θ, predicts the same labels,
// puts every document on the same topic path and has the same topic words
// as the model in memory.
func TestSaveLoadEmbedsTheSame(t *testing.T) {
	g, s := tinyData(t)
	for _, tc := range []struct {
		name   string
		mutate func(*model.Config)
	}{
		{"hyperbolic supervised", func(c *model.Config) { c.Supervised = true }},
		{"euclidean", func(c *model.Config) { c.Geometry = "euclidean" }},
		{"curvature 2, no tf-idf start", func(c *model.Config) { c.Curvature = 2; c.Features = "none" }},
		{"hop features, skip, background, level prior", func(c *model.Config) {
			c.FeatureHops, c.FeatureDim, c.FeatureSkip, c.Tree.Background, c.LambdaLevel = 2, 8, true, true, 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			tc.mutate(&cfg)
			// A high pruning share makes sure the tree changes (leaves
			// hold 1/9 of the words on average).
			cfg.Tree.SPrune = 0.2
			// Two epochs of three: the model keeps the tree grown or
			// pruned after each (the best state might predate growth).
			opt := tinyOptions(3, "cache", 4)
			var env Env
			env.StopAfter = 2
			tr := newTrainer(t, g, s, cfg, opt, env)
			if err := tr.Run(); err != nil {
				t.Fatal(err)
			}
			m := tr.Model
			if m.Topics.Tree.NextID() == 13 && m.Topics.Tables().T == 13 {
				t.Fatal("the tree did not change: the test would not cover a saved grown tree")
			}
			dir := t.TempDir()
			if err := m.Save(dir, 4); err != nil {
				t.Fatal(err)
			}
			back, seed, err := model.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if seed != 4 {
				t.Errorf("loaded seed %d, want 4", seed)
			}
			if d := diffBits(paramBits(m), paramBits(back)); d != "" {
				t.Fatalf("loaded parameters differ: %s", d)
			}
			if sliceDiff("idf", m.IDF, back.IDF) != "" {
				t.Fatal("loaded idf differs")
			}
			if sliceDiff("background", m.Topics.Background, back.Topics.Background) != "" {
				t.Fatal("loaded decoder background differs")
			}
			if (m.LSA == nil) != (cfg.FeatureHops == 0) || (m.LSA != nil && sliceDiff("lsa", m.LSA.R, back.LSA.R) != "") {
				t.Fatal("the hop features' basis is missing or differs after loading")
			}

			docs := make([]int32, g.NumDocs())
			for i := range docs {
				docs[i] = int32(i)
			}
			nbrs := s.TrainNeighbors32
			// Inputs rebuilt from the loaded idf (and basis), as gtformer
			// embed does.
			a := m.Embed(m.Inputs(g, nbrs), docs, nbrs, 8, 64)
			b := back.Embed(back.Inputs(g, nbrs), docs, nbrs, 8, 64)
			for _, c := range []struct {
				what string
				x, y []float32
			}{{"points", a.Points, b.Points}, {"tangent", a.Tangent, b.Tangent}, {"θ", a.Theta, b.Theta}} {
				if d := sliceDiff(c.what, c.x, c.y); d != "" {
					t.Errorf("embeddings differ: %s", d)
				}
			}
			if !slices.Equal(a.Pred, b.Pred) || (cfg.Supervised && a.Pred == nil) {
				t.Errorf("supervised predictions differ (or are missing)")
			}
			pa, pb := topicPaths(m, a.Theta), topicPaths(back, b.Theta)
			for i := range pa {
				if !slices.Equal(pa[i], pb[i]) {
					t.Fatalf("document %d: topic path %v in memory, %v loaded", i, pa[i], pb[i])
				}
			}
			if fmt.Sprint(m.TopicWords(20)) != fmt.Sprint(back.TopicWords(20)) {
				t.Error("topic words differ")
			}
			if d := sliceDiff("β", m.Beta(), back.Beta()); d != "" {
				t.Errorf("β differs: %s", d)
			}
		})
	}
}
