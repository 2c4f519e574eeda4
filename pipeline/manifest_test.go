package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunReplacesOnlyItsOwnFiles: in a folder a run wrote, a later run
// refuses (before training) a file of an output's name that no run wrote
// or that was edited since, and leaves it as it was; a file a gtformer
// command recorded (eval's eval.json) is replaced or removed as before.
func TestRunReplacesOnlyItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(tinySpec(t, dir)); err != nil {
		t.Fatal(err)
	}
	eval := filepath.Join(dir, "eval.json")
	topics := filepath.Join(dir, "topics.txt")
	orig, err := os.ReadFile(topics)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		path  string
		write string
	}{
		{"a file the user put there", eval, "the user's\n"},
		{"an output the user edited", topics, "edited\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(c.path, []byte(c.write), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(tinySpec(t, dir))
			var bad *SettingsError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), "not written by gtformer, or changed since") {
				t.Fatalf("error %v: want a refusal naming %s", err, c.path)
			}
			if b, _ := os.ReadFile(c.path); string(b) != c.write {
				t.Errorf("%s became %q", c.path, b)
			}
			if err := Replaceable(dir, filepath.Base(c.path)); err == nil {
				t.Errorf("Replaceable(%s) = nil", c.path)
			}
		})
	}
	// Put things back the way gtformer left them: topics.txt as written,
	// eval.json as `gtformer eval` writes and records it.
	if err := os.WriteFile(topics, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Record(dir, "eval.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(tinySpec(t, dir)); err != nil {
		t.Fatalf("a folder as gtformer left it: %v", err)
	}
	if _, err := os.Stat(eval); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier model's eval.json was kept: %v", err)
	}
}

// FuzzReadManifest: a manifest of any content is read (the files' hashes
// and those a save under way may leave) or refused with an error naming
// it; never a panic.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"format": "gtformer-files/1", "files": {"config.json": "ab"}}`))
	f.Add([]byte(`{"format": "gtformer-files/1", "files": {}, "pending": {"edits.json": ["ab", "cd"]}}`))
	f.Add([]byte(`{"format": "gtformer-files/1", "pending": {"edits.json": null}}`))
	f.Add([]byte(`{"format": "gtformer-files/2"}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, FilesManifest), b, 0o644); err != nil {
			t.Fatal(err)
		}
		man, err := readManifest(dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pipeline: ") || !strings.Contains(err.Error(), FilesManifest) {
				t.Fatalf("error does not name the manifest: %v", err)
			}
			return
		}
		if man == nil || man.Files == nil {
			t.Fatalf("a manifest read as %+v", man)
		}
		if _, err := ours(dir, "edits.json", man); err != nil {
			t.Fatal(err)
		}
	})
}
