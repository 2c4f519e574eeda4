package metrics_test

import (
	"fmt"

	"github.com/gtformer/gtformer/metrics"
)

func ExampleKNN() {
	// Training points on a line (N=4, D=1), labels by side.
	train := []float32{-2, -1, 1, 2}
	yTrain := []int32{0, 0, 1, 1}
	test := []float32{-1.5, 1.2}
	yTest := []int32{0, 0}
	pred := metrics.KNN(train, yTrain, test, 1, 3)
	fmt.Println(pred)
	fmt.Printf("Micro-F1 %.1f  Macro-F1 %.1f\n", metrics.MicroF1(yTest, pred), metrics.MacroF1(yTest, pred))
	// Output:
	// [0 1]
	// Micro-F1 50.0  Macro-F1 33.3
}

func ExampleROCAUC() {
	// One positive-negative pair is tied (0.5, 0.5): it counts one half.
	fmt.Println(metrics.ROCAUC([]float64{0.2, 0.5, 0.5, 0.1}, []bool{true, true, false, false}))
	// Output: 62.5
}

func ExampleLinkAUC() {
	x := []float32{0, 1, 3, 10} // 1-D embeddings of documents 0..3
	auc, docs := metrics.LinkAUC([]int32{0, 1, 2, 3}, [][2]int32{{0, 1}, {2, 3}}, metrics.NegSqEuclidean(x, 1))
	fmt.Printf("%.1f over %d documents\n", auc, docs)
	// Output: 75.0 over 4 documents
}

func ExampleReference_NPMI() {
	ref := metrics.NewReference("training documents", metrics.DocList{{0, 1}, {0, 1, 2}, {2, 3}})
	per, mean := ref.NPMI([][]int32{{0, 1}, {0, 3}, {2, 3}}, metrics.DefaultNPMIWords)
	fmt.Printf("%s: %.2f %.2f %.2f mean %.2f\n", ref.Name, per[0], per[1], per[2], mean)
	// Output: training documents: 1.00 -1.00 0.37 mean 0.12
}

func ExampleTopicDiversity() {
	beta := []float32{ // (T=2, V=4)
		0.5, 0.3, 0.1, 0.1,
		0.1, 0.2, 0.3, 0.4,
	}
	top := metrics.TopWords(beta, 2, 2)
	fmt.Println(top, metrics.TopicDiversity(top, 2))
	// Output: [[0 1] [3 2]] 1
}

func ExampleComputeTreeStats() {
	s, err := metrics.ComputeTreeStats([]int{-1, 0, 0, 1})
	fmt.Println(s.PerLevel, s.Depth, s.Leaves, err)
	// Output: [1 2 1] 3 2 <nil>
}
