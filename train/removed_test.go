package train

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRemovedOptions: a trainer.json written by an earlier build that names
// an option this build no longer has resumes when the option was off and
// is refused, naming it, when it was on.
func TestRemovedOptions(t *testing.T) {
	for _, tc := range []struct {
		key     string
		val     any
		refused bool
	}{
		{"grow_place", false, false},
		{"grow_place", true, true},
		{"mix_lr_scale", 0, false},
		{"mix_lr_scale", 1, false},
		{"mix_lr_scale", 100, true},
		{"grow_by", "share", false},
		{"grow_by", "nll", true},
		{"final_prune_by", "words", false},
		{"final_prune_by", "path", true},
		{"fit_mix_weight", "", false},
		{"fit_mix_weight", "valid", true},
		{"grow_until", 0, false},
		{"grow_until", 4, true},
		{"final_merge_overlap", 0.6, true},
		{"norm_stick_at_end", true, true},
		{"grow_before_last", true, true},
		// Earlier builds recorded the command's flags: never refused.
		{"flags", map[string]string{"epochs": "6", "topic-head": "true"}, false},
	} {
		raw, err := json.Marshal(trainerJSON{Format: trainerFormat, Options: DefaultOptions(), State: State{LRScale: 1}})
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(raw, &top); err != nil {
			t.Fatal(err)
		}
		top["options"].(map[string]any)[tc.key] = tc.val
		if raw, err = json.Marshal(top); err != nil {
			t.Fatal(err)
		}
		tj, err := parseTrainerJSON("trainer.json", raw)
		switch {
		case !tc.refused && err != nil:
			t.Errorf("%s = %v (off): %v", tc.key, tc.val, err)
		case !tc.refused && tj.Options.Epochs != DefaultOptions().Epochs:
			t.Errorf("%s = %v (off): options read as %+v", tc.key, tc.val, tj.Options)
		case tc.refused && (err == nil || !strings.Contains(err.Error(), "trained with "+tc.key)):
			t.Errorf("%s = %v (on): error %v, want one naming it", tc.key, tc.val, err)
		}
	}
}
