package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{{"bench", "extra"}, {"bench", "--nope"}, {"bench", "--time", "-1s"}, {"bench", "--runs", "0"}, {"bench", "--paths", "fastest"}, {"bench", "--paths", ","}, {"bench", "--docs", "10"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
}

// TestBenchJSON runs each measurement once, on one core, on the path in use
// and the first pure-Go path (a few seconds; all paths would add gonum's
// slow ones), the model's on a corpus of 64 documents; skipped with -short.
// The output has exactly the documented keys.
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the layer benchmark")
	}
	var out, errb bytes.Buffer
	goPath := ""
	for _, p := range tensor.BLASPaths() {
		if strings.HasPrefix(p, "go") && goPath == "" {
			goPath = p
		}
	}
	want := []string{tensor.BLASName()}
	if goPath != want[0] {
		want = append(want, goPath)
	}
	if code := run([]string{"bench", "--json", "--time", "0s", "--runs", "1", "--paths", goPath, "--one-core", "--docs", "64"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	type path struct {
		BLAS        string   `json:"blas"`
		SgemmGFLOPS *float64 `json:"sgemm_gflops"`
		StepGFLOPS  *float64 `json:"step_gflops"`
		SgemmRatio  *float64 `json:"sgemm_ratio"`
		StepRatio   *float64 `json:"step_ratio"`
	}
	var r struct {
		BLAS        string   `json:"blas"`
		BLASSource  string   `json:"blas_source"`
		SgemmGFLOPS *float64 `json:"sgemm_gflops"`
		StepGFLOPS  *float64 `json:"step_gflops"`
		Ratio       *float64 `json:"ratio"`
		OneCore     bool     `json:"one_core"`
		Paths       []path   `json:"paths"`

		ModelStepDocs  *float64 `json:"model_step_docs_per_s"`
		ModelStepGFLOP *float64 `json:"model_step_gflops"`
		ModelStepRatio *float64 `json:"model_step_ratio"`
		EmbedDocs      *float64 `json:"embed_docs_per_s"`
	}
	dec := json.NewDecoder(strings.NewReader(out.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.BLAS != tensor.BLASName() || r.BLASSource != tensor.BLASSource() || !r.OneCore || r.SgemmGFLOPS == nil || *r.SgemmGFLOPS <= 0 || r.StepGFLOPS == nil || *r.StepGFLOPS <= 0 || r.Ratio == nil {
		t.Fatalf("bad result %q", out.String())
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if !near(*r.Ratio, *r.StepGFLOPS / *r.SgemmGFLOPS) {
		t.Errorf("ratio %v is not step/sgemm", *r.Ratio)
	}
	var names []string
	for _, p := range r.Paths {
		names = append(names, p.BLAS)
		if p.SgemmGFLOPS == nil || !(*p.SgemmGFLOPS > 0) || p.StepGFLOPS == nil || !(*p.StepGFLOPS > 0) || p.SgemmRatio == nil || p.StepRatio == nil {
			t.Fatalf("path %s: bad result %q", p.BLAS, out.String())
		}
		if !near(*p.SgemmRatio, *p.SgemmGFLOPS / *r.SgemmGFLOPS) || !near(*p.StepRatio, *p.StepGFLOPS / *r.StepGFLOPS) {
			t.Errorf("path %s: ratios %v, %v are not to the path in use", p.BLAS, *p.SgemmRatio, *p.StepRatio)
		}
		if p.BLAS == r.BLAS && (*p.SgemmGFLOPS != *r.SgemmGFLOPS || *p.StepGFLOPS != *r.StepGFLOPS) {
			t.Errorf("path in use %s: figures differ from the top level", p.BLAS)
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("paths %v, want %v (the path in use first, then those asked for)", names, want)
	}
	if tensor.BLASName() != r.BLAS {
		t.Errorf("bench left %s in use, was %s", tensor.BLASName(), r.BLAS)
	}
	for name, v := range map[string]*float64{"model_step_docs_per_s": r.ModelStepDocs, "model_step_gflops": r.ModelStepGFLOP, "embed_docs_per_s": r.EmbedDocs} {
		if v == nil || !(*v > 0) {
			t.Errorf("%s missing or not positive in %q", name, out.String())
		}
	}
	if r.ModelStepRatio == nil || r.ModelStepGFLOP == nil {
		t.Fatalf("model_step_ratio missing in %q", out.String())
	}
	if !near(*r.ModelStepRatio, *r.ModelStepGFLOP / *r.SgemmGFLOPS) {
		t.Errorf("model_step_ratio %v is not model_step_gflops/sgemm", *r.ModelStepRatio)
	}
}

// TestBLASSettingErrors runs the command in a child process with a bad
// GTFORMER_BLAS or GTFORMER_BLAS_LIB (the choice is made once per process):
// exit 2 and a message naming the setting, before any work.
func TestBLASSettingErrors(t *testing.T) {
	if os.Getenv("GTFORMER_TEST_CHILD") == "1" {
		os.Exit(run([]string{"data", "stats"}, os.Stdout, os.Stderr))
	}
	for _, tc := range []struct{ env, want string }{
		{"GTFORMER_BLAS=fastest", `GTFORMER_BLAS="fastest": want auto, go or one of`},
		{"GTFORMER_BLAS_LIB=/nonexistent/libnothing.so", "tensor: GTFORMER_BLAS_LIB: blaslib: loading /nonexistent/libnothing.so"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBLASSettingErrors$")
		cmd.Env = append(os.Environ(), "GTFORMER_TEST_CHILD=1", "GTFORMER_BLAS=", "GTFORMER_BLAS_LIB=", tc.env)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s: %v, want exit status 2; output:\n%s", tc.env, err, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: output %q does not say %q", tc.env, out, tc.want)
		}
	}
}
