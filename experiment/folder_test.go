package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOut: an experiment writes into a new or empty folder or one an
// experiment wrote; a folder of the user's files is refused and left alone.
func TestCheckOut(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   []string
		refused bool
	}{
		{"absent", nil, false},
		{"empty", []string{}, false},
		{"an experiment's, with its runs", []string{"runs/ml/baselines.json", "results.md"}, false},
		{"an experiment's, results only", []string{"results.json", "results.md"}, false},
		{"the user's results.md", []string{"results.md", "notes.txt"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if c.files != nil {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range c.files {
				p := filepath.Join(out, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := checkOut(out)
			if refused := err != nil; refused != c.refused {
				t.Fatalf("error %v, want refused %v", err, c.refused)
			}
			if c.refused && !strings.Contains(err.Error(), "results.md") {
				t.Errorf("error %q does not name the files", err)
			}
		})
	}
}
