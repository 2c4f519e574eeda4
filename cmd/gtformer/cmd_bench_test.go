package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/tensor"
)

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{{"bench", "extra"}, {"bench", "--nope"}, {"bench", "--time", "-1s"}, {"bench", "--runs", "0"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
}

// TestBenchJSON runs each measurement once (a few seconds with the pure-Go
// BLAS); skipped with -short.
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the layer benchmark")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "--json", "--time", "0s", "--runs", "1"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		BLAS        string   `json:"blas"`
		SgemmGFLOPS *float64 `json:"sgemm_gflops"`
		StepGFLOPS  *float64 `json:"step_gflops"`
		Ratio       *float64 `json:"ratio"`
	}
	dec := json.NewDecoder(strings.NewReader(out.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.BLAS != tensor.BLASName() || r.SgemmGFLOPS == nil || *r.SgemmGFLOPS <= 0 || r.StepGFLOPS == nil || *r.StepGFLOPS <= 0 || r.Ratio == nil {
		t.Fatalf("bad result %q", out.String())
	}
	if d := *r.Ratio - *r.StepGFLOPS / *r.SgemmGFLOPS; d > 1e-9 || d < -1e-9 {
		t.Errorf("ratio %v is not step/sgemm", *r.Ratio)
	}
}
