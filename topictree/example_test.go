package topictree_test

import (
	"fmt"
	"os"

	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

func ExampleNew() {
	tr, err := topictree.New(topictree.DefaultDepth, topictree.DefaultBranching)
	if err != nil {
		panic(err)
	}
	tab := tr.Tables()
	fmt.Println("topics:", tab.T, "paths:", tab.P, "depth:", tab.Depth, "limits:", tr.Limits())
	for _, st := range tab.DRNN {
		fmt.Printf("DRNN step level %d rank %d: rows %v parents %v left %v\n", st.Level, st.Rank, st.Rows, st.Parents, st.Left)
	}
	// Output:
	// topics: 13 paths: 9 depth: 3 limits: {4 20}
	// DRNN step level 1 rank 0: rows [1] parents [0] left [-1]
	// DRNN step level 1 rank 1: rows [2] parents [0] left [1]
	// DRNN step level 1 rank 2: rows [3] parents [0] left [2]
	// DRNN step level 2 rank 0: rows [4 7 10] parents [1 2 3] left [-1 -1 -1]
	// DRNN step level 2 rank 1: rows [5 8 11] parents [1 2 3] left [4 7 10]
	// DRNN step level 2 rank 2: rows [6 9 12] parents [1 2 3] left [5 8 11]
}

func ExampleStickBreak() {
	tr, _ := topictree.New(3, 3)
	tab := tr.Tables()
	// One document with σ = 1/2 for every topic and level. Each parent's
	// children get 1/2, 1/4 and the rest 1/4; levels get 1/2, 1/4, 1/4.
	sT := tensor.New(1, tab.T)
	sL := tensor.New(1, tab.Depth)
	for i := range sT.Data {
		sT.Data[i] = 0.5
	}
	for i := range sL.Data {
		sL.Data[i] = 0.5
	}
	theta, pi, delta := topictree.StickBreak(tensor.NewTape(), tab, sT, sL)
	fmt.Println("θ:", theta.Data)
	fmt.Println("π:", pi.Data)
	fmt.Println("δ of path 0:", delta.Data[:tab.Depth])
	// Output:
	// θ: [0.5 0.125 0.0625 0.0625 0.0625 0.03125 0.03125 0.03125 0.015625 0.015625 0.03125 0.015625 0.015625]
	// π: [0.25 0.125 0.125 0.125 0.0625 0.0625 0.125 0.0625 0.0625]
	// δ of path 0: [0.5 0.25 0.25]
}

func ExampleTree_Update() {
	tr, _ := topictree.New(3, 3)
	// Word shares s_t by dense row (as from a ShareAccumulator over the
	// training documents): topic 1 is heavy, leaf 4 nearly empty.
	s := []float64{0.04, 0.3, 0.04, 0.04, 0.01, 0.08, 0.08, 0.08, 0.08, 0.08, 0.08, 0.08, 0.08}
	res, err := tr.Update(s, topictree.DefaultUpdateOptions)
	if err != nil {
		panic(err)
	}
	for _, c := range res.Changes {
		fmt.Println(c)
	}
	fmt.Println("old row → new row:", res.RowMap)
	fmt.Print(tr)
	// Output:
	// remove topic 4 from 1 (level 2; subtree share 0.0100)
	// add topic 13 under 1 (level 2; parent share 0.3000)
	// old row → new row: [0 1 2 3 -1 4 5 7 8 9 10 11 12]
	// 0
	//   1
	//     5
	//     6
	//     13
	//   2
	//     7
	//     8
	//     9
	//   3
	//     10
	//     11
	//     12
}

func ExampleTree_Render() {
	tr, _ := topictree.New(2, 3)
	words := []string{"learning model data", "neural network", "bayesian inference", "reinforcement agent"}
	tr.Render(os.Stdout, func(row int) string { return words[row] })
	// Output:
	// 0 learning model data
	//   1 neural network
	//   2 bayesian inference
	//   3 reinforcement agent
}
