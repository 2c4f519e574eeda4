package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/internal/shared"
)

// runCmd runs the command line and returns its exit code and outputs.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDataStatsSharedDatasets(t *testing.T) {
	for _, tc := range []struct {
		name string
		want map[string]int
	}{
		{"ml", map[string]int{"docs": 3087, "links": 8573, "vocab": 2885, "tokens": 196109, "labels": 7,
			"train_docs": 2469, "valid_docs": 246, "test_docs": 618, "train_links": 5219, "test_links": 430, "isolated_docs": 0}},
		{"pl", map[string]int{"docs": 2597, "links": 7754, "vocab": 2814, "tokens": 163924, "labels": 9,
			"train_docs": 2077, "valid_docs": 207, "test_docs": 520, "train_links": 4984, "test_links": 298, "isolated_docs": 0}},
		{"covid", map[string]int{"docs": 1500, "links": 5706, "vocab": 5083, "tokens": 282896, "labels": 5,
			"train_docs": 1200, "valid_docs": 120, "test_docs": 300, "train_links": 3596, "test_links": 232, "isolated_docs": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := shared.Dataset(t, tc.name)
			code, out, errs := runCmd("data", "stats", "--data", dir, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			for key, want := range tc.want {
				v, ok := got[key].(float64)
				if !ok || int(v) != want {
					t.Errorf("%s = %v, want %d", key, got[key], want)
				}
			}
			if got["links_induced"] != false {
				t.Errorf("links_induced = %v, want false", got["links_induced"])
			}
		})
	}
}

