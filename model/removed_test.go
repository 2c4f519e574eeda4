package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRemovedSettings: a config.json written by an earlier build that
// names a setting this build no longer has loads when the setting was off
// and is refused, naming it, when it was on.
func TestLoadRemovedSettings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []string // object holding the setting, from the top
		key     string
		val     any
		refused bool
	}{
		{"topic head off", []string{"model"}, "topic_head", false, false},
		{"topic head on", []string{"model"}, "topic_head", true, true},
		{"topic detach on", []string{"model"}, "topic_detach", true, true},
		{"level target empty", []string{"model"}, "level_target", []float64{}, false},
		{"level target set", []string{"model"}, "level_target", []float64{2, 1, 1}, true},
		{"normalised stick off", []string{"model", "tree"}, "norm_stick", false, false},
		{"normalised stick on", []string{"model", "tree"}, "norm_stick", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := savedTiny(t)
			path := filepath.Join(dir, ConfigFile)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]any
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			obj := top
			for _, k := range tc.in {
				obj = obj[k].(map[string]any)
			}
			obj[tc.key] = tc.val
			if raw, err = json.Marshal(top); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err = Load(dir)
			if !tc.refused {
				if err != nil {
					t.Fatalf("an old model with %s off: %v", tc.key, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "trained with "+tc.key) {
				t.Fatalf("an old model with %s on: error %v, want one naming it", tc.key, err)
			}
		})
	}
}
