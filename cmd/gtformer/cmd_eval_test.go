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
	for _, args := range [][]string{{"eval"}, {"eval", "--model", dir, "extra"}, {"eval", "--model", dir, "--k", "0"}, {"eval", "--model", dir, "--eval-queries", "-1"}} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestEvalQueries: --eval-queries below the built-in corpus's 300 test
// documents samples that many, says so, and records the sample's size and
// the standard errors in eval.json; at or above it, or 0, every test
// document is scored, to the same numbers; a negative value is a usage
// mistake naming the flag.
func TestEvalQueries(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	type test struct {
		KNN     *float64 `json:"knn_micro_f1"`
		AUC     *float64 `json:"link_auc"`
		Queries int      `json:"eval_queries"`
		Sampled *bool    `json:"eval_sampled"`
		KNNSE   *float64 `json:"knn_micro_f1_se"`
		AUCSE   *float64 `json:"link_auc_se"`
	}
	eval := func(t *testing.T, queries string) (test, string) {
		t.Helper()
		out := t.TempDir()
		code, stdout, errs := runCmd("eval", "--model", dir, "--out", out, "--eval-queries", queries)
		if code != 0 {
			t.Fatalf("--eval-queries %s: exit %d: %s", queries, code, errs)
		}
		raw, err := os.ReadFile(filepath.Join(out, "eval.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Test test `json:"test"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m.Test, stdout
	}
	all, _ := eval(t, "0")
	tests := []struct {
		queries string
		want    int
		sampled bool
	}{
		{"0", 300, false},
		{"300", 300, false},
		{"10000", 300, false},
		{"40", 40, true},
	}
	for _, tc := range tests {
		t.Run(tc.queries, func(t *testing.T) {
			got, stdout := eval(t, tc.queries)
			said := strings.Contains(stdout, "sampled evaluation: kNN and link AUC over a uniform sample of "+tc.queries+" test documents")
			if got.Queries != tc.want || got.Sampled == nil || *got.Sampled != tc.sampled || said != tc.sampled {
				t.Errorf("eval_queries %d, eval_sampled %v, stdout says sampled: %v; want %d, %v", got.Queries, got.Sampled, said, tc.want, tc.sampled)
			}
			if tc.sampled {
				if got.KNN == nil || got.KNNSE == nil || got.AUC == nil || got.AUCSE == nil {
					t.Errorf("sampled eval.json lacks a metric or its standard error: %+v", got)
				}
				return
			}
			if *got.KNN != *all.KNN || *got.AUC != *all.AUC || got.KNNSE != nil || got.AUCSE != nil {
				t.Errorf("below the cap: kNN %v, AUC %v (SE %v, %v); every test document gives %v, %v", *got.KNN, *got.AUC, got.KNNSE, got.AUCSE, *all.KNN, *all.AUC)
			}
		})
	}
	code, _, errs := runCmd("eval", "--model", dir, "--eval-queries", "-5")
	if code != 2 || !strings.Contains(errs, "--eval-queries -5: give the number of test documents") || strings.Contains(errs, "panic") {
		t.Errorf("--eval-queries -5: exit %d, stderr %q; want exit 2 naming the flag", code, errs)
	}
}
