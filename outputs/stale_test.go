package outputs_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/outputs"
)

// TestRemoveStale: of the files a run may write, those the run did not
// write this time (an earlier run's map, an evaluation of the earlier
// model) are removed; what it wrote, files that are not a run's, and
// anything that is not a regular file are left alone.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"metrics.json", "map.png", "map.svg", "eval.json", "notes.txt", "curves.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "curves.svg"), 0o755); err != nil { // not a regular file
		t.Fatal(err)
	}
	removed, err := outputs.RemoveStale(dir, []string{"metrics.json", "curves.png"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"map.png", "map.svg", "eval.json"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	var left []string
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		left = append(left, e.Name())
	}
	if want := []string{"curves.png", "curves.svg", "metrics.json", "notes.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	for _, name := range outputs.WriteFiles {
		if !slices.Contains(outputs.RunFiles, name) {
			t.Errorf("Write writes %s, which RunFiles does not list", name)
		}
	}
}
