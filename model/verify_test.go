package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadVerifiesFiles: config.json records the SHA-256 of the tree and
// the weights; one byte changed in either is refused by Load with the
// file's name, and a model saved before the hashes loads unchecked.
func TestLoadVerifiesFiles(t *testing.T) {
	dir, _ := savedTiny(t)
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var sc SavedConfig
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TreeFile, WeightsFile} {
		if len(sc.Files[name]) != 64 {
			t.Errorf("config.json's files[%s] = %q, want a hex SHA-256", name, sc.Files[name])
		}
	}
	if _, _, err := Load(dir); err != nil {
		t.Fatalf("unchanged model: %v", err)
	}
	for _, c := range []struct {
		name string
		at   func(n int) int // which byte to flip, of n
	}{
		{WeightsFile, func(n int) int { return n - 3 }}, // inside a tensor's data
		{TreeFile, func(n int) int { return n / 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			copyDir := t.TempDir()
			for _, f := range []string{ConfigFile, TreeFile, WeightsFile} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == c.name {
					b[c.at(len(b))] ^= 0x01
				}
				if err := os.WriteFile(filepath.Join(copyDir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := Load(copyDir)
			if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "changed since the model was saved") {
				t.Errorf("one byte flipped in %s: %v, want a refusal naming it", c.name, err)
			}
		})
	}
	t.Run("saved before hashes", func(t *testing.T) {
		old := strings.Replace(string(raw), `"files"`, `"files_ignored"`, 1)
		var m map[string]any
		if err := json.Unmarshal([]byte(old), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "files_ignored")
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load(dir); err != nil {
			t.Errorf("a model without hashes: %v", err)
		}
	})
}
