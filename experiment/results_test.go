package experiment

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/outputs"
)

// writeHandFolder lays out an experiment folder by hand: ml with three
// default seeds (handRuns), two euclidean seeds, one supervised default
// seed and baselines; covid with one default seed and no baselines.
func writeHandFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	put := func(ds, variant string, m *outputs.Metrics) {
		m.Dataset = ds
		p := filepath.Join(RunDir(dir, ds, variant, m.Supervised, m.Seed), MetricsFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := outputs.WriteMetrics(p, *m); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range handRuns() {
		m.Variant = DefaultVariant
		put("ml", DefaultVariant, m)
	}
	for i, x := range []float64{60, 64} {
		put("ml", "euclidean", &outputs.Metrics{Seed: uint64(i + 1), Variant: "euclidean",
			Test: evaluate.Test{KNNMicroF1: f(x), KNNMacroF1: f(x - 5), LinkAUC: f(x + 20)}, Topics: evaluate.Topics{Count: 4, Depth: 2}})
	}
	// No variant recorded: Collect takes it from the folder name.
	put("ml", DefaultVariant, &outputs.Metrics{Seed: 1, Supervised: true,
		Test: evaluate.Test{KNNMicroF1: f(85), SupMicroF1: f(87), SupMacroF1: f(86)}})
	put("covid", DefaultVariant, &outputs.Metrics{Seed: 1, Variant: DefaultVariant, Test: evaluate.Test{KNNMicroF1: f(81)}})
	if err := writeJSON(filepath.Join(dir, "runs", "ml", BaselinesFile), baselinesFile{Dataset: "ml", Baselines: []BaselineRecord{
		{Method: "tfidf", Scores: baseline.Scores{MicroF1: f(74.1), MacroF1: f(70), LinkAUC: f(81.5)}, Seconds: 1.5},
		{Method: "tfidf-graph", Scores: baseline.Scores{MicroF1: f(84.5), MacroF1: f(83.7), LinkAUC: f(93.7)}, Seconds: 2},
	}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCollectHandMade(t *testing.T) {
	dir := writeHandFolder(t)
	res, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range res.Groups {
		names = append(names, g.title())
	}
	if got := strings.Join(names, ", "); got != "ml (unsupervised), ml (supervised), covid (unsupervised)" {
		t.Fatalf("groups %s", got)
	}
	ml := res.Groups[0]
	if len(ml.Variants) != 2 || ml.Variants[0].Name != "default" || ml.Variants[1].Name != "euclidean" {
		t.Fatalf("ml variants %+v", ml.Variants)
	}
	if s := ml.Variants[0].Values["knn_micro_f1"]; s.Mean != 82 || !near(s.Std, 2, 1e-12) || s.N != 3 {
		t.Errorf("ml default kNN Micro-F1 %+v, want 82 ± 2 (3)", s)
	}
	if s := ml.Variants[1].Values["link_auc"]; s.Mean != 82 || !near(s.Std, math.Sqrt(8), 1e-12) || s.N != 2 {
		t.Errorf("ml euclidean link AUC %+v, want 82 ± √8 (2)", s)
	}
	if got := ml.Variants[0].Seeds; len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("seeds %v", got)
	}
	if len(ml.Baselines) != 2 || ml.Baselines[1].Values["knn_micro_f1"].Mean != 84.5 {
		t.Errorf("baselines %+v", ml.Baselines)
	}
	if len(ml.Paper) != 2 || ml.Paper[0].Values["knn_micro_f1"].Mean != 84.5 || ml.Paper[1].Model != "HGTM" {
		t.Errorf("paper rows %+v", ml.Paper)
	}
	sup := res.Groups[1]
	if len(sup.Variants) != 1 || sup.Variants[0].Name != "default" || sup.Variants[0].Values["sup_micro_f1"].Mean != 87 {
		t.Errorf("supervised group %+v", sup)
	}
	if res.Groups[2].Baselines != nil {
		t.Errorf("covid has baselines %+v", res.Groups[2].Baselines)
	}

	res.Command = "gtformer experiment --data ml,covid --seeds 3 --ablation euclidean --out " + dir
	if err := res.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    " + res.Command + "\n",
		"Excel's STDEV",
		"## ml (unsupervised)",
		"| gtformer default | 82.0 ± 2.0 (3) | 72.0 ± 2.0 (3) | 92.0 ± 2.8 (2) | 6.70 ± 0.20 (3) | 20.0 ± 10.0 (3) |",
		"| baseline tfidf-graph | 84.5 (1) | 83.7 (1) | 93.7 (1) | – | – | – | – | – | 2.0 (1) | – |",
		// The paper's figures: unsupervised GTFormer and HGTM on ML, with
		// NPMI marked as not comparable.
		"| paper GTFormer | 84.5 ± 0.9 (5) | 82.8 ± 1.0 (5) | 93.4 ± 0.5 (5) | 6.82 ± 0.04 (5) | 20.6 ± 0.4 (5) † |",
		"| paper HGTM | 82.1 ± 0.9 (5) | 80.1 ± 0.9 (5) | 89.9 ± 0.8 (5) | 6.89 ± 0.02 (5) | 19.0 ± 2.6 (5) † |",
		"† NPMI (%): the paper's NPMI used an external reference corpus",
		"![ablations of ml (unsupervised)](ablation_ml.png)",
		"## ml (supervised)",
		"| paper GTFormer | – | – | 86.5 ± 0.5 (5) | 85.1 ± 0.7 (5) |",
		"| paper HGTM | – | – | 83.8 ± 0.5 (5) | 82.6 ± 0.7 (5) |",
		"## covid (unsupervised)",
		"| paper GTFormer | 82.3 ± 1.1 (5) | 82.2 ± 1.1 (5) | 93.2 ± 0.7 (5) | 6.79 ± 0.03 (5) | 24.0 ± 1.3 (5) † |",
		"- euclidean: Euclidean instead of hyperbolic geometry",
		// The summary: the default against the paper, the best baseline
		// by value (tfidf-graph over tfidf), NPMI left out as not comparable.
		"## Summary: the default beside the paper",
		"| ml (unsupervised) | kNN Micro-F1 | 82.0 ± 2.0 (3) | −2.5 | 84.5 ± 0.9 | 82.1 ± 0.9 | 84.5 (tfidf-graph) |",
		"| ml (unsupervised) | log-perplexity ↓ | 6.70 ± 0.20 (3) | −0.12 | 6.82 ± 0.04 | 6.89 ± 0.02 | – |",
		"| ml (supervised) | sup. Micro-F1 | 87.0 (1) | +0.5 | 86.5 ± 0.5 | 83.8 ± 0.5 | – |",
		"| covid (unsupervised) | kNN Micro-F1 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	summary, _, _ := strings.Cut(string(md[strings.Index(string(md), "## Summary"):]), "\n## ")
	if strings.Contains(summary, "NPMI") || strings.Contains(summary, "euclidean") {
		t.Errorf("the summary holds NPMI or a variant other than the default:\n%s", summary)
	}
	for _, f := range []string{"ablation_ml.png", "ablation_ml.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"ablation_covid.png", "ablation_ml_supervised.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s drawn for a single variant", f)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Command != res.Command || len(back.Groups) != 3 || back.Groups[0].Variants[0].Values["knn_micro_f1"] != ml.Variants[0].Values["knn_micro_f1"] ||
		!math.IsNaN(back.Groups[2].Variants[0].Values["knn_micro_f1"].Std) {
		t.Errorf("results.json does not round-trip:\n%s", raw)
	}
}

func TestCollectEmptyAndDamaged(t *testing.T) {
	dir := t.TempDir()
	res, err := Collect(dir)
	if err != nil || len(res.Groups) != 0 {
		t.Fatalf("empty folder: %+v, %v", res, err)
	}
	p := filepath.Join(RunDir(dir, "ml", "default", false, 1), MetricsFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{\"seed\": 1,"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("damaged metrics.json: error %v, want one naming %s", err, p)
	}
}

func TestPaperFigures(t *testing.T) {
	// The means docs/design.md quotes ("Evaluation protocol"), and the supervised figures of the paper's
	// table (Micro/Macro-F1).
	for _, c := range []struct {
		ds               string
		micro, auc, perp float64
		supMicro, supMac float64
	}{
		{"DS", 69.1, 95.6, 7.40, 72.2, 69.3},
		{"ML", 84.5, 93.4, 6.82, 86.5, 85.1},
		{"PL", 70.9, 93.4, 6.68, 74.5, 71.4},
		{"COVID", 82.3, 93.2, 6.79, 85.3, 86.2},
	} {
		u, s := PaperFigures(c.ds, false), PaperFigures(c.ds, true)
		if len(u) != 2 || len(s) != 2 || u[0].Model != "GTFormer" || s[0].Model != "GTFormer" {
			t.Fatalf("%s: rows %+v %+v", c.ds, u, s)
		}
		v := u[0].Values
		if v["knn_micro_f1"].Mean != c.micro || v["link_auc"].Mean != c.auc || v["log_perplexity"].Mean != c.perp ||
			s[0].Values["sup_micro_f1"].Mean != c.supMicro || s[0].Values["sup_macro_f1"].Mean != c.supMac {
			t.Errorf("%s: %+v / %+v", c.ds, v, s[0].Values)
		}
	}
	if PaperFigures("builtin", false) != nil {
		t.Error("figures for a dataset the paper does not have")
	}
}
