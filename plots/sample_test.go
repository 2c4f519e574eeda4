package plots

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func sampleCurves() Curves {
	n := 40
	c := Curves{Title: "ml seed 1 (unsupervised)"}
	names := []string{"total", "graph", "topic", "sup"}
	vals := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	f1, auc := make([]float64, n), make([]float64, n)
	for e := 0; e < n; e++ {
		c.Epoch = append(c.Epoch, e+1)
		x := float64(e)
		vals[1][e] = 0.69*math.Exp(-x/10) + 0.2
		vals[2][e] = 6.5 - 0.8*(1-math.Exp(-x/8))
		vals[3][e] = 1.9 * math.Exp(-x/6)
		vals[0][e] = vals[1][e] + vals[2][e] + vals[3][e]
		f1[e], auc[e] = math.NaN(), math.NaN()
		if e%5 == 4 {
			f1[e] = 0.85 - 0.4*math.Exp(-x/8)
			auc[e] = 0.94 - 0.3*math.Exp(-x/7)
		}
	}
	for i, nm := range names {
		c.Loss = append(c.Loss, Series{nm, vals[i]})
	}
	c.Validation = []Series{{"kNN Micro-F1", f1}, {"link AUC", auc}}
	return c
}

// TestWriteSamples writes the sample figures, to $PLOTS_OUT for a visual
// check when it is set, else to a temporary folder (the figures must still
// render and save).
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("PLOTS_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	fig, err := LearningCurves(sampleCurves())
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(filepath.Join(dir, "curves")); err != nil {
		t.Fatal(err)
	}
	fig, err = AblationBars(sampleAblation())
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(filepath.Join(dir, "ablation")); err != nil {
		t.Fatal(err)
	}
	wide := Ablation{Title: "ML: λ_topic and tree ablations", Metrics: []string{"kNN Micro-F1", "kNN Macro-F1", "link AUC", "NPMI"}}
	for v, name := range []string{"GTFormer", "flat", "fixed", "no topic hierarchy", "no graph hierarchy", "Euclidean", "λ=0.01", "λ=0.1", "λ=10"} {
		x := float64(v) / 100
		wide.Variants = append(wide.Variants, Variant{Name: name,
			Mean: []float64{0.84 - x, 0.82 - x, 0.95 - x/2, 0.12 + x}, Std: []float64{0.01, 0.012, 0.004, 0.02}})
	}
	if fig, err = AblationBars(wide); err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(filepath.Join(dir, "ablation_wide")); err != nil {
		t.Fatal(err)
	}
	fig, err = DocumentMap(sampleMap(618))
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(filepath.Join(dir, "map")); err != nil {
		t.Fatal(err)
	}
}

func sampleAblation() Ablation {
	nan := math.NaN()
	return Ablation{
		Title:   "ML ablations (5 seeds)",
		Metrics: []string{"kNN Micro-F1", "kNN Macro-F1", "link AUC"},
		Variants: []Variant{
			{Name: "GTFormer", Mean: []float64{0.842, 0.821, 0.951}, Std: []float64{0.006, 0.009, 0.003}, Paper: []float64{0.86, 0.84, 0.96}},
			{Name: "flat tree", Mean: []float64{0.801, 0.776, 0.938}, Std: []float64{0.011, 0.012, 0.004}, Paper: []float64{0.82, nan, 0.95}},
			{Name: "fixed tree", Mean: []float64{0.823, 0.80, 0.944}, Std: []float64{0.008, 0.01, 0.002}},
			{Name: "w/o graph hierarchy", Mean: []float64{0.78, 0.75, 0.91}, Std: []float64{0.02, 0.02, 0.01}},
			{Name: "Euclidean", Mean: []float64{0.815, 0.79, nan}, Std: nil},
		},
	}
}

// sampleMap lays out planted clusters with the ML label names.
func sampleMap(n int) Map {
	names := []string{"Case_Based", "Genetic_Algorithms", "Neural_Networks",
		"Probabilistic_Methods", "Reinforcement_Learning", "Rule_Learning", "Theory"}
	rng := rand.New(rand.NewPCG(1, 2))
	m := Map{Title: "ML test documents (synthetic layout)", LabelNames: names}
	for i := 0; i < n; i++ {
		l := rng.IntN(len(names))
		a := 2 * math.Pi * float64(l) / float64(len(names))
		m.XY = append(m.XY, 20*math.Cos(a)+4*rng.NormFloat64(), 20*math.Sin(a)+4*rng.NormFloat64())
		if i%50 == 0 {
			l = -1
		}
		m.Labels = append(m.Labels, l)
	}
	return m
}
