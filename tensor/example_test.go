package tensor_test

import (
	"fmt"
	"slices"

	"github.com/gtformer/gtformer/tensor"
)

// A linear model's gradient on one example: the tape records Linear and the
// loss; Backward fills the parameters' Grad.
func ExampleTape_Backward() {
	w := tensor.Param("w", 2, 1)
	copy(w.Data, []float32{0.5, -1})
	x := tensor.FromData([]float32{2, 3}, 1, 2)

	tp := tensor.NewTape()
	y := tp.Linear(x, w, nil)    // (1,1): 0.5·2 − 1·3 = −2
	loss := tp.Sum(tp.Square(y)) // y² = 4
	tp.Backward(loss)
	fmt.Println(loss.Data[0], w.Grad) // dL/dw = 2y·x = [−8 −12]
	// Output: 4 [-8 -12]
}

// Reusing a tape: after Reset the same sequence of ops reuses the arena, so a
// training loop allocates no tensor storage once warm.
func ExampleTape_Reset() {
	w := tensor.Param("w", 1)
	w.Data[0] = 3
	tp := tensor.NewTape()
	for step := range 3 {
		tp.Reset()
		w.ZeroGrad()
		loss := tp.Sum(tp.Square(w)) // w²
		tp.Backward(loss)
		w.Data[0] -= 0.25 * w.Grad[0] // w ← w − 0.25·2w = w/2
		fmt.Println(step, w.Data[0])
	}
	// Output:
	// 0 1.5
	// 1 0.75
	// 2 0.375
}

// Attention from two query tokens to three keys, one of them padding.
func ExampleTape_Attention() {
	tp := &tensor.Tape{NoGrad: true}
	q := tensor.New(1, 2, 4)                                                      // (B,Tq,C)
	kv := tensor.FromData([]float32{1, 1, 1, 1, 2, 2, 2, 2, 9, 9, 9, 9}, 1, 3, 4) // (B,Tk,C)
	out := tp.Attention(q, kv, kv, 2, []bool{true, true, false})
	fmt.Println(out.Shape, out.Row(0)) // zero queries: uniform over the two real keys
	// Output: [1 2 4] [1.5 1.5 1.5 1.5]
}

// Two documents packed without padding: the first has two rows, the second
// one; each row attends to its own document's rows only.
func ExampleTape_PackedAttention() {
	tp := &tensor.Tape{NoGrad: true}
	x := tensor.FromData([]float32{1, 1, 3, 3, 7, 7}, 3, 2) // (R,C): rows 0-1 document 0, row 2 document 1
	off := []int{0, 2, 3}
	q := tensor.New(3, 2) // zero queries: uniform weights over each document's rows
	out := tp.PackedAttention(q, x, x, 1, off, off, nil)
	fmt.Println(out.Row(0), out.Row(1), out.Row(2))
	// Output: [2 2] [2 2] [7 7]
}

func ExampleBLASName() {
	// The active path is one of those available (which ones depends on the
	// machine: OpenBLAS installed or not, AVX-512 or AVX2).
	fmt.Println(slices.Contains(tensor.BLASPaths(), tensor.BLASName()))
	// Output: true
}

func ExampleBLASPaths() {
	paths := tensor.BLASPaths()
	// gonum's pure-Go BLAS is always there, and last.
	fmt.Println(paths[len(paths)-1])
	// Output: gonum
}

// Every available path computes the same small integer product exactly.
func ExampleUseBLAS() {
	defer tensor.UseBLAS(tensor.BLASName())
	a := tensor.FromData([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensor.FromData([]float32{1, 0, 0, 1, 2, -1}, 3, 2)
	results := map[string]bool{}
	for _, name := range tensor.BLASPaths() {
		if err := tensor.UseBLAS(name); err != nil {
			fmt.Println(err)
			return
		}
		tp := &tensor.Tape{NoGrad: true}
		results[fmt.Sprint(tp.MatMul(a, b, false, false).Data)] = true
	}
	fmt.Println(results)
	// Output: map[[7 -1 16 -1]:true]
}
