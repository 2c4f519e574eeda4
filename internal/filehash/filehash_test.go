package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256: the size and hash of a file, against crypto/sha256 over the
// same bytes; a missing file is an error naming it.
func TestSHA256(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "a", "gtformer\n"} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		n, sum, err := SHA256(path)
		want := sha256.Sum256([]byte(content))
		if err != nil || n != int64(len(content)) || sum != hex.EncodeToString(want[:]) {
			t.Errorf("%q: %d, %s, %v", content, n, sum, err)
		}
	}
	if _, _, err := SHA256(filepath.Join(dir, "missing")); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
