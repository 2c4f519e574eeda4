package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpusstates"
)

// TestEmbedExportStates: embed --export-states writes one record per
// corpus document that reads back against the meta, and refuses the
// embedding outputs beside it.
func TestEmbedExportStates(t *testing.T) {
	dir, g := untrainedModelDir(t)
	out := filepath.Join(t.TempDir(), "states")
	code, stdout, errs := runCmd("embed", "--model", dir, "--export-states", out)
	if code != 0 || !strings.Contains(stdout, "wrote the neighbour states of") {
		t.Fatalf("exit %d: %s %s", code, stdout, errs)
	}
	f, err := os.Open(filepath.Join(out, corpusstates.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	meta, err := corpusstates.ReadMeta(f, corpusstates.MetaFile)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Docs != g.NumDocs() || len(meta.Vocab) != len(g.Vocab) {
		t.Errorf("meta: %d documents, %d words; corpus %d, %d", meta.Docs, len(meta.Vocab), g.NumDocs(), len(g.Vocab))
	}
	rf, err := os.Open(filepath.Join(out, corpusstates.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	sc := bufio.NewScanner(rf)
	n := 0
	for sc.Scan() {
		if _, err := corpusstates.ParseRecord(sc.Bytes(), meta); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
	}
	if n != g.NumDocs() {
		t.Errorf("%d records, want %d", n, g.NumDocs())
	}
	if code, _, errs := runCmd("embed", "--model", dir, "--export-states", out, "--out", "x.npy"); code != 2 || !strings.Contains(errs, "do not apply") {
		t.Errorf("--export-states with --out: exit %d, %q", code, errs)
	}
}
