package hnn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gtformer/gtformer/hnn"
	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/tensor"
)

// Topic states from a Hyperbolic Doubly-RNN, and their Fermi-Dirac
// similarity to documents.
func ExampleDRNN() {
	m := lorentz.Hyperboloid{K: 1}
	const n = 4
	drnn := hnn.NewDRNN(m, "tree.drnn", n, rand.New(rand.NewPCG(1, 0)))
	tp := tensor.NewTape()
	parent := m.ExpO(tp, tensor.FromData([]float32{0.5, 0, 0, 0, 0.5, 0, 0, 0}, 2, n))
	left := m.Origin(tp, 2, n) // first children: the left sibling is the origin
	z := drnn.Forward(tp, parent, left, nil)
	docs := m.ExpO(tp, tensor.FromData([]float32{0.1, 0.2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 3, n))
	sigma := hnn.FermiDirac(tp, m.PairSqDist(tp, z, docs)) // (2 topics, 3 docs)
	fmt.Println(z.Shape, sigma.Shape, len(drnn.Params()))
	// Output:
	// [2 5] [2 3] 5
}
