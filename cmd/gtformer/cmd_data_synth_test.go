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
		{"bad labels", []string{"--out", t.TempDir(), "--labels", "branch"}, 2, `--labels "branch": want field or leaf`},
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

// TestDataSynthLeafLabels: --labels leaf labels each document by its planted
// leaf (truth_doc_leaf.npy's topic id less the first leaf's), names the
// labels after the leaves, and leaves the text and links as --labels field
// writes them.
func TestDataSynthLeafLabels(t *testing.T) {
	field, leafDir := filepath.Join(t.TempDir(), "f"), filepath.Join(t.TempDir(), "l")
	for _, c := range []struct{ dir, kind string }{{field, "field"}, {leafDir, "leaf"}} {
		if code, _, errOut := runCmd("data", "synth", "--out", c.dir, "--docs", "300", "--links", "500", "--labels", c.kind); code != 0 {
			t.Fatalf("--labels %s: exit %d: %s", c.kind, code, errOut)
		}
	}
	gf, err := corpus.LoadFolder(field, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gl, err := corpus.LoadFolder(leafDir, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gf.Tokens, gl.Tokens) || !slices.Equal(gf.Links, gl.Links) {
		t.Fatal("--labels changed the documents or the links")
	}
	if len(gl.LabelNames) != 9 || gl.LabelNames[0] != "science/astronomy" {
		t.Fatalf("leaf label names %v", gl.LabelNames)
	}
	leaf, _, err := npy.ReadAs[int32](filepath.Join(leafDir, truthLeafNpy))
	if err != nil {
		t.Fatal(err)
	}
	for i := range leaf {
		// Leaves are topics 4..12 of the default tree (root, 3 fields, 9
		// leaves); fields 1..3.
		if gl.Labels[i] != leaf[i]-4 || gf.Labels[i] != (leaf[i]-4)/3 {
			t.Fatalf("document %d: leaf %d, leaf label %d, field label %d", i, leaf[i], gl.Labels[i], gf.Labels[i])
		}
	}
}

// TestPlantedFromFolder: a dataset folder's truth_doc_leaf.npy is the
// planted tree train and eval score recovery against; a folder without one
// has none; a file that does not fit the corpus is an error naming it.
func TestPlantedFromFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "syn")
	if code, _, errOut := runCmd("data", "synth", "--out", dir, "--docs", "300", "--links", "500"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, _, err := npy.ReadAs[int32](filepath.Join(dir, truthLeafNpy))
	if err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	write := func(name string, shape []int, data []int32) string {
		d := t.TempDir()
		if err := npy.Write(filepath.Join(d, truthLeafNpy), shape, data); err != nil {
			t.Fatal(err)
		}
		return d
	}
	garbled := t.TempDir()
	os.WriteFile(filepath.Join(garbled, truthLeafNpy), []byte("not an array"), 0o644)
	floats := t.TempDir()
	if err := npy.Write(filepath.Join(floats, truthLeafNpy), []int{300}, make([]float32, 300)); err != nil {
		t.Fatal(err)
	}
	neg := slices.Clone(want)
	neg[7] = -1
	tests := []struct {
		name string
		path string
		n    int
		want []int32
		err  string
	}{
		{"built-in", "", 1500, nil, ""},
		{"synth folder", dir, 300, want, ""},
		{"no truth file", bare, 300, nil, ""},
		{"fewer documents", dir, 299, nil, "holds 300 leaves for 299 documents"},
		{"two dimensions", write("2d", []int{150, 2}, want), 300, nil, "has shape [150 2]"},
		{"negative leaf", write("neg", []int{300}, neg), 300, nil, "document 7 (line 8 of contents.txt) has leaf -1"},
		{"not an array", garbled, 300, nil, truthLeafNpy},
		{"floats", floats, 300, nil, "want <i4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := dataFlags{path: tc.path}
			got, err := d.planted(tc.n)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.path == "" {
				if len(got) != 1500 {
					t.Fatalf("built-in: %d leaves", len(got))
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %d leaves, want %d", len(got), len(tc.want))
			}
		})
	}
}

// TestRecoveryOnSynthFolder: train and eval on a folder data synth wrote
// report the planted tree's recovery NMI, as they do for the built-in
// corpus, and valid-only runs write it to valid.json.
func TestRecoveryOnSynthFolder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "syn")
	if code, _, errOut := runCmd("data", "synth", "--out", data, "--docs", "600", "--links", "1200", "--labels", "leaf"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCmd(append([]string{"train", "--data", data, "--out", dir}, smallTrain...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nplanted tree recovery: NMI ") {
		t.Fatalf("train printed no recovery line:\n%s", out)
	}
	recovery := func(file string) float64 {
		t.Helper()
		var m struct {
			Topics struct {
				Recovery *float64 `json:"recovery_nmi"`
			} `json:"topics"`
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Topics.Recovery == nil {
			t.Fatalf("%s: no topics.recovery_nmi (err %v)", file, err)
		}
		return *m.Topics.Recovery
	}
	r := recovery(filepath.Join(dir, "metrics.json"))
	evalOut := filepath.Join(t.TempDir(), "eval")
	if code, _, errOut := runCmd("eval", "--model", dir, "--data", data, "--out", evalOut); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	if e := recovery(filepath.Join(evalOut, "eval.json")); e != r {
		t.Errorf("eval's recovery %v, train's %v", e, r)
	}
	vdir := filepath.Join(t.TempDir(), "valid")
	if code, _, errOut := runCmd(append([]string{"train", "--data", data, "--out", vdir, "--valid-only"}, smallTrain...)...); code != 0 {
		t.Fatalf("train --valid-only: exit %d: %s", code, errOut)
	}
	recovery(filepath.Join(vdir, "valid.json"))
}
