package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/outputs"
)

// writeLDAFolder lays out an experiment folder by hand: dataset ml with
// three default runs (seeds 1-3, with the hierarchy measures) and LDA fits
// for seeds 1-4; dataset pl with one run and no LDA (a folder from before
// LDA was part of the experiment).
func writeLDAFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	put := func(ds string, m *outputs.Metrics) {
		m.Dataset, m.Variant = ds, DefaultVariant
		p := filepath.Join(RunDir(dir, ds, DefaultVariant, false, m.Seed), MetricsFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := outputs.WriteMetrics(p, *m); err != nil {
			t.Fatal(err)
		}
	}
	for i, knn := range []float64{80, 82, 84} {
		put("ml", &outputs.Metrics{Seed: uint64(i + 1), Test: evaluate.Test{KNNMicroF1: f(knn), LinkAUC: f(90), LogPerplexity: f(6.5), LogPerplexityCompletion: f(6.8)},
			Topics: evaluate.Topics{Count: 13, Depth: 3, NPMI: 0.10 * float64(i+1), Diversity: 0.6,
				LevelShare: []float64{0.2, 0.3, 0.5}, Specialization: []float64{0.1, 0.4, 0.6 + 0.1*float64(i)}, PCC: f(0.05), SD: f(0.9)}})
	}
	put("pl", &outputs.Metrics{Seed: 1, Test: evaluate.Test{KNNMicroF1: f(70)}, Topics: evaluate.Topics{Count: 13, Depth: 3, NPMI: 0.1}})
	for i, knn := range []float64{81, 80, 79, 50} {
		seed := uint64(i + 1)
		if err := writeJSON(LDAPath(dir, "ml", seed), LDARecord{Dataset: "ml", Seed: seed, Topics: 13, Iter: 100,
			Scores: baseline.Scores{MicroF1: f(knn), LinkAUC: f(85)}, TopicRecord: baseline.TopicRecord{NPMI: f(0.15), Diversity: f(0.5), LogPerplexity: f(6.6), LogPerplexityCompletion: f(6.6)}, Seconds: 3}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCollectLDA(t *testing.T) {
	for _, c := range []struct {
		name    string
		damage  func(t *testing.T, dir string)
		wantErr string
		want    []string
		notWant []string
	}{
		{name: "paired by seed",
			want: []string{
				// Embedding table: LDA over its four seeds beside the model.
				"| LDA (T = 13) | 72.5 ± 15.0 (4) | – | 85.0 ± 0.0 (4) | 6.60 ± 0.00 (4) | 6.60 ± 0.00 (4) | 15.0 ± 0.0 (4) | 0.500 ± 0.000 (4) |",
				"LDA (T = 13): latent Dirichlet allocation (batch variational Bayes, as scikit-learn's) with 13 topics, the default of `gtformer baseline --method lda`",
				"(seeds 1, 2, 3, 4)",
				// Topic table: levels for gtformer, dashes for LDA.
				"### ml (unsupervised): topics beside LDA",
				"| model | NPMI (%) | diversity | log-perplexity ↓ | log-perplexity (completion) ↓ | topics | level share (root first) | specialization (root first) | PCC (%) | SD |",
				"| gtformer default | 20.0 ± 10.0 (3) | 0.600 ± 0.000 (3) | 6.50 ± 0.00 (3) | 6.80 ± 0.00 (3) | 13.0 ± 0.0 (3) | 0.200 / 0.300 / 0.500 | 0.100 / 0.400 / 0.700 | 5.0 ± 0.0 (3) | 0.900 ± 0.000 (3) |",
				"| LDA (T = 13) | 15.0 ± 0.0 (4) | 0.500 ± 0.000 (4) | 6.60 ± 0.00 (4) | 6.60 ± 0.00 (4) | 13.0 ± 0.0 (4) | – | – | – | – |",
				// Paired over seeds 1-3 only: kNN −1, +2, +5; NPMI −5, +5, +15.
				"Paired by seed, gtformer − LDA (T = 13)",
				"| default | +2.0 ± 3.0 (3), 2/3 | +5.0 ± 0.0 (3), 3/3 | +5.0 ± 10.0 (3), 2/3 | +0.100 ± 0.000 (3), 3/3 | −0.10 ± 0.00 (3), 3/3 | +0.20 ± 0.00 (3), 3/3 |",
				// pl: no LDA files, still collected.
				"## pl (unsupervised)",
				"No LDA fits in this folder",
				"each level, root first (a level absent from some runs is averaged over those that have it). LDA is flat: it has no levels",
				// pl has neither levels nor LDA.
				"| gtformer default | 10.0 (1) | 0.000 (1) | 13.0 (1) |\n\n↓ lower is better.\n",
			},
			notWant: []string{"PCD", "PnCD"}},
		{name: "damaged LDA file",
			damage: func(t *testing.T, dir string) {
				if err := os.WriteFile(LDAPath(dir, "ml", 2), []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: filepath.Join("lda", "seed2.json")},
		{name: "LDA file under another seed's name",
			damage: func(t *testing.T, dir string) {
				if err := os.Rename(LDAPath(dir, "ml", 4), LDAPath(dir, "ml", 5)); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "holds seed 4, not the seed its name says"},
		{name: "stray files ignored",
			damage: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "runs", "ml", LDADir, ".seed9.json.tmp123"), []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"(seeds 1, 2, 3, 4)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeLDAFolder(t)
			if c.damage != nil {
				c.damage(t, dir)
			}
			res, err := Collect(dir)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var md bytes.Buffer
			if err := res.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(md.String(), w) {
					t.Errorf("results.md lacks %q:\n%s", w, md.String())
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(md.String(), w) {
					t.Errorf("results.md has %q:\n%s", w, md.String())
				}
			}
		})
	}
}
