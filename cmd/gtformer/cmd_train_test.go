package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/train"
)

// smallTrain are flags that train a small model on the built-in corpus in
// a few seconds on two cores.
var smallTrain = []string{"--epochs", "2", "--width", "16", "--layers", "2", "--heads", "2", "--mlp", "32", "--max-len", "24", "--seed", "1", "--quiet"}

// TestTrainBuiltinEndToEnd runs `gtformer train` on the built-in corpus with
// small flags: exit 0, the tree and the test metrics on stdout, every output
// file written and consistent (topics.txt is the printed tree, metrics.json
// has the schema, the arrays their shapes); then `topics` and
// `embed` on the result; then `train --resume` of the finished run, which
// restores the best state from the checkpoint and writes the same outputs
// again.
func TestTrainBuiltinEndToEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := runCmd(append([]string{"train", "--out", dir}, smallTrain...)...)
	if code != 0 {
		t.Fatalf("train: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if errs != "" {
		t.Errorf("--quiet train wrote to stderr:\n%s", errs)
	}
	for _, f := range []string{"config.json", "tree.json", "weights.safetensors", "topics.json", "topics.txt",
		"doc_embeddings.npy", "doc_topics.npy", "metrics.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("output missing: %v", err)
		}
	}
	if !train.HasCheckpoint(filepath.Join(dir, "checkpoint")) {
		t.Error("no checkpoint in the output folder")
	}
	txt, err := os.ReadFile(filepath.Join(dir, "topics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, string(txt)) || !strings.HasPrefix(out, "0 L0 (") {
		t.Errorf("stdout does not start with the tree of topics.txt:\n%s", out)
	}
	for _, want := range []string{"\ntest: kNN Micro-F1 ", "link AUC ", "log-perplexity ", "\ntopics: ", "\nhierarchy: level share ", "\nplanted tree recovery: NMI ", "outputs in " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}

	raw, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var met struct {
		Dataset      string         `json:"dataset"`
		Seed         *uint64        `json:"seed"`
		Supervised   *bool          `json:"supervised"`
		TrainSeconds float64        `json:"train_seconds"`
		Epochs       int            `json:"epochs"`
		Test         map[string]any `json:"test"`
		Topics       map[string]any `json:"topics"`
	}
	if err := json.Unmarshal(raw, &met); err != nil {
		t.Fatal(err)
	}
	if met.Dataset == "" || met.Seed == nil || *met.Seed != 1 || met.Supervised == nil || *met.Supervised || met.Epochs != 2 || met.TrainSeconds <= 0 {
		t.Errorf("metrics.json header: %s", raw)
	}
	for _, k := range []string{"knn_micro_f1", "knn_macro_f1", "link_auc", "log_perplexity"} {
		if _, ok := met.Test[k]; !ok {
			t.Errorf("metrics.json test lacks %s", k)
		}
	}
	if _, ok := met.Test["sup_micro_f1"]; ok {
		t.Error("unsupervised run reports supervised F1")
	}
	// The built-in corpus's labels are the planted level-1 branches; its
	// tf-idf start alone separates them far above chance.
	if f1, _ := met.Test["knn_micro_f1"].(float64); f1 < 60 {
		t.Errorf("kNN Micro-F1 %.1f on the built-in corpus", f1)
	}
	// The built-in corpus's 300 test documents are all scored (below
	// --eval-queries' 10,000).
	if q, sampled := met.Test["eval_queries"], met.Test["eval_sampled"]; q != 300.0 || sampled != false {
		t.Errorf("metrics.json eval_queries %v, eval_sampled %v: want 300, false", q, sampled)
	}
	checkTopicsMetrics(t, met.Topics, raw)
	pts, shape, err := npy.ReadAs[float32](filepath.Join(dir, "doc_embeddings.npy"))
	if err != nil || !slices.Equal(shape, []int{1500, 17}) {
		t.Fatalf("doc_embeddings.npy: shape %v, %v", shape, err)
	}

	t.Run("topics", func(t *testing.T) { checkTopicsCmd(t, dir) })
	t.Run("topics facets and links", func(t *testing.T) { checkTopicsMapsCmd(t, dir) })
	t.Run("embed", func(t *testing.T) { checkEmbedCmd(t, dir) })
	t.Run("resume finished run", func(t *testing.T) {
		code, out2, errs := runCmd("train", "--out", dir, "--resume", "--quiet")
		if code != 0 {
			t.Fatalf("train --resume: exit %d: %s", code, errs)
		}
		again, _, err := npy.ReadAs[float32](filepath.Join(dir, "doc_embeddings.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pts, again) {
			t.Error("resuming the finished run changed the embeddings")
		}
		raw2, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		// Everything but the phases' wall times (each session's own).
		if a, b := withoutPhases(t, raw), withoutPhases(t, raw2); a != b {
			t.Errorf("resuming the finished run changed metrics.json:\n%s\nvs\n%s", a, b)
		}
		if tail := out2[strings.Index(out2, "\ntest:"):]; !strings.HasPrefix(out[strings.Index(out, "\ntest:"):], tail[:strings.Index(tail, "outputs in")]) {
			t.Errorf("resumed run printed other metrics:\n%s\nvs\n%s", out2, out)
		}
	})
}

// TestTrainErrors: bad flags exit 2 with the problem on the last line;
// failures of the run itself exit 1 with one line.
func TestTrainErrors(t *testing.T) {
	tmp := t.TempDir()
	var unlabelled, unlinked bytes.Buffer
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&unlabelled, `{"id": %d, "text": "graph node edge topic word tree %d", "links": [%d]}`+"\n", i, i%3, (i+1)%10)
		fmt.Fprintf(&unlinked, `{"id": %d, "text": "graph node edge topic word tree %d", "label": "l%d"}`+"\n", i, i%3, i%2)
	}
	unlabelledPath := filepath.Join(tmp, "unlabelled.jsonl")
	unlinkedPath := filepath.Join(tmp, "unlinked.jsonl")
	if err := os.WriteFile(unlabelledPath, unlabelled.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unlinkedPath, unlinked.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad geometry", []string{"--geometry", "spherical"}, 2, `geometry "spherical"`},
		{"zero epochs", []string{"--epochs", "0"}, 2, "epochs 0 must be positive"},
		{"bad nesting", []string{"--nesting", "half"}, 2, `nesting "half"`},
		{"heads do not divide width", []string{"--width", "15", "--heads", "2"}, 2, "heads 2 must divide width 15"},
		{"unknown flag", []string{"--widht", "16"}, 2, "flag provided but not defined: -widht"},
		{"extra argument", []string{"data.jsonl"}, 2, `unexpected argument "data.jsonl"`},
		{"supervised without labels", []string{"--data", unlabelledPath, "--min-df", "1", "--max-df", "0", "--supervised"}, 2, "--supervised needs labels"},
		{"missing corpus", []string{"--data", filepath.Join(tmp, "none")}, 1, "none"},
		{"no links", []string{"--data", unlinkedPath, "--min-df", "1", "--max-df", "0"}, 1, "no links among the training documents"},
		{"resume without checkpoint", []string{"--resume"}, 1, "no run wrote a checkpoint there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"train", "--out", out, "--quiet"}, tc.args...)
			code, stdout, errs := runCmd(args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, errs)
			}
			lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "gtformer train: ") || !strings.Contains(last, tc.want) {
				t.Errorf("last stderr line %q does not name %q", last, tc.want)
			}
			if tc.code == 1 && len(lines) != 1 {
				t.Errorf("runtime error spans %d lines:\n%s", len(lines), errs)
			}
		})
	}
}

