package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyExperiment are flags that train one-epoch width-16 models on the
// built-in corpus: about a second per run, and 5-iteration LDA fits.
var tinyExperiment = []string{"--epochs", "1", "--width", "16", "--layers", "2", "--heads", "2", "--mlp", "32", "--max-len", "24", "--quiet", "--lda-iter", "5"}

func countLines(s, substr string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// TestExperimentBuiltin runs 2 seeds × 2 variants on the built-in corpus,
// then again (all skipped), then --collect.
func TestExperimentBuiltin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exp")
	args := append([]string{"experiment", "--data", "builtin", "--seeds", "2", "--seed", "3", "--ablation", "lambda-topic-10", "--out", out}, tinyExperiment...)
	code, stdout, stderr := runCmd(args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"1 dataset(s) × 2 variant(s) × 2 seed(s) = 4 runs",
		"builtin  baselines", "builtin  default              seed 3  done",
		"builtin  lambda-topic-10      seed 4  done", "kNN Micro-F1 ", "link AUC ",
		"builtin  lda                  seed 3  done", "builtin  lda                  seed 4  done",
		"results in " + filepath.Join(out, "results.md") + " (4 finished runs in 1 tables)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if n := countLines(stdout, " done "); n != 7 {
		t.Errorf("%d done lines, want 4 runs, the baselines and 2 LDA fits:\n%s", n, stdout)
	}
	for _, f := range []string{"runs/builtin/default/seed3/metrics.json", "runs/builtin/lambda-topic-10/seed4/curves.png",
		"runs/builtin/baselines.json", "runs/builtin/lda/seed3.json", "runs/builtin/lda/seed4.json", "results.md", "results.json", "ablation_builtin.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The built-in corpus's runs carry the planted tree's recovery.
	raw, err := os.ReadFile(filepath.Join(out, "runs/builtin/default/seed3/metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var met struct {
		Topics struct {
			RecoveryNMI *float64 `json:"recovery_nmi"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(raw, &met); err != nil {
		t.Fatal(err)
	}
	if r := met.Topics.RecoveryNMI; r == nil || *r < 0 || *r > 1 {
		t.Errorf("experiment run on the built-in corpus: topics.recovery_nmi missing or outside [0, 1]: %s", raw)
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "    gtformer experiment --data builtin --seeds 2 --seed 3 --ablation lambda-topic-10 --out "+out+" --epochs 1") {
		t.Errorf("results.md lacks the command line:\n%s", md)
	}
	for _, want := range []string{"| LDA (T = 13) | ", "topics beside LDA", "| lambda-topic-10 | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}

	code, stdout, _ = runCmd(args...)
	if code != 0 || countLines(stdout, " skipped ") != 4 || strings.Contains(stdout, " done ") {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}

	os.Remove(filepath.Join(out, "results.md"))
	code, stdout, stderr = runCmd("experiment", "--collect", "--out", out)
	if code != 0 || !strings.Contains(stdout, "(4 finished runs in 1 tables)") {
		t.Errorf("--collect: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "results.md")); err != nil {
		t.Error(err)
	}
}

func TestExperimentErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"extra argument", []string{"ml"}, 2, `unexpected argument "ml"`},
		{"unknown ablation", []string{"--ablation", "tree-flat,deeper"}, 2, `unknown variant "deeper"`},
		{"no seeds", []string{"--seeds", "0"}, 2, "--seeds must be at least 1"},
		{"missing dataset", []string{"--data", "nosuch", "--data-root", dir}, 2, "dataset nosuch"},
		{"missing path", []string{"--data", filepath.Join(dir, "nosuch")}, 2, "dataset " + filepath.Join(dir, "nosuch")},
		{"dataset twice", []string{"--data", "builtin,builtin"}, 2, `dataset "builtin" listed twice`},
		{"bad epochs", []string{"--epochs", "0"}, 2, "epochs 0 must be positive"},
		{"bad width", []string{"--width", "15", "--heads", "2"}, 2, "heads 2 must divide width 15"},
		{"bad split", []string{"--split", "thirds"}, 2, "--split must be paper or random"},
		{"bad flag", []string{"--sedes", "3"}, 2, "flag provided but not defined"},
		{"collect without runs", []string{"--collect", "--out", filepath.Join(dir, "none")}, 1, "no experiment in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"experiment", "--out", filepath.Join(dir, "out")}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, c.code, c.msg)
			}
		})
	}
}

func TestResolveDataset(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"ml", "other/pl"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	jsonl := filepath.Join(root, "news.jsonl")
	if err := os.WriteFile(jsonl, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, name, path string
		ok             bool
	}{
		{"builtin", "builtin", "", true},
		{"ml", "ml", filepath.Join(root, "ml"), true},
		{"pl", "", "", false}, // not directly under the root
		{filepath.Join(root, "other", "pl") + "/", "pl", filepath.Join(root, "other", "pl") + "/", true},
		{jsonl, "news", jsonl, true},
		{"", "", "", false},
	} {
		name, path, err := resolveDataset(c.in, root)
		if (err == nil) != c.ok || name != c.name || path != c.path {
			t.Errorf("resolveDataset(%q) = %q, %q, %v; want %q, %q, ok %v", c.in, name, path, err, c.name, c.path, c.ok)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine("gtformer experiment", []string{"--data", "ml,pl", "--out", "my runs", "--ablation", "it's"})
	want := `gtformer experiment --data ml,pl --out 'my runs' --ablation 'it'\''s'`
	if got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}
