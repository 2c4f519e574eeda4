package plots_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/plots"
	"github.com/gtformer/gtformer/tsne"
)

// listDir prints the files in dir.
func listDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}

func ExampleLearningCurves() {
	nan := math.NaN()
	fig, err := plots.LearningCurves(plots.Curves{
		Title: "ml, seed 1",
		Epoch: []int{1, 2, 3, 4},
		Loss: []plots.Series{
			{Name: "total", Values: []float64{7.1, 6.4, 6.1, 6.0}},
			{Name: "graph", Values: []float64{0.69, 0.52, 0.44, 0.41}},
		},
		// Validation every other epoch; NaN where not measured.
		Validation: []plots.Series{
			{Name: "kNN Micro-F1", Values: []float64{nan, 0.71, nan, 0.80}},
			{Name: "link AUC", Values: []float64{nan, 0.88, nan, 0.93}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "curves")
	defer os.RemoveAll(dir)
	if err := fig.Save(filepath.Join(dir, "curves")); err != nil {
		fmt.Println(err)
		return
	}
	listDir(dir)
	// Output:
	// curves.png
	// curves.svg
}

func ExampleAblationBars() {
	fig, err := plots.AblationBars(plots.Ablation{
		Title:   "ML, 5 seeds",
		Metrics: []string{"kNN Micro-F1", "link AUC"},
		Variants: []plots.Variant{
			{Name: "growing tree", Mean: []float64{0.84, 0.95}, Std: []float64{0.01, 0.004},
				Paper: []float64{0.86, 0.96}},
			{Name: "flat", Mean: []float64{0.80, 0.93}, Std: []float64{0.02, 0.006}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	w, h := fig.Size()
	fmt.Printf("%.0f×%.0f pixels at %d DPI\n", w.Dots(plots.DPI), h.Dots(plots.DPI), plots.DPI)
	// Output: 900×675 pixels at 150 DPI
}

// A map of documents: t-SNE of their embedding rows, coloured by label.
func ExampleDocumentMap() {
	// Six documents in 3-D, two topics.
	emb := []float64{
		1, 0, 0, 1.1, 0.1, 0, 0.9, 0, 0.1,
		0, 1, 0, 0.1, 1.1, 0, 0, 0.9, 0.1,
	}
	layout, err := tsne.Embed(emb, 6, 3, tsne.Config{Perplexity: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fig, err := plots.DocumentMap(plots.Map{
		Title:      "test documents",
		XY:         layout.Y,
		Labels:     []int{0, 0, 0, 1, 1, 1},
		LabelNames: []string{"Neural_Networks", "Theory"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "map")
	defer os.RemoveAll(dir)
	if err := fig.Save(filepath.Join(dir, "map")); err != nil {
		fmt.Println(err)
		return
	}
	listDir(dir)
	// Output:
	// map.png
	// map.svg
}
