package lorentz_test

import (
	"fmt"

	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/tensor"
)

// Map tangent vectors at the origin onto the hyperboloid, measure distances
// and differentiate them.
func ExampleHyperboloid() {
	var m lorentz.Manifold = lorentz.Hyperboloid{K: 1}
	tp := tensor.NewTape()
	v := tensor.Param("v", 2, 2) // two tangent vectors at the origin, n = 2
	copy(v.Data, []float32{1, 0, 0, 1})
	x := m.ExpO(tp, v) // (2,3) points
	d := m.Dist(tp, x, m.Origin(tp, 2, 2))
	fmt.Printf("x0 = %.4f, d(o, exp_o(v)) = %.4f\n", x.Data[0], d.Data[0])
	tp.BackwardWith(d, []float32{1, 0})
	fmt.Printf("∂d/∂v = %.4f\n", v.Grad[:2])
	// Output:
	// x0 = 1.5431, d(o, exp_o(v)) = 1.0000
	// ∂d/∂v = [1.0000 0.0000]
}

// The Euclidean ablation keeps shapes: points are [0 | p] rows.
func ExampleEuclidean() {
	var m lorentz.Manifold = lorentz.Euclidean{}
	tp := tensor.NewTape()
	v := tensor.FromData([]float32{3, 4}, 1, 2)
	x := m.ExpO(tp, v)
	fmt.Println(x.Data, m.SqDist(tp, x, m.Origin(tp, 1, 2)).Data)
	// Output:
	// [0 3 4] [25]
}

// Pairwise squared distances between topics and documents.
func ExampleHyperboloid_PairSqDist() {
	m := lorentz.Hyperboloid{K: 1}
	tp := tensor.NewTape()
	topics := m.ExpO(tp, tensor.FromData([]float32{0, 0, 1, 0}, 2, 2))
	docs := m.ExpO(tp, tensor.FromData([]float32{0, 0, 0, 2, 1, 0}, 3, 2))
	sq := m.PairSqDist(tp, topics, docs) // (2,3)
	fmt.Printf("%.3f\n", sq.Data)
	// Output:
	// [0.000 4.000 1.000 1.000 5.975 0.000]
}
