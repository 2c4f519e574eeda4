package model

import (
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
