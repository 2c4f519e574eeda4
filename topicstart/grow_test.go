package topicstart

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// TestPlaceAdded: a planted structure. Under a topic with one child, half
// of the documents sit at that child and half at a far cluster; the topic
// that growth adds must start at the far cluster's centre (the half of the
// parent's documents farthest from its existing child), and no other topic
// may move.
func TestPlaceAdded(t *testing.T) {
	for _, geom := range []string{"hyperbolic", "euclidean"} {
		t.Run(geom, func(t *testing.T) {
			cfg := model.Default()
			cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab, cfg.Geometry = 8, 2, 16, 10, geom
			cfg.FeatureHops, cfg.FeatureSkip = 0, false
			cfg.Tree.InitDepth, cfg.Tree.Branching = 3, 1 // root → one topic → one leaf
			m, err := model.New(cfg, 3)
			if err != nil {
				t.Fatal(err)
			}
			n := cfg.Width
			tp := tensor.NewTape()
			tp.NoGrad = true
			z0, _ := m.Topics.Embeddings(tp)
			leaf := m.M.LogO(tp, z0).Data[2*n : 3*n] // the existing child (row 2)

			// 30 documents at the leaf, 30 at a far cluster.
			rng := rand.New(rand.NewPCG(4, 5))
			far := make([]float64, n)
			for j := range far {
				far[j] = -float64(leaf[j]) + 0.3*(rng.Float64()-0.5)
			}
			var tangent []float32
			for i := 0; i < 60; i++ {
				for j := 0; j < n; j++ {
					c := float64(leaf[j])
					if i%2 == 1 {
						c = far[j]
					}
					tangent = append(tangent, float32(c+1e-3*rng.NormFloat64()))
				}
			}
			points := m.M.ExpO(tp, tensor.FromData(slices.Clone(tangent), 60, n)).Data

			// Growth adds a second child under row 1 (the leaves' parent).
			res, err := m.Topics.Tree.Update([]float64{0.2, 0.5, 0.3}, topictree.UpdateOptions{Add: 0.1, KeepDepth: true})
			if err != nil {
				t.Fatal(err)
			}
			m.Topics.Remap(res.OldRow)
			tab := m.Topics.Tables()
			var added []int
			for r, o := range res.OldRow {
				if o < 0 {
					added = append(added, r)
				}
			}
			if tab.T != 4 || len(added) != 1 || tab.Parent[added[0]] != 1 {
				t.Fatalf("the update made %d topics, added %v: want a fourth topic under row 1", tab.T, added)
			}
			before, _ := m.Topics.Embeddings(tp)
			if err := PlaceAdded(m, tangent, points, allDocs(60), added); err != nil {
				t.Fatal(err)
			}
			after, _ := m.Topics.Embeddings(tp)
			lz := m.M.LogO(tp, after)
			var odd []int // the far cluster
			for i := 1; i < 60; i += 2 {
				odd = append(odd, i)
			}
			centre := meanRows(tangent, n, odd)
			c := added[0]
			for j := 0; j < n; j++ {
				want := math.Max(-0.95, math.Min(0.95, centre[j]))
				if d := math.Abs(float64(lz.Data[c*n+j]) - want); d > 1e-4 {
					t.Fatalf("new topic coordinate %d is %v, want the far cluster's %v", j, lz.Data[c*n+j], want)
				}
			}
			w := n + 1
			for r := 0; r < tab.T; r++ {
				if r != c && !slices.Equal(before.Data[r*w:(r+1)*w], after.Data[r*w:(r+1)*w]) {
					t.Fatalf("topic row %d moved", r)
				}
			}
		})
	}
}

func TestPlaceAddedErrors(t *testing.T) {
	cfg := model.Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab = 8, 2, 16, 10
	cfg.FeatureHops, cfg.FeatureSkip = 0, false
	m, err := model.New(cfg, 3) // root, 3 topics, 9 leaves
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]float32, 2*(cfg.Width+1))
	tan := make([]float32, 2*cfg.Width)
	for _, tc := range []struct {
		name  string
		docs  []int32
		added []int
		want  string
	}{
		{"the root", nil, []int{0}, "outside"},
		{"past the last row", nil, []int{13}, "outside"},
		{"an inner topic", nil, []int{3}, "not a leaf and its parent's last child"},
		{"a first child", nil, []int{4}, "not a leaf and its parent's last child"},
		{"a document past the points", []int32{2}, []int{6}, "document 2 outside 2 points"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := PlaceAdded(m, tan, pts, tc.docs, tc.added)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
