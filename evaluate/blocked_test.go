package evaluate_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
)

// LinkScoreBlock agrees with the exact pairwise LinkScore up to float32
// rounding of the dot products, for both geometries and curvatures, and the
// link AUC from it equals the exact one on points without near-ties.
func TestLinkScoreBlock(t *testing.T) {
	g := handGraph()
	tests := []struct {
		geometry string
		K        float64
	}{{"hyperbolic", 1}, {"hyperbolic", 2}, {"euclidean", 1}}
	for _, tc := range tests {
		t.Run(tc.geometry, func(t *testing.T) {
			m := handModel(t, g, tc.geometry, tc.K)
			rng := rand.New(rand.NewPCG(5, uint64(tc.K)))
			const N = 150
			emb := &model.Embeddings{Width: 2, Topics: 1}
			for range N {
				// Spatial coordinates up to radius ≈ 3 (coordinates ≈ 10).
				x, y := 10*rng.Float64()-5, 10*rng.Float64()-5
				x0 := 0.0
				if tc.geometry == "hyperbolic" {
					x0 = math.Sqrt(tc.K + x*x + y*y)
				}
				emb.Points = append(emb.Points, float32(x0), float32(x), float32(y))
			}
			test := make([]int32, 0, N)
			for d := N - 1; d >= 0; d -= 2 { // a subset, out of order
				test = append(test, int32(d))
			}
			exact := evaluate.LinkScore(m, emb)
			block := evaluate.LinkScoreBlock(m, emb, test)
			rows := []int{0, 3, 7, len(test) - 1}
			dst := make([]float64, len(rows)*len(test))
			block(rows, dst)
			for r, p := range rows {
				for q := range test {
					if q == p {
						continue
					}
					want := exact(test[p], test[q])
					got := dst[r*len(test)+q]
					if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
						t.Errorf("(%d,%d): block score %.9g, exact %.9g", p, q, got, want)
					}
				}
			}
			var links [][2]int32
			for range 3 * len(test) {
				links = append(links, [2]int32{test[rng.IntN(len(test))], test[rng.IntN(len(test))]})
			}
			a, n := metrics.LinkAUC(test, links, exact)
			b, nb := metrics.LinkAUCBlocked(test, links, evaluate.LinkScoreBlock(m, emb, test))
			if n != nb || math.Abs(a-b) > 0.05 {
				t.Errorf("link AUC %.4f over %d documents (blocked), %.4f over %d (exact)", b, nb, a, n)
			}
		})
	}
}