// copyDataset copies a shared dataset into a temporary folder so that a
// test can damage one file.
func copyDataset(t *testing.T, name string) string {
	t.Helper()
	src := shared.Dataset(t, name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// editLine replaces line n (1-based) of a file through edit.
func editLine(t *testing.T, path string, n int, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[n-1] = edit(lines[n-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDataCorruptCopies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		line    int
		edit    func(string) string
		wantMsg []string // substrings of stderr
	}{
		{"word id out of range", "contents.txt", 7, func(s string) string { return s + " 2885" },
			[]string{"contents.txt:7:", "word id 2885 outside the vocabulary"}},
		{"word id not an integer", "contents.txt", 12, func(s string) string { return "3 x7 9" },
			[]string{"contents.txt:12:", `"x7" is not an integer`}},
		{"link to missing document", "links.txt", 100, func(s string) string { return "5 3087" },
			[]string{"links.txt:100:", "document 3087, which does not exist"}},
		{"link with one end", "links.txt", 3, func(s string) string { return "17" },
			[]string{"links.txt:3:", "a link needs two"}},
		{"short embedding row", "word_embeddings_glove_300d.txt", 5, func(s string) string {
			return s[:strings.LastIndexByte(strings.TrimRight(s, " "), ' ')]
		}, []string{"word_embeddings_glove_300d.txt:5:", "row has 299 values, want 300"}},
		{"label without a name", "labels.txt", 40, func(string) string { return "7" },
			[]string{"labels.txt:40:", "label 7 has no name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDataset(t, "ml")
			editLine(t, filepath.Join(dir, tc.file), tc.line, tc.edit)
			for _, sub := range []string{"stats", "validate"} {
				code, out, errs := runCmd("data", sub, "--data", dir)
				if code != 1 {
					t.Errorf("data %s: exit %d, want 1 (stdout %q, stderr %q)", sub, code, out, errs)
				}
				for _, m := range tc.wantMsg {
					if !strings.Contains(errs, m) {
						t.Errorf("data %s: stderr %q does not contain %q", sub, errs, m)
					}
				}
				if strings.Count(strings.TrimSpace(errs), "\n") != 0 || strings.Contains(errs, "goroutine") {
					t.Errorf("data %s: want one line of error, got %q", sub, errs)
				}
			}
		})
	}
}

func TestDataMissingFileAndLabelCount(t *testing.T) {
	dir := copyDataset(t, "ml")
	if err := os.Remove(filepath.Join(dir, "voc.txt")); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("data", "validate", "--data", dir)
	if code != 1 || !strings.Contains(errs, "voc.txt: missing required file") {
		t.Errorf("missing voc.txt: exit %d, stderr %q", code, errs)
	}

	dir = copyDataset(t, "ml")
	b, _ := os.ReadFile(filepath.Join(dir, "labels.txt"))
	if err := os.WriteFile(filepath.Join(dir, "labels.txt"), b[:len(b)-2], 0o644); err != nil { // drop the last label
		t.Fatal(err)
	}
	code, _, errs = runCmd("data", "validate", "--data", dir)
	if code != 1 || !strings.Contains(errs, "labels.txt: 3086 labels for 3087 documents") {
		t.Errorf("short labels.txt: exit %d, stderr %q", code, errs)
	}
}

func TestDataValidateOK(t *testing.T) {
	dir := shared.Dataset(t, "ml")
	code, out, errs := runCmd("data", "validate", "--data", dir)
	if code != 0 || !strings.HasPrefix(out, "OK ") || !strings.Contains(out, "3087 documents, 8573 links") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestDataJSONL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.jsonl")
	text := `{"id": "a", "text": "Graphs of topics: trees and graphs.", "links": ["b"], "label": "x"}
{"id": "b", "text": "Topic trees grow deep; graphs grow wide.", "label": "y"}
{"id": "c", "text": "Hyperbolic trees embed graphs.", "links": ["a", "b"], "label": "x"}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("data", "stats", "--data", path, "--json", "--min-df", "1", "--max-df", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]float64{"docs": 3, "links": 3, "labels": 2} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": 1, "text": "a b"}`+"\n"+`{"id": 1, "text": "c d"}`+"\n"), 0o644)
	code, _, errs = runCmd("data", "validate", "--data", bad)
	if code != 1 || !strings.Contains(errs, "bad.jsonl:2: duplicate id \"1\" (first on line 1)") {
		t.Errorf("duplicate id: exit %d, stderr %q", code, errs)
	}
}

func TestDataKNNLinksFlag(t *testing.T) {
	src := shared.Dataset(t, "covid")
	dir := filepath.Join(t.TempDir(), "covid-nolinks")
	os.MkdirAll(dir, 0o755)
	for _, f := range []string{"contents.txt", "voc.txt", "labels.txt", "label_names.txt"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	code, _, errs := runCmd("data", "stats", "--data", dir)
	if code != 1 || !strings.Contains(errs, "links.txt: missing required file") || !strings.Contains(errs, "--knn-links") {
		t.Errorf("without --knn-links: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCmd("data", "stats", "--data", dir, "--knn-links", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	json.Unmarshal([]byte(out), &got)
	if got["links_induced"] != true {
		t.Errorf("links_induced = %v, want true", got["links_induced"])
	}
	// κ = 5 directed choices per document, symmetrised: between 5N/2 and 5N.
	if l := got["links"].(float64); l < 1500*5/2 || l > 1500*5 {
		t.Errorf("links = %v, want between %d and %d", l, 1500*5/2, 1500*5)
	}
	if got["isolated_docs"] != 0.0 {
		t.Errorf("isolated_docs = %v, want 0", got["isolated_docs"])
	}
	if kn, _ := got["knn"].(map[string]any); kn["exact"] != true || kn["k"] != 5.0 {
		t.Errorf("knn = %v, want exact with k 5", got["knn"])
	}
	code, out, errs = runCmd("data", "stats", "--data", dir, "--knn-links", "--knn-budget", "1000")
	if code != 0 || !strings.Contains(out, "approximate: an exact graph needs --knn-budget 23959927, given 1000") {
		t.Errorf("small budget: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestDataUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		in   string // substring of stdout+stderr
	}{
		{[]string{"data", "stats", "-h"}, 0, "usage: gtformer data stats"},
		{[]string{"data", "validate", "--help"}, 0, "usage: gtformer data validate"},
		{[]string{"data", "stats", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"data", "stats", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"data", "stats", "--split", "sideways", "--data", "x"}, 2, "--split must be paper or random"},
		{[]string{"data", "stats", "--max-df", "2", "--data", "x"}, 2, "--max-df"},
		{[]string{"data", "validate", "--data", "/nonexistent/corpus"}, 1, "no such file or folder"},
		{[]string{"data"}, 2, "expected a subcommand"},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.in) {
			t.Errorf("%v: exit %d (want %d), output %q (want %q)", tc.args, code, tc.code, out+errs, tc.in)
		}
	}
}

func TestDataBuiltinCorpusAndRandomSplit(t *testing.T) {
	want := synth.Default()
	code, out, errs := runCmd("data", "stats", "--json", "--split", "random", "--split-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got["docs"] != float64(want.Docs) || got["vocab"] != float64(want.Vocab) || got["links"] != float64(want.Links) {
		t.Errorf("built-in corpus: docs %v vocab %v links %v, want %d %d %d", got["docs"], got["vocab"], got["links"], want.Docs, want.Vocab, want.Links)
	}
	if got["split"] != "random" || got["train_docs"] != float64(want.Docs*8/10) {
		t.Errorf("split %v train_docs %v", got["split"], got["train_docs"])
	}
	code, out, errs = runCmd("data", "validate")
	if code != 0 || !strings.HasPrefix(out, "OK built-in synthetic corpus") {
		t.Errorf("validate built-in: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
