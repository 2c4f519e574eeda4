package experiment_test

import (
	"fmt"

	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/experiment"
	"github.com/gtformer/gtformer/outputs"
)

// Summarize gives the mean and the sample standard deviation (n − 1), as
// the paper's tables.
func ExampleSummarize() {
	s := experiment.Summarize([]float64{84.1, 85.0, 83.6, 84.9, 84.4})
	fmt.Printf("%.2f ± %.2f (%d)\n", s.Mean, s.Std, s.N)
	// Output: 84.40 ± 0.58 (5)
}

// ParseVariants always puts default first, so every ablation has its
// reference.
func ExampleParseVariants() {
	vs, err := experiment.ParseVariants("euclidean,tree-flat")
	if err != nil {
		panic(err)
	}
	for _, v := range vs {
		fmt.Println(v.Name)
	}
	// Output:
	// default
	// tree-flat
	// euclidean
}

// PaperFigures returns the published figures to print beside a dataset's
// runs.
func ExamplePaperFigures() {
	for _, r := range experiment.PaperFigures("ml", true) {
		s := r.Values["sup_micro_f1"]
		fmt.Printf("%s supervised Micro-F1 %.1f ± %.1f\n", r.Model, s.Mean, s.Std)
	}
	// Output:
	// GTFormer supervised Micro-F1 86.5 ± 0.5
	// HGTM supervised Micro-F1 83.8 ± 0.5
}

// PairDiff compares two sets of runs seed by seed, as the tables compare
// gtformer with LDA: seed 4 has no partner and is left out.
func ExamplePairDiff() {
	run := func(seed uint64, knn float64) *outputs.Metrics {
		return &outputs.Metrics{Seed: seed, Test: evaluate.Test{KNNMicroF1: &knn}}
	}
	model := []*outputs.Metrics{run(1, 84), run(2, 85), run(3, 82), run(4, 90)}
	lda := []*outputs.Metrics{run(1, 80), run(2, 81), run(3, 83)}
	p, _ := experiment.PairDiff("knn_micro_f1", model, lda)
	fmt.Printf("%+.1f ± %.1f over seeds %v, sign holds on %d\n", p.Diff.Mean, p.Diff.Std, p.Seeds, p.Holds)
	// Output: +2.3 ± 2.9 over seeds [1 2 3], sign holds on 2
}
