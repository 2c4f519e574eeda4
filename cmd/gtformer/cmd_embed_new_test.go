package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/npy"
)

// TestEmbedNewDocuments: embed --new reads JSON Lines of new documents with
// links to the built-in corpus's documents (by line number) and to each
// other, and writes one row per new document; a link to nothing is an error
// naming the file and line.
func TestEmbedNewDocuments(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "new.jsonl")
	body := `{"id": "x", "text": "the striker scored a goal", "links": ["3", "17"]}
{"id": "y", "text": "bake the bread", "links": ["x"]}
{"id": "z", "text": "a distant galaxy"}
`
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "new.npy")
	if code, _, errs := runCmd("embed", "--model", dir, "--new", in, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	pts, shape, err := npy.ReadAs[float32](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(shape) != 2 || shape[0] != 3 || shape[1] != 9 || len(pts) != 27 {
		t.Fatalf("shape %v, want (3, 9)", shape)
	}
	if err := os.WriteFile(in, []byte(`{"id": "x", "text": "goal", "links": ["nope"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("embed", "--model", dir, "--new", in, "--out", out)
	if code != 1 || !strings.Contains(errs, "new.jsonl:1:") || !strings.Contains(errs, `"nope"`) {
		t.Errorf("bad link: exit %d, %q", code, errs)
	}
}
