package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/npy"
)

func TestDataSynthWritesLoadableFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "syn")
	code, out, errOut := runCmd("data", "synth", "--out", dir, "--docs", "400", "--vocab", "300", "--links", "700", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "400 documents, 700 links, 300 words") {
		t.Errorf("summary %q", out)
	}
	g, err := corpus.LoadFolder(dir, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumDocs() != 400 || len(g.Links) != 700 || len(g.Vocab) != 300 || !slices.Equal(g.LabelNames, []string{"science", "sports", "cooking"}) {
		t.Fatalf("loaded %d docs, %d links, %d words, labels %v", g.NumDocs(), len(g.Links), len(g.Vocab), g.LabelNames)
	}

	// data stats reads it too.
	code, out, errOut = runCmd("data", "stats", "--data", dir, "--json")
	if code != 0 {
		t.Fatalf("data stats exit %d: %s", code, errOut)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st["docs"] != 400.0 || st["links"] != 700.0 || st["labels"] != 3.0 {
		t.Errorf("stats %v", st)
	}

	// The truth files describe the same tree and documents.
	var tf truthFile
	b, err := os.ReadFile(filepath.Join(dir, truthJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tf); err != nil {
		t.Fatal(err)
	}
	if len(tf.Topics) != 13 || tf.Topics[4].Name != "science/astronomy" || tf.Config.Docs != 400 {
		t.Errorf("truth.json: %d topics, topic 4 %q, docs %d", len(tf.Topics), tf.Topics[4].Name, tf.Config.Docs)
	}
	leaf, shape, err := npy.ReadAs[int32](filepath.Join(dir, truthLeafNpy))
	if err != nil || !slices.Equal(shape, []int{400}) {
		t.Fatalf("%s: shape %v, err %v", truthLeafNpy, shape, err)
	}
	for i, l := range leaf {
		// Leaves are topics 4..12; label = (leaf-4)/3 for branching 3.
		if l < 4 || l > 12 || g.Labels[i] != (l-4)/3 {
			t.Fatalf("document %d: leaf %d, label %d", i, l, g.Labels[i])
		}
	}
	if _, shape, err := npy.ReadAs[float32](filepath.Join(dir, truthMixNpy)); err != nil || !slices.Equal(shape, []int{400, 3}) {
		t.Fatalf("%s: shape %v, err %v", truthMixNpy, shape, err)
	}
}

func TestDataSynthDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, run := range []struct {
		dir, seed string
	}{{a, "5"}, {b, "5"}, {c, "6"}} {
		if code, _, errOut := runCmd("data", "synth", "--out", run.dir, "--docs", "200", "--seed", run.seed, "--truth=false"); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	for _, name := range []string{"contents.txt", "links.txt", "voc.txt", "labels.txt", "label_names.txt"} {
		fa, _ := os.ReadFile(filepath.Join(a, name))
		fb, _ := os.ReadFile(filepath.Join(b, name))
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	fa, _ := os.ReadFile(filepath.Join(a, "contents.txt"))
	fc, _ := os.ReadFile(filepath.Join(c, "contents.txt"))
	if bytes.Equal(fa, fc) {
		t.Error("different seeds wrote the same contents.txt")
	}
	if _, err := os.Stat(filepath.Join(a, truthJSON)); !os.IsNotExist(err) {
		t.Error("--truth=false wrote truth.json")
	}
}

func TestDataSynthErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no out", []string{}, 2, "--out DIR is required"},
		{"extra argument", []string{"--out", t.TempDir(), "more"}, 2, `unexpected argument "more"`},
		{"bad depth", []string{"--out", t.TempDir(), "--depth", "1"}, 2, "depth must be between"},
		{"tiny vocab", []string{"--out", t.TempDir(), "--vocab", "10"}, 2, "vocabulary must be between"},
		{"too dense", []string{"--out", t.TempDir(), "--docs", "10", "--links", "100"}, 2, "too dense"},
		{"not a number", []string{"--out", t.TempDir(), "--docs", "many"}, 2, "invalid value"},
		{"out under a file", []string{"--out", filepath.Join(file, "sub")}, 1, "not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(append([]string{"data", "synth"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

// TestDataSynthNeverReplacesForeignFiles: data synth into a folder holding
// files it did not write is refused and leaves them as they were; into a
// folder it wrote, it writes again.
func TestDataSynthNeverReplacesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "contents.txt")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd("data", "synth", "--out", dir, "--docs", "50")
	if code != 1 || !strings.Contains(errOut, "did not write (contents.txt)") {
		t.Errorf("foreign folder: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("the user's file became %q", b)
	}
	ours := filepath.Join(t.TempDir(), "synth")
	for i := 0; i < 2; i++ {
		if code, _, errOut := runCmd("data", "synth", "--out", ours, "--docs", "50"); code != 0 {
			t.Fatalf("run %d into its own folder: exit %d, %q", i+1, code, errOut)
		}
	}
}
