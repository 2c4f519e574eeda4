package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/gtformer/gtformer/outputs"
)

// Stat summarises one metric over runs: the mean and the sample standard
// deviation (denominator n−1, as Excel's STDEV, which the paper's tables
// used), over N values. Std is NaN when N < 2, where a sample deviation is
// undefined; JSON writes it as null.
type Stat struct {
	Mean float64
	Std  float64
	N    int
}

// Summarize returns the mean and sample standard deviation of xs. Both are
// computed in two passes (mean first, then squared deviations from it), which
// keeps the deviation of values with a large common offset exact where the
// one-pass Σx² − n·mean² would cancel.
func Summarize(xs []float64) Stat {
	n := len(xs)
	if n == 0 {
		return Stat{Mean: math.NaN(), Std: math.NaN()}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	if n == 1 {
		return Stat{Mean: mean, Std: math.NaN(), N: 1}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return Stat{Mean: mean, Std: math.Sqrt(ss / float64(n-1)), N: n}
}

type statJSON struct {
	Mean float64  `json:"mean"`
	Std  *float64 `json:"std"` // null when n < 2
	N    int      `json:"n"`
}

// MarshalJSON writes {"mean": m, "std": s or null, "n": n}.
func (s Stat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) || math.IsInf(s.Std, 0) {
		return nil, fmt.Errorf("experiment: stat %v is not finite", s)
	}
	j := statJSON{Mean: s.Mean, N: s.N}
	if !math.IsNaN(s.Std) {
		j.Std = &s.Std
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Stat) UnmarshalJSON(b []byte) error {
	var j statJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	s.Mean, s.N, s.Std = j.Mean, j.N, math.NaN()
	if j.Std != nil {
		s.Std = *j.Std
	}
	return nil
}

// Metric is one column of the results: a number read from a run's
// metrics.json, in the unit its label names.
type Metric struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Digits int    `json:"-"` // decimals in results.md
	// Chart marks the percentage scores drawn on the ablation charts.
	Chart bool `json:"-"`
	get   func(m *outputs.Metrics) (float64, bool)
}

func ptrValue(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Metrics lists the metrics aggregated over runs, in table order. F1 and AUC
// are in percent, as metrics.json and the paper have them; NPMI is converted
// to percent to match the paper's table.
var Metrics = []Metric{
	{"knn_micro_f1", "kNN Micro-F1", 1, true, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.KNNMicroF1) }},
	{"knn_macro_f1", "kNN Macro-F1", 1, true, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.KNNMacroF1) }},
	{"sup_micro_f1", "sup. Micro-F1", 1, true, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.SupMicroF1) }},
	{"sup_macro_f1", "sup. Macro-F1", 1, true, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.SupMacroF1) }},
	{"link_auc", "link AUC", 1, true, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.LinkAUC) }},
	{"log_perplexity", "log-perplexity", 2, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.LogPerplexity) }},
	{"log_perplexity_completion", "log-perplexity (completion)", 2, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Test.LogPerplexityCompletion) }},
	{"valid_knn_micro_f1", "valid kNN Micro-F1", 1, false, func(m *outputs.Metrics) (float64, bool) {
		if m.Valid == nil {
			return 0, false
		}
		return ptrValue(m.Valid.KNNMicroF1)
	}},
	{"valid_link_auc", "valid link AUC", 1, false, func(m *outputs.Metrics) (float64, bool) {
		if m.Valid == nil {
			return 0, false
		}
		return ptrValue(m.Valid.LinkAUC)
	}},
	{"npmi", "NPMI (%)", 1, false, func(m *outputs.Metrics) (float64, bool) { return 100 * m.Topics.NPMI, m.Topics.Count > 0 }},
	{"diversity", "diversity", 3, false, func(m *outputs.Metrics) (float64, bool) { return m.Topics.Diversity, m.Topics.Count > 0 }},
	{"level_share_min", "smallest level share", 3, false, func(m *outputs.Metrics) (float64, bool) {
		ls := m.Topics.LevelShare
		if len(ls) == 0 {
			return 0, false
		}
		return slices.Min(ls), true
	}},
	{"specialization_root", "specialization, root", 3, false, func(m *outputs.Metrics) (float64, bool) {
		sp := m.Topics.Specialization
		if len(sp) == 0 {
			return 0, false
		}
		return sp[0], true
	}},
	{"specialization_deepest", "specialization, deepest level", 3, false, func(m *outputs.Metrics) (float64, bool) {
		sp := m.Topics.Specialization
		if len(sp) == 0 {
			return 0, false
		}
		return sp[len(sp)-1], true
	}},
	{"pcc", "PCC (%)", 1, false, func(m *outputs.Metrics) (float64, bool) { v, ok := ptrValue(m.Topics.PCC); return 100 * v, ok }},
	{"pcd", "PCD", 3, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Topics.PCD) }},
	{"sd", "SD", 3, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Topics.SD) }},
	{"pncd", "PnCD", 3, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Topics.PnCD) }},
	{"recovery_nmi", "planted tree recovery NMI", 3, false, func(m *outputs.Metrics) (float64, bool) { return ptrValue(m.Topics.RecoveryNMI) }},
	{"topics", "topics", 1, false, func(m *outputs.Metrics) (float64, bool) { return float64(m.Topics.Count), m.Topics.Count > 0 }},
	{"depth", "depth", 1, false, func(m *outputs.Metrics) (float64, bool) { return float64(m.Topics.Depth), m.Topics.Count > 0 }},
	{"train_seconds", "train time (s)", 1, false, func(m *outputs.Metrics) (float64, bool) { return m.TrainSeconds, m.TrainSeconds > 0 }},
	{"docs_per_sec", "docs/s", 0, false, func(m *outputs.Metrics) (float64, bool) { return m.DocsPerSec, m.DocsPerSec > 0 }},
}

