package tsne_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gtformer/gtformer/tsne"
)

// Three clusters of 20 points in 10-D come out as three groups in the plane:
// every point's nearest neighbour on the map is from its own cluster.
func ExampleEmbed() {
	const n, d = 60, 10
	rng := rand.New(rand.NewPCG(1, 0))
	x := make([]float64, 0, n*d)
	label := make([]int, n)
	for i := 0; i < n; i++ {
		label[i] = i / 20
		for k := 0; k < d; k++ {
			centre := 0.0
			if k == label[i] {
				centre = 20 // cluster c sits 20 units along axis c
			}
			x = append(x, centre+rng.NormFloat64())
		}
	}
	res, err := tsne.Embed(x, n, d, tsne.Config{Perplexity: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	agree := 0
	for i := 0; i < n; i++ {
		best, bestD := -1, 0.0
		for j := 0; j < n; j++ {
			dx, dy := res.Y[2*i]-res.Y[2*j], res.Y[2*i+1]-res.Y[2*j+1]
			if dd := dx*dx + dy*dy; j != i && (best < 0 || dd < bestD) {
				best, bestD = j, dd
			}
		}
		if label[best] == label[i] {
			agree++
		}
	}
	fmt.Printf("map %d×%d, nearest neighbour in the same cluster: %d/%d\n", res.N, res.Dims, agree, n)
	// Output: map 60×2, nearest neighbour in the same cluster: 60/60
}

// A hyperbolic embedding is laid out from its squared geodesic distances.
func ExampleEmbedDistances() {
	// Six points on a line in three tight pairs.
	pos := []float64{0, 1, 10, 11, 20, 21}
	n := len(pos)
	sq := make([]float64, n*n)
	for i := range pos {
		for j := range pos {
			sq[i*n+j] = (pos[i] - pos[j]) * (pos[i] - pos[j])
		}
	}
	res, err := tsne.EmbedDistances(sq, n, tsne.Config{Perplexity: 2, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	dist := func(i, j int) float64 {
		dx, dy := res.Y[2*i]-res.Y[2*j], res.Y[2*i+1]-res.Y[2*j+1]
		return dx*dx + dy*dy
	}
	fmt.Println("pairs stay closer than neighbouring pairs:", dist(0, 1) < dist(1, 2) && dist(2, 3) < dist(3, 4))
	// Output: pairs stay closer than neighbouring pairs: true
}
