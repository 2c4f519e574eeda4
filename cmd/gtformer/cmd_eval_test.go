package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEval: eval of a saved model on its corpus writes eval.json with the
// test metrics and prints the table; usage mistakes exit 2.
func TestEval(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	out := filepath.Join(t.TempDir(), "new", "dir") // created by eval
	code, stdout, errs := runCmd("eval", "--model", dir, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "kNN Micro-F1") {
		t.Errorf("no metrics table in %q", stdout)
	}
	raw, err := os.ReadFile(filepath.Join(out, "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Test struct {
			KNN *float64 `json:"knn_micro_f1"`
			AUC *float64 `json:"link_auc"`
		} `json:"test"`
		Topics struct {
			Count int `json:"count"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.Test.KNN == nil || m.Test.AUC == nil || m.Topics.Count != 13 {
		t.Errorf("metrics.json lacks test metrics or topics: %s", raw)
	}
	// The built-in corpus: eval.json's topics carry the hierarchy's
	// measures and the planted tree's recovery, as training's metrics.json.
	var all struct {
		Topics map[string]any `json:"topics"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	checkTopicsMetrics(t, all.Topics, raw)
	if !strings.Contains(stdout, "planted tree recovery: NMI ") {
		t.Errorf("eval does not print the recovery:\n%s", stdout)
	}
	for _, args := range [][]string{{"eval"}, {"eval", "--model", dir, "extra"}, {"eval", "--model", dir, "--k", "0"}} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
