package model

import (
	"encoding/json"
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