// Aggregate summarises every metric over the runs; a metric no run has is
// left out of the map.
func Aggregate(runs []*outputs.Metrics) map[string]Stat {
	out := map[string]Stat{}
	for _, met := range Metrics {
		var xs []float64
		for _, r := range runs {
			if x, ok := met.get(r); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
				xs = append(xs, x)
			}
		}
		if len(xs) > 0 {
			out[met.Key] = Summarize(xs)
		}
	}
	return out
}

// Paired compares two sets of runs seed by seed: the differences a − b of
// one metric over the seeds both have it on, and on how many of them the
// difference has the sign of its mean (a gain counts when it holds over
// ≥ 3 paired seeds).
type Paired struct {
	Metric string   `json:"metric"`
	Diff   Stat     `json:"diff"`
	Seeds  []uint64 `json:"seeds"`
	// Holds counts the seeds whose difference has the sign of the mean (a
	// zero difference, or a zero mean, holds on none).
	Holds int `json:"holds"`
}

// PairedMetrics are the metrics the tables pair the model with LDA on.
var PairedMetrics = []string{"knn_micro_f1", "link_auc", "npmi", "diversity", "log_perplexity", "log_perplexity_completion"}

// PairDiff returns the paired differences a − b of the metric key over the
// seeds on which both a run of a and one of b have it; ok is false when no
// seed pairs. Runs are matched by their Seed; each seed at most once per
// side (the first run of a seed counts).
func PairDiff(key string, a, b []*outputs.Metrics) (Paired, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		panic(fmt.Sprintf("experiment: PairDiff: unknown metric %q", key))
	}
	get := Metrics[i].get
	value := func(m *outputs.Metrics) (float64, bool) {
		x, ok := get(m)
		return x, ok && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	bySeed := map[uint64]float64{}
	for _, r := range b {
		if x, ok := value(r); ok {
			if _, dup := bySeed[r.Seed]; !dup {
				bySeed[r.Seed] = x
			}
		}
	}
	p := Paired{Metric: key}
	var diffs []float64
	for _, r := range a {
		x, ok := value(r)
		y, paired := bySeed[r.Seed]
		if !ok || !paired || slices.Contains(p.Seeds, r.Seed) {
			continue
		}
		p.Seeds = append(p.Seeds, r.Seed)
		diffs = append(diffs, x-y)
	}
	if len(diffs) == 0 {
		return Paired{}, false
	}
	p.Diff = Summarize(diffs)
	for _, d := range diffs {
		if d*p.Diff.Mean > 0 {
			p.Holds++
		}
	}
	return p, true
}
