package model

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

// TestBetaBackgroundLevels checks β against its closed form
// β_t(w) = softmax_w(U_w·log_o z_t / τ_t + c_level(t)·bg_w), computed here in
// float64, for the level weights of TreeConfig.BackgroundWeight.
func TestBetaBackgroundLevels(t *testing.T) {
	cases := []struct {
		name   string
		levels []float64
		want   func(level int) float64
	}{
		{"every level (no list)", nil, func(int) float64 { return 1 }},
		{"root only", []float64{1, 0, 0}, func(l int) float64 { return map[int]float64{0: 1}[l] }},
		{"negative at the leaves, short list", []float64{1, 0.5}, func(l int) float64 { return []float64{1, 0.5, 0}[l] }},
		{"graded", []float64{2, 0, -0.3}, func(l int) float64 { return []float64{2, 0, -0.3}[l] }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tinyGraph(9, 20, 3, 9, true, 1)
			cfg := tinyConfig(g)
			cfg.Tree.Background, cfg.Tree.BackgroundLevels = true, tc.levels
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			m, err := New(cfg, 3)
			if err != nil {
				t.Fatal(err)
			}
			m.Topics.Background = LogUnigram(g, allDocs(g.NumDocs()))
			tp := tensor.NewTape()
			z, _ := m.Topics.Embeddings(tp)
			beta := m.Topics.Beta(tp, z)
			logz := m.Topics.M.LogO(tp, z)
			tab := m.Topics.Tables()
			V, n := cfg.Vocab, logz.Cols()
			levels := map[int]bool{}
			for r := 0; r < tab.T; r++ {
				lvl := int(tab.Level[r])
				levels[lvl] = true
				if got, want := cfg.Tree.BackgroundWeight(lvl), tc.want(lvl); got != want {
					t.Fatalf("BackgroundWeight(%d) = %g, want %g", lvl, got, want)
				}
				tau := math.Pow(cfg.Tree.Tau, 1/float64(lvl+1))
				logits := make([]float64, V)
				mx := math.Inf(-1)
				for w := 0; w < V; w++ {
					var s float64
					for j := 0; j < n; j++ {
						s += float64(m.Topics.U.Data[w*n+j]) * float64(logz.Data[r*n+j])
					}
					logits[w] = s/tau + tc.want(lvl)*float64(m.Topics.Background[w])
					mx = max(mx, logits[w])
				}
				var sum float64
				for w := range logits {
					sum += math.Exp(logits[w] - mx)
				}
				for w := 0; w < V; w++ {
					want := math.Exp(logits[w]-mx) / sum
					if got := float64(beta.Data[r*V+w]); math.Abs(got-want) > 1e-5+1e-4*want {
						t.Fatalf("topic row %d (level %d), word %d: β = %g, want %g", r, lvl, w, got, want)
					}
				}
			}
			if len(levels) < 3 {
				t.Fatalf("the test tree has %d levels, want 3 to tell the weights apart", len(levels))
			}
		})
	}
}

func TestBackgroundLevelsValidate(t *testing.T) {
	g := tinyGraph(9, 20, 3, 9, true, 1)
	for _, tc := range []struct {
		name string
		mut  func(*TreeConfig)
	}{
		{"NaN weight", func(c *TreeConfig) { c.Background, c.BackgroundLevels = true, []float64{math.NaN()} }},
		{"infinite weight", func(c *TreeConfig) { c.Background, c.BackgroundLevels = true, []float64{1, math.Inf(1)} }},
		{"weights without the background", func(c *TreeConfig) { c.BackgroundLevels = []float64{1, 0} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(g)
			tc.mut(&cfg.Tree)
			if err := cfg.Validate(); err == nil {
				t.Fatal("Validate accepted it")
			}
		})
	}
}
