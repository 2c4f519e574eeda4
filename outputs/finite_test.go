package outputs

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/evaluate"
)

func ptr(x float64) *float64 { return &x }

// TestEncodeFiniteMatchesEncodingJSON: with finite values the output is
// byte for byte json.MarshalIndent's, whichever path writes it (the
// fallback encoder is checked here on the same value by forcing it).
func TestEncodeFiniteMatchesEncodingJSON(t *testing.T) {
	met := Metrics{Dataset: "ml \"quoted\" <x>", Seed: 3, Supervised: true, TrainSeconds: 12.5, Epochs: 4,
		Test:   evaluate.Test{KNNMicroF1: ptr(81.25), LinkAUC: ptr(1e-7), LogPerplexity: ptr(6.5)},
		Valid:  &evaluate.Test{KNNMicroF1: ptr(80)},
		Topics: evaluate.Topics{Count: 13, Depth: 3, PerLevel: []int{1, 3, 9}, NPMI: 0.125, NPMIRef: "training documents", LevelShare: []float64{0.5, 0.25, 0.25}},
		Notes:  []string{"a note"}}
	want, err := json.MarshalIndent(met, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, undefined, err := encodeFinite(met)
	if err != nil || len(undefined) != 0 || string(got) != string(want) {
		t.Fatalf("encodeFinite: %v, %v\n%s\nwant\n%s", err, undefined, got, want)
	}
	e := &finiteEncoder{}
	if err := e.value("", reflectValue(met)); err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(met)
	if err != nil {
		t.Fatal(err)
	}
	if e.buf.String() != string(compact) {
		t.Errorf("fallback encoder writes\n%s\nencoding/json\n%s", e.buf.String(), compact)
	}
}

// TestWriteMetricsUndefined: metrics that are NaN or infinite (the
// degenerate corpus of issue 16 made NPMI NaN, and the write failed with
// "json: unsupported value: NaN", leaving a partial output folder) are
// written as null, each with a note naming it; the file is valid JSON.
func TestWriteMetricsUndefined(t *testing.T) {
	met := Metrics{Dataset: "one-word",
		Test:   evaluate.Test{KNNMicroF1: ptr(50), LinkAUC: ptr(math.NaN())},
		Topics: evaluate.Topics{Count: 13, NPMI: math.NaN(), Diversity: 1, LevelShare: []float64{1, math.Inf(1)}}}
	path := filepath.Join(t.TempDir(), "metrics.json")
	if err := WriteMetrics(path, met); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Test   map[string]*float64 `json:"test"`
		Topics map[string]any      `json:"topics"`
		Notes  []string            `json:"notes"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("metrics.json is not JSON: %v\n%s", err, raw)
	}
	if v, ok := back.Test["link_auc"]; !ok || v != nil || back.Test["knn_micro_f1"] == nil || *back.Test["knn_micro_f1"] != 50 {
		t.Errorf("test metrics %v, want link_auc null and kNN 50", back.Test)
	}
	if v, ok := back.Topics["npmi"]; !ok || v != nil {
		t.Errorf("npmi is %v, want null", v)
	}
	if ls := back.Topics["level_share"].([]any); len(ls) != 2 || ls[0] != 1.0 || ls[1] != nil {
		t.Errorf("level_share %v, want [1 null]", ls)
	}
	var named []string
	for _, n := range back.Notes {
		named = append(named, strings.Fields(n)[0])
		if !strings.Contains(n, "undefined for this corpus and model") {
			t.Errorf("note %q does not say the metric is undefined", n)
		}
	}
	if want := []string{"test.link_auc", "topics.npmi", "topics.level_share[1]"}; !slices.Equal(named, want) {
		t.Errorf("notes name %v, want %v", named, want)
	}
}

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }

// TestWriteJSONUndefined: any result (valid.json's, not only Metrics) with
// a NaN or infinity is written with null there, and UndefinedNotes names
// each by its JSON path; a finite result has no notes. encoding/json alone
// refuses such a value (the write used to fail).
func TestWriteJSONUndefined(t *testing.T) {
	type report struct {
		Topics evaluate.Topics `json:"topics"`
		Valid  *evaluate.Test  `json:"valid,omitempty"`
		Notes  []string        `json:"notes,omitempty"`
	}
	for _, tc := range []struct {
		name  string
		rep   report
		paths []string
	}{
		{"finite", report{Topics: evaluate.Topics{NPMI: 0.5}}, nil},
		{"NaN NPMI and infinite AUC", report{Topics: evaluate.Topics{NPMI: math.NaN()}, Valid: &evaluate.Test{LinkAUC: ptr(math.Inf(1))}},
			[]string{"topics.npmi", "valid.link_auc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := json.Marshal(tc.rep); (err != nil) != (tc.paths != nil) {
				t.Fatalf("encoding/json: %v", err)
			}
			notes, err := UndefinedNotes(tc.rep)
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != len(tc.paths) {
				t.Fatalf("notes %q, want one for each of %v", notes, tc.paths)
			}
			for i, p := range tc.paths {
				if !strings.HasPrefix(notes[i], p+" ") {
					t.Errorf("note %q does not name %s", notes[i], p)
				}
			}
			tc.rep.Notes = notes
			path := filepath.Join(t.TempDir(), "valid.json")
			if err := WriteJSON(path, tc.rep); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatalf("%s is not JSON: %v", raw, err)
			}
			if tc.paths != nil && back["topics"].(map[string]any)["npmi"] != nil {
				t.Errorf("npmi written as %v, want null", back["topics"].(map[string]any)["npmi"])
			}
		})
	}
}