// withoutPhases returns metrics.json re-encoded without its "phases" (wall
// times), after checking it has them.
func withoutPhases(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	ph, ok := m["phases"].(map[string]any)
	if !ok || ph["final embedding"] == nil || ph["load"] == nil {
		t.Errorf("metrics.json phases %v lack the final embedding or load", m["phases"])
	}
	delete(m, "phases")
	delete(m, "phase_peak_rss_gb")
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// checkTopicsMetrics checks metrics.json's "topics" of a run on the built-in
// corpus (issue 15): the overall NPMI and diversity, the hierarchy's
// measures (level_share a list of fractions, root first, summing to 1;
// specialization, NPMI and diversity per level, one per level; pcc, pcd,
// sd, pncd) and the planted tree's recovery NMI, each a number in range.
func checkTopicsMetrics(t *testing.T, topics map[string]any, raw []byte) {
	t.Helper()
	depth, ok := topics["depth"].(float64)
	if !ok || depth < 2 {
		t.Fatalf("metrics.json topics.depth %v: %s", topics["depth"], raw)
	}
	fraction := func(k string, v any, lo float64) {
		if x, ok := v.(float64); !ok || x < lo || x > 1 {
			t.Errorf("metrics.json topics.%s = %v, want a number in [%g, 1]", k, v, lo)
		}
	}
	for _, k := range []string{"count", "npmi_reference"} {
		if _, ok := topics[k]; !ok {
			t.Errorf("metrics.json topics lacks %s", k)
		}
	}
	for _, k := range []string{"npmi", "pcc"} { // NPMI-based: in [−1, 1]
		fraction(k, topics[k], -1)
	}
	for _, k := range []string{"diversity", "pcd", "sd", "pncd", "recovery_nmi"} {
		fraction(k, topics[k], 0)
	}
	for _, k := range []string{"level_share", "specialization", "npmi_per_level", "diversity_per_level"} {
		list, ok := topics[k].([]any)
		if !ok || len(list) != int(depth) {
			t.Errorf("metrics.json topics.%s = %v, want a list of %v numbers (one per level, root first)", k, topics[k], depth)
			continue
		}
		lo := 0.0
		if k == "npmi_per_level" {
			lo = -1
		}
		for i, v := range list {
			fraction(fmt.Sprintf("%s[%d]", k, i), v, lo)
		}
	}
	if list, ok := topics["level_share"].([]any); ok {
		var sum float64
		for _, v := range list {
			x, _ := v.(float64)
			sum += x
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("metrics.json topics.level_share %v sums to %.9f, want 1", list, sum)
		}
	}
}
