package experiment

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/outputs"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// TestSummarize checks mean and sample standard deviation against values
// worked by hand. The eight-value case is Wikipedia's "Standard deviation"
// example (population σ = 2; the sample deviation, Excel's STDEV, is
// √(32/7) = 2.1380899...).
func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name      string
		xs        []float64
		mean, std float64
		n         int
	}{
		{"empty", nil, math.NaN(), math.NaN(), 0},
		{"one value has no deviation", []float64{84.5}, 84.5, math.NaN(), 1},
		{"two values", []float64{1, 3}, 2, math.Sqrt2, 2},
		{"one to four", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3), 4},
		{"wikipedia", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7), 8},
		{"equal values", []float64{7, 7, 7}, 7, 0, 3},
		// Σx² − n·mean² would lose every digit here.
		{"large offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 3}, 1e9 + 2, 1, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.xs)
			if !near(s.Mean, c.mean, 1e-12*math.Max(1, math.Abs(c.mean))) || !near(s.Std, c.std, 1e-12) || s.N != c.n {
				t.Errorf("Summarize(%v) = %+v, want mean %g std %g n %d", c.xs, s, c.mean, c.std, c.n)
			}
		})
	}
}

func TestStatJSON(t *testing.T) {
	for _, s := range []Stat{{84.5, 0.9, 5}, {74.1, math.NaN(), 1}} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Stat
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Mean != s.Mean || back.N != s.N || !near(back.Std, s.Std, 0) {
			t.Errorf("%+v → %s → %+v", s, b, back)
		}
	}
	if b, _ := json.Marshal(Stat{74.1, math.NaN(), 1}); string(b) != `{"mean":74.1,"std":null,"n":1}` {
		t.Errorf("n = 1 stat as %s, want std null", b)
	}
	if _, err := json.Marshal(Stat{math.NaN(), math.NaN(), 0}); err == nil {
		t.Error("a NaN mean marshalled without error")
	}
}

func f(x float64) *float64 { return &x }

// handRuns are three runs' metrics made up for the aggregation tests: the
// third lacks link AUC and has no throughput.
func handRuns() []*outputs.Metrics {
	return []*outputs.Metrics{
		{Seed: 1, TrainSeconds: 10, DocsPerSec: 100, Test: evaluate.Test{KNNMicroF1: f(80), KNNMacroF1: f(70), LinkAUC: f(90), LogPerplexity: f(6.5)},
			Topics: evaluate.Topics{Count: 13, Depth: 3, NPMI: 0.10, Diversity: 0.5}},
		{Seed: 2, TrainSeconds: 20, DocsPerSec: 200, Test: evaluate.Test{KNNMicroF1: f(82), KNNMacroF1: f(72), LinkAUC: f(94), LogPerplexity: f(6.7)},
			Topics: evaluate.Topics{Count: 15, Depth: 3, NPMI: 0.20, Diversity: 0.6}},
		{Seed: 3, TrainSeconds: 30, Test: evaluate.Test{KNNMicroF1: f(84), KNNMacroF1: f(74), LogPerplexity: f(6.9)},
			Topics: evaluate.Topics{Count: 17, Depth: 4, NPMI: 0.30, Diversity: 0.7}},
	}
}

func TestAggregate(t *testing.T) {
	got := Aggregate(handRuns())
	for _, c := range []struct {
		key       string
		mean, std float64
		n         int
	}{
		{"knn_micro_f1", 82, 2, 3},
		{"knn_macro_f1", 72, 2, 3},
		{"link_auc", 92, math.Sqrt(8), 2},
		{"log_perplexity", 6.7, 0.2, 3},
		{"npmi", 20, 10, 3}, // in percent
		{"diversity", 0.6, 0.1, 3},
		{"topics", 15, 2, 3},
		{"depth", 10.0 / 3, math.Sqrt(1.0 / 3), 3},
		{"train_seconds", 20, 10, 3},
		{"docs_per_sec", 150, math.Sqrt(5000), 2},
	} {
		s, ok := got[c.key]
		if !ok || !near(s.Mean, c.mean, 1e-9) || !near(s.Std, c.std, 1e-9) || s.N != c.n {
			t.Errorf("%s = %+v (present %v), want %g ± %g (%d)", c.key, s, ok, c.mean, c.std, c.n)
		}
	}
	for _, k := range []string{"sup_micro_f1", "sup_macro_f1"} {
		if s, ok := got[k]; ok {
			t.Errorf("unsupervised runs aggregate %s = %+v", k, s)
		}
	}
}

func TestPairDiff(t *testing.T) {
	run := func(seed uint64, knn float64, auc *float64) *outputs.Metrics {
		return &outputs.Metrics{Seed: seed, Test: evaluate.Test{KNNMicroF1: f(knn), LinkAUC: auc}}
	}
	for _, c := range []struct {
		name      string
		key       string
		a, b      []*outputs.Metrics
		ok        bool
		mean, std float64
		seeds     []uint64
		holds     int
	}{
		{"all seeds pair", "knn_micro_f1",
			[]*outputs.Metrics{run(1, 82, nil), run(2, 84, nil), run(3, 80, nil)},
			[]*outputs.Metrics{run(3, 79, nil), run(1, 80, nil), run(2, 81, nil)},
			true, 2, 1, []uint64{1, 2, 3}, 3},
		{"sign holds on two of three", "knn_micro_f1",
			[]*outputs.Metrics{run(1, 82, nil), run(2, 80, nil), run(3, 83, nil)},
			[]*outputs.Metrics{run(1, 80, nil), run(2, 81, nil), run(3, 80, nil)},
			true, 4.0 / 3, math.Sqrt(13.0 / 3), []uint64{1, 2, 3}, 2},
		{"unpaired seeds left out", "knn_micro_f1",
			[]*outputs.Metrics{run(1, 82, nil), run(4, 90, nil)},
			[]*outputs.Metrics{run(1, 85, nil), run(2, 70, nil)},
			true, -3, math.NaN(), []uint64{1}, 1},
		{"a seed without the metric left out", "link_auc",
			[]*outputs.Metrics{run(1, 0, f(90)), run(2, 0, nil), run(3, 0, f(95))},
			[]*outputs.Metrics{run(1, 0, f(91)), run(2, 0, f(80)), run(3, 0, f(96))},
			true, -1, 0, []uint64{1, 3}, 2},
		{"zero difference holds nowhere", "knn_micro_f1",
			[]*outputs.Metrics{run(1, 80, nil)}, []*outputs.Metrics{run(1, 80, nil)},
			true, 0, math.NaN(), []uint64{1}, 0},
		{"no pair", "knn_micro_f1",
			[]*outputs.Metrics{run(1, 80, nil)}, []*outputs.Metrics{run(2, 80, nil)},
			false, 0, 0, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := PairDiff(c.key, c.a, c.b)
			if ok != c.ok {
				t.Fatalf("ok %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			stdOK := near(p.Diff.Std, c.std, 1e-9) || (math.IsNaN(c.std) && math.IsNaN(p.Diff.Std))
			if p.Metric != c.key || !near(p.Diff.Mean, c.mean, 1e-9) || !stdOK || p.Diff.N != len(c.seeds) || !slices.Equal(p.Seeds, c.seeds) || p.Holds != c.holds {
				t.Errorf("%+v, want %g ± %g over %v holding on %d", p, c.mean, c.std, c.seeds, c.holds)
			}
		})
	}
}
