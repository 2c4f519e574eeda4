package train

import (
	"encoding/json"
	"testing"
)

// TestSimilarityFitNone: "none", as earlier builds wrote it and the command
// spells it, reads as the zero value (no fit), from a flag and from JSON;
// the fits read as themselves and anything else is refused.
func TestSimilarityFitNone(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want SimilarityFit
		ok   bool
	}{
		{"none", "", true},
		{"", "", true},
		{"shared", SimilarityFitShared, true},
		{"levels", SimilarityFitLevels, true},
		{"all", "", false},
	} {
		var f SimilarityFit
		if err := f.Set(tc.in); (err == nil) != tc.ok || f != tc.want {
			t.Errorf("Set(%q): %q, %v", tc.in, f, err)
		}
		var o struct {
			F SimilarityFit `json:"f"`
		}
		if err := json.Unmarshal([]byte(`{"f":"`+tc.in+`"}`), &o); (err == nil) != tc.ok || o.F != tc.want {
			t.Errorf("JSON %q: %q, %v", tc.in, o.F, err)
		}
	}
	if s := SimilarityFit("").String(); s != "none" {
		t.Errorf("the zero value prints as %q, want none", s)
	}
}
