package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/model"
)

// writeNewDocs writes k new documents for the corpus of trainedJSONL
// (ids d0..d299, labelled): ids NAME0.., each linked to two corpus
// documents and to the previous new one.
func writeNewDocs(t *testing.T, path, name string, k int) {
	t.Helper()
	var b strings.Builder
	for i := range k {
		links := []string{fmt.Sprintf("d%d", 7*i%300), fmt.Sprintf("d%d", (7*i+13)%300)}
		if i > 0 {
			links = append(links, fmt.Sprintf("%s%d", name, i-1))
		}
		doc := map[string]any{"id": fmt.Sprintf("%s%d", name, i), "text": "telescope galaxy star orbit planet football goal",
			"links": links, "label": "science"}
		raw, _ := json.Marshal(doc)
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readUpdateReport reads dir's update.json.
func readUpdateReport(t *testing.T, dir string) updateReport {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, updateFile))
	if err != nil {
		t.Fatal(err)
	}
	var r updateReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestUpdateChain labels a topic, updates the model twice in a row (the
// second from the first's folder, its corpus found there), and checks
// that the input folders are unchanged, the new folders load with the
// union corpus, carry the log (label, updates, parents) and the report,
// and that eval and embed take them.
func TestUpdateChain(t *testing.T) {
	data, src := trainedJSONL(t)
	tmp := t.TempDir()
	topics := readTopicsJSON(t, src)
	var leaf int
	for id, tp := range topics {
		if len(tp.Children) == 0 {
			leaf = id
		}
	}
	labelled := filepath.Join(tmp, "labelled")
	if code, _, errs := runCmd("topics", "label", "--model", src, "--data", data, "--out", labelled, strconv.Itoa(leaf), "my leaf"); code != 0 {
		t.Fatalf("label: %s", errs)
	}
	before := folderHashes(t, labelled)
	newA, newB := filepath.Join(tmp, "a.jsonl"), filepath.Join(tmp, "b.jsonl")
	writeNewDocs(t, newA, "a", 12)
	writeNewDocs(t, newB, "b", 5)
	up1, up2 := filepath.Join(tmp, "up1"), filepath.Join(tmp, "up2")
	code, stdout, errs := runCmd("update", "--model", labelled, "--corpus", data, "--data", newA, "--out", up1, "--steps", "6", "--quiet")
	if code != 0 {
		t.Fatalf("update: exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "wrote the updated model") || !strings.Contains(stdout, "12 new documents") {
		t.Errorf("update printed %q", stdout)
	}
	if got := folderHashes(t, labelled); !mapsEqual(got, before) {
		t.Errorf("update changed its input folder")
	}
	// The second update finds its corpus in up1 and writes --valid-only.
	code, _, errs = runCmd("update", "--model", up1, "--data", newB, "--out", up2, "--steps", "3", "--quiet", "--valid-only")
	if code != 0 {
		t.Fatalf("second update: exit %d: %s", code, errs)
	}
	parent1, err := model.SavedWeightsSHA256(labelled)
	if err != nil {
		t.Fatal(err)
	}
	parent2, err := model.SavedWeightsSHA256(up1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir     string
		docs    int
		parents []string
		files   []string
	}{
		{up1, 312, []string{parent1}, []string{"metrics.json", "topics.json", "doc_topics.npy"}},
		{up2, 317, []string{parent1, parent2}, []string{"valid.json", "topics.txt"}},
	} {
		m, _, err := model.Load(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if m.Corpus == nil || m.Corpus.Documents.Count != c.docs {
			t.Errorf("%s: fingerprint %+v, want %d documents", c.dir, m.Corpus, c.docs)
		}
		g, err := corpus.LoadFolder(filepath.Join(c.dir, UpdateCorpusDir), corpus.LoadOptions{})
		if err != nil || g.NumDocs() != c.docs || g.DocIDs[0] != "d0" || g.Labels == nil {
			t.Fatalf("%s/corpus: %v docs, %v", c.dir, g, err)
		}
		var ups []string
		for _, e := range m.Edits.Edits {
			if e.Op == edits.OpUpdate {
				ups = append(ups, e.Parent)
			}
		}
		if strings.Join(ups, ",") != strings.Join(c.parents, ",") {
			t.Errorf("%s: update parents %v, want %v", c.dir, ups, c.parents)
		}
		if m.Topics.Tree.Has(leaf) && m.Edits.Labels()[leaf] != "my leaf" {
			t.Errorf("%s: the label of topic %d was lost", c.dir, leaf)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(c.dir, f)); err != nil {
				t.Errorf("%s: %v", c.dir, err)
			}
		}
		r := readUpdateReport(t, c.dir)
		if r.Parent != c.parents[len(c.parents)-1] || len(r.Kept) == 0 || r.NewDocuments == 0 {
			t.Errorf("%s: report %+v", c.dir, r)
		}
		for _, k := range r.Kept {
			if len(k.Before) != updateTopWords || k.Overlap < 0 || k.Overlap > 1 {
				t.Errorf("%s: kept topic %+v", c.dir, k)
			}
		}
	}
	if tp := readTopicsJSON(t, up1); tp[leaf].ID == leaf && tp[leaf].Label != "my leaf" {
		t.Errorf("topics.json of the update shows topic %d as %q", leaf, tp[leaf].Label)
	}
	corpusDir := filepath.Join(up1, UpdateCorpusDir)
	if code, _, errs := runCmd("eval", "--model", up1, "--data", corpusDir, "--out", filepath.Join(tmp, "eval.json")); code != 0 {
		t.Errorf("eval on the updated model: exit %d: %s", code, errs)
	}
	emb := filepath.Join(tmp, "emb")
	if code, _, errs := runCmd("embed", "--model", up1, "--data", corpusDir, "--new", newB, "--out", emb); code != 0 {
		t.Errorf("embed --new on the updated model: exit %d: %s", code, errs)
	}
	// No temporary folder is left beside the outputs.
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestUpdateRefused: each bad input is a clear error naming what is wrong
// (the file and line for a document) and writes nothing.
func TestUpdateRefused(t *testing.T) {
	data, src := trainedJSONL(t)
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.jsonl")
	writeNewDocs(t, good, "n", 3)
	write := func(name, s string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	foreign := filepath.Join(tmp, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	write("foreign/notes.txt", "mine")
	otherData := filepath.Join(tmp, "other.jsonl")
	writeJSONL(t, otherData, true, true)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"known id", []string{"--data", write("known.jsonl", `{"id":"n0","text":"x","label":"science"}`+"\n"+`{"id":"d3","text":"x","label":"science"}`)}, 1, `known.jsonl:2: id "d3" is already a document`},
		{"unknown link", []string{"--data", write("link.jsonl", `{"id":"n0","text":"x","links":["nope"],"label":"science"}`)}, 1, `link.jsonl:1: link names document "nope"`},
		{"empty", []string{"--data", write("empty.jsonl", "\n")}, 1, "empty.jsonl: no documents"},
		{"no label", []string{"--data", write("nolabel.jsonl", `{"id":"n0","text":"x"}`)}, 1, "nolabel.jsonl:1: no label"},
		{"out is the model", []string{"--data", good, "--out", src}, 2, "the model's own folder"},
		{"out holds files", []string{"--data", good, "--out", foreign}, 2, "holds files (notes.txt"},
		{"wrong corpus", []string{"--data", good, "--corpus", otherData}, 2, "not the corpus the model was trained on"},
		{"no --data", []string{}, 2, "--model, --data and --out are required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			args := []string{"update", "--model", src, "--corpus", data, "--out", out, "--steps", "2", "--quiet"}
			code, _, errs := runCmd(append(args, c.args...)...)
			if code != c.code || !strings.Contains(errs, c.want) || strings.Contains(errs, "--allow-different-corpus") {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
			entries, _ := os.ReadDir(tmp)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
	if got := folderHashes(t, foreign); len(got) != 1 {
		t.Errorf("the foreign folder now holds %v", got)
	}
}
