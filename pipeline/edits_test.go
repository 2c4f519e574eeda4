package pipeline

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
)

// TestSaveEditsInRunFolder: a label saved into a run's folder loads with
// the model and is recorded in the manifest, so that a later run into the
// folder replaces it (its new model has no edits) rather than refusing the
// folder; a log someone changed by hand is not replaced.
func TestSaveEditsInRunFolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(tinySpec(t, dir)); err != nil {
		t.Fatal(err)
	}
	l := (*edits.Log)(nil).With(edits.Edit{Op: edits.OpLabel, IDs: []int{1}, Label: "first"})
	if err := SaveEdits(dir, l); err != nil {
		t.Fatal(err)
	}
	m, _, err := model.Load(dir)
	if err != nil || m.Edits.Labels()[1] != "first" {
		t.Fatalf("after SaveEdits: %v, labels %v", err, m.Edits.Labels())
	}
	// The files a reader opens by hand show the new name too.
	raw, err := os.ReadFile(filepath.Join(dir, outputs.TopicsFile))
	if err != nil {
		t.Fatal(err)
	}
	var topics []outputs.Topic
	if err := json.Unmarshal(raw, &topics); err != nil {
		t.Fatal(err)
	}
	for _, tp := range topics {
		if tp.ID == 1 && (tp.Label != "first" || tp.LabelSource != outputs.LabelUser) {
			t.Errorf("topics.json: topic 1 labelled %q (%s), want \"first\" (user)", tp.Label, tp.LabelSource)
		}
	}
	if text, err := os.ReadFile(filepath.Join(dir, outputs.TopicsTextFile)); err != nil || !strings.Contains(string(text), `"first"`) {
		t.Errorf("topics.txt does not show the new label (%v):\n%s", err, text)
	}
	if _, err := Run(tinySpec(t, dir)); err != nil {
		t.Fatalf("a run into the edited folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, edits.File)); !os.IsNotExist(err) {
		t.Errorf("the new run left the earlier model's %s (%v)", edits.File, err)
	}
	if err := SaveEdits(dir, l); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, edits.File), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveEdits(dir, l.With(edits.Edit{Op: edits.OpLabel, IDs: []int{2}, Label: "x"})); err == nil || !strings.Contains(err.Error(), "not replacing it") {
		t.Errorf("SaveEdits over a hand-changed log: %v", err)
	}
}

// TestSaveEditsCutShort: a save into a run's folder cut short after any of
// its writes leaves a model that loads (with the old labels or the new
// ones), every file still gtformer's, so that the next save completes and
// a later run into the folder replaces them.
func TestSaveEditsCutShort(t *testing.T) {
	base := t.TempDir()
	if _, err := Run(tinySpec(t, base)); err != nil {
		t.Fatal(err)
	}
	old := (*edits.Log)(nil).With(edits.Edit{Op: edits.OpLabel, IDs: []int{1}, Label: "first"})
	if err := SaveEdits(base, old); err != nil {
		t.Fatal(err)
	}
	next := old.With(edits.Edit{Op: edits.OpLabel, IDs: []int{2}, Label: "second"})
	steps, err := saveEditsSteps(base, next)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 7 { // manifest, config, edits, config, topics.json, topics.txt, manifest
		t.Fatalf("%d steps, want 7", len(steps))
	}
	for k := 0; k <= len(steps); k++ {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		cut, err := saveEditsSteps(dir, next)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range cut[:k] {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		m, _, err := model.Load(dir)
		if err != nil {
			t.Fatalf("cut after %d writes: %v", k, err)
		}
		want := old.Labels()
		if k >= 3 { // the new edits.json is written
			want = next.Labels()
		}
		if got := m.Edits.Labels(); !maps.Equal(got, want) {
			t.Errorf("cut after %d writes: labels %v, want %v", k, got, want)
		}
		if err := checkOwned(dir); err != nil {
			t.Errorf("cut after %d writes: %v", k, err)
		}
		if err := SaveEdits(dir, next.With(edits.Edit{Op: edits.OpLabel, IDs: []int{3}, Label: "third"})); err != nil {
			t.Errorf("a save after one cut after %d writes: %v", k, err)
		}
		raw, _ := os.ReadFile(filepath.Join(dir, FilesManifest))
		if strings.Contains(string(raw), `"pending"`) {
			t.Errorf("cut after %d writes: the manifest still names a save under way:\n%s", k, raw)
		}
		if err := checkOwned(dir); err != nil {
			t.Errorf("after the completing save (cut after %d writes): %v", k, err)
		}
	}
}
