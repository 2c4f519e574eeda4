package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/npy"
)

// TestThreadsSameNumbers: a tiny training run, its evaluation and a
// baseline give the same numbers with one thread as with two (every
// parallel loop assigns each result to one index and sums in a fixed
// order), and --threads leaves GOMAXPROCS as it found it.
func TestThreadsSameNumbers(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	type run struct {
		emb      []float32
		test     any
		topics   any
		baseline string
	}
	runs := map[string]run{}
	for _, threads := range []string{"1", "2"} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, errs := runCmd(append([]string{"train", "--out", out, "--threads", threads}, tinyTrain...)...)
		if code != 0 {
			t.Fatalf("--threads %s: exit %d: %s", threads, code, errs)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Fatalf("--threads %s left GOMAXPROCS at %d, was %d", threads, got, before)
		}
		emb, _, err := npy.ReadAs[float32](filepath.Join(out, "doc_embeddings.npy"))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(out, "metrics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var met struct {
			Test   any `json:"test"`
			Topics any `json:"topics"`
		}
		if err := json.Unmarshal(raw, &met); err != nil {
			t.Fatal(err)
		}
		code, bl, errs := runCmd("baseline", "--method", "tfidf-sign,lda", "--lda-iter", "5", "--eval-queries", "40", "--threads", threads, "--json")
		if code != 0 {
			t.Fatalf("baseline --threads %s: exit %d: %s", threads, code, errs)
		}
		runs[threads] = run{emb, met.Test, met.Topics, withoutSeconds(t, bl)}
	}
	a, b := runs["1"], runs["2"]
	if !slices.Equal(a.emb, b.emb) {
		t.Error("doc_embeddings.npy differs between --threads 1 and 2")
	}
	if !reflect.DeepEqual(a.test, b.test) || !reflect.DeepEqual(a.topics, b.topics) {
		t.Errorf("metrics differ between --threads 1 and 2:\n%v\n%v\nvs\n%v\n%v", a.test, a.topics, b.test, b.topics)
	}
	if a.baseline != b.baseline {
		t.Errorf("baseline differs between --threads 1 and 2:\n%s\nvs\n%s", a.baseline, b.baseline)
	}
}

// withoutSeconds drops the timings from gtformer baseline --json.
func withoutSeconds(t *testing.T, out string) string {
	t.Helper()
	var rep baselineReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	rep.LoadSeconds = 0
	for i := range rep.Results {
		rep.Results[i].Seconds = 0
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestThreadsUsage(t *testing.T) {
	for _, cmd := range [][]string{
		{"train", "--out", "x"}, {"eval", "--model", "x"}, {"embed", "--model", "x", "--out", "y"},
		{"baseline", "--data", "x"}, {"serve", "--model", "x"},
	} {
		args := append(slices.Clone(cmd), "--threads", "-1")
		code, _, errs := runCmd(args...)
		if code != 2 || !strings.Contains(errs, "--threads -1") {
			t.Errorf("%v: exit %d, %q; want exit 2 naming --threads -1", args, code, errs)
		}
	}
}
