package model

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/edits"
)

func labelLog(pairs ...any) *edits.Log {
	var l *edits.Log
	for i := 0; i < len(pairs); i += 2 {
		l = l.With(edits.Edit{Op: edits.OpLabel, IDs: []int{pairs[i].(int)}, Label: pairs[i+1].(string)})
	}
	return l
}

// TestEditsSaveLoad: a model's edit log goes into edits.json, named with
// its SHA-256 in config.json, and comes back with the model; a model
// without edits has no log and writes no file.
func TestEditsSaveLoad(t *testing.T) {
	dir, m := savedTiny(t)
	if _, err := os.Stat(filepath.Join(dir, edits.File)); !os.IsNotExist(err) {
		t.Fatalf("a model without edits wrote %s (%v)", edits.File, err)
	}
	back, _, err := Load(dir)
	if err != nil || back.Edits != nil {
		t.Fatalf("Load of a model without edits: %v, edits %v", err, back.Edits)
	}
	m.Edits = labelLog(1, "one", 2, "two")
	if err := m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	back, _, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Edits.Labels(); got[1] != "one" || got[2] != "two" || len(got) != 2 {
		t.Errorf("labels after load: %v", got)
	}
}

// TestSaveEditsInPlace: SaveEdits rewrites the log of a saved model and
// config.json's hash of it; Load then sees the new labels. A log changed
// by hand afterwards is refused, naming the file.
func TestSaveEditsInPlace(t *testing.T) {
	dir, _ := savedTiny(t)
	if err := SaveEdits(dir, labelLog(3, "three")); err != nil {
		t.Fatal(err)
	}
	if err := SaveEdits(dir, labelLog(3, "three", 4, "four")); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Edits.Labels(); got[3] != "three" || got[4] != "four" {
		t.Errorf("labels after SaveEdits: %v", got)
	}
	path := filepath.Join(dir, edits.File)
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(raw), "four", "FOUR", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), edits.File) {
		t.Errorf("Load of a hand-changed log: %v, want an error naming %s", err, edits.File)
	}
	if err := SaveEdits(dir, labelLog(5, "five")); err == nil {
		t.Error("SaveEdits wrote over a model whose files changed")
	}
}

// TestStrayEditsFileIgnored: edits.json beside a model whose config.json
// does not name it is not the model's.
func TestStrayEditsFileIgnored(t *testing.T) {
	dir, _ := savedTiny(t)
	if err := edits.Write(dir, labelLog(1, "stray")); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil || back.Edits != nil {
		t.Errorf("Load with a stray %s: %v, edits %v", edits.File, err, back.Edits)
	}
}

// TestSaveEditsOldModel: a model saved before config.json recorded hashes
// takes a label in place; config.json then records every file's hash.
func TestSaveEditsOldModel(t *testing.T) {
	dir, _ := savedTiny(t)
	path := filepath.Join(dir, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "files")
	raw, _ = json.Marshal(cfg)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveEdits(dir, labelLog(1, "old")); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil || back.Edits.Labels()[1] != "old" {
		t.Fatalf("after SaveEdits: %v, %v", err, back.Edits.Labels())
	}
	raw, _ = os.ReadFile(path)
	for _, name := range []string{TreeFile, WeightsFile, edits.File} {
		if !strings.Contains(string(raw), `"`+name+`"`) {
			t.Errorf("config.json records no hash of %s:\n%s", name, raw)
		}
	}
}

// TestSaveEditsCutShort: an in-place save of the log cut short after any
// of its writes leaves a model that loads, with the old labels or the new
// ones, and a later save completes over it; a log changed by hand while
// config.json still accepts the old one is refused. Both from a model
// without a log (the old state: no edits.json) and from one with a log.
func TestSaveEditsCutShort(t *testing.T) {
	for _, tc := range []struct {
		name string
		old  *edits.Log
	}{{"no log before", nil}, {"a log before", labelLog(1, "one")}} {
		t.Run(tc.name, func(t *testing.T) {
			want := labelLog(1, "one", 2, "two")
			dir, _ := savedTiny(t)
			if tc.old != nil {
				if err := SaveEdits(dir, tc.old); err != nil {
					t.Fatal(err)
				}
			}
			s, err := PrepareEdits(dir, want)
			if err != nil {
				t.Fatal(err)
			}
			writes := s.Writes()
			if len(writes) != 3 || writes[1].Name != edits.File {
				t.Fatalf("writes %v, want config.json, edits.json, config.json", writes)
			}
			for k := 0; k <= len(writes); k++ {
				d, _ := savedTiny(t)
				if tc.old != nil {
					if err := SaveEdits(d, tc.old); err != nil {
						t.Fatal(err)
					}
				}
				for _, w := range writes[:k] {
					if err := os.WriteFile(filepath.Join(d, w.Name), w.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				back, _, err := Load(d)
				if err != nil {
					t.Fatalf("cut after %d writes: %v", k, err)
				}
				got, wantLabels := back.Edits.Labels(), tc.old.Labels()
				if k >= 2 {
					wantLabels = want.Labels()
				}
				if !maps.Equal(got, wantLabels) {
					t.Errorf("cut after %d writes: labels %v, want %v", k, got, wantLabels)
				}
				if err := SaveEdits(d, labelLog(3, "three")); err != nil {
					t.Fatalf("a save after one cut short after %d writes: %v", k, err)
				}
				raw, _ := os.ReadFile(filepath.Join(d, ConfigFile))
				if strings.Contains(string(raw), `"replacing"`) {
					t.Errorf("config.json still names a save under way:\n%s", raw)
				}
				if back, _, err := Load(d); err != nil || back.Edits.Labels()[3] != "three" {
					t.Errorf("after the later save: %v", err)
				}
			}
			// Cut after the first write, then the log edited by hand: refused.
			d, _ := savedTiny(t)
			if err := os.WriteFile(filepath.Join(d, ConfigFile), writes[0].Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := edits.Write(d, labelLog(9, "hand")); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Load(d); err == nil || !strings.Contains(err.Error(), edits.File) {
				t.Errorf("Load of a hand-written log during a cut save: %v, want an error naming %s", err, edits.File)
			}
		})
	}
}
