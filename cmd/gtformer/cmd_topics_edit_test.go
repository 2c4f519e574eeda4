package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/internal/filehash"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
)

// readTopicsJSON reads dir's topics.json, every entry with all its keys.
func readTopicsJSON(t *testing.T, dir string) map[int]outputs.Topic {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, outputs.TopicsFile))
	if err != nil {
		t.Fatal(err)
	}
	var topics []outputs.Topic
	if err := json.Unmarshal(raw, &topics); err != nil {
		t.Fatal(err)
	}
	out := map[int]outputs.Topic{}
	for _, tp := range topics {
		if tp.Label == "" || (tp.LabelSource != outputs.LabelUser && tp.LabelSource != outputs.LabelAuto) {
			t.Errorf("%s: topic %d has label %q from %q", dir, tp.ID, tp.Label, tp.LabelSource)
		}
		out[tp.ID] = tp
	}
	return out
}

// folderHashes is the SHA-256 of every file of dir, by name.
func folderHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			_, sum, err := filehash.SHA256(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = sum
		}
	}
	return out
}

// leavesOf returns the leaves under parent p in topics, in sibling order.
func leavesOf(topics map[int]outputs.Topic, p int) []int {
	var out []int
	for _, c := range topics[p].Children {
		if len(topics[c].Children) == 0 {
			out = append(out, c)
		}
	}
	return out
}

// TestTopicsEditChain labels a topic, merges two leaves (one of them
// labelled), moves, deletes and reduces, each into a new folder: every
// folder holds a model that loads with the whole log, the user's label
// survives the merge and the reload, the merged-away topic's label goes
// with it, and the input folders are never changed.
func TestTopicsEditChain(t *testing.T) {
	data, src := trainedJSONL(t)
	tmp := t.TempDir()
	before := folderHashes(t, src)
	topics := readTopicsJSON(t, src)
	root := -1
	for id, tp := range topics {
		if tp.Parent < 0 {
			root = id
		}
	}
	var inner int
	for _, c := range topics[root].Children {
		if len(leavesOf(topics, c)) >= 2 {
			inner = c
			break
		}
	}
	a, b := leavesOf(topics, inner)[0], leavesOf(topics, inner)[1]
	step := func(name string, args ...string) string {
		t.Helper()
		out := filepath.Join(tmp, name)
		code, stdout, errs := runCmd(append(append([]string{"topics"}, args...), "--data", data, "--out", out)...)
		if code != 0 {
			t.Fatalf("topics %v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(stdout, "wrote the edited model") {
			t.Errorf("topics %v printed %q", args, stdout)
		}
		return out
	}
	m1 := step("label", "label", "--model", src, strconv.Itoa(inner), "Sports & games")
	m1b := step("label-b", "label", "--model", m1, strconv.Itoa(b), "to go")
	m2 := step("merge", "merge", "--model", m1b, strconv.Itoa(a), strconv.Itoa(b))
	got := readTopicsJSON(t, m2)
	if _, ok := got[b]; ok || got[a].Parent != inner {
		t.Errorf("after merge %d %d: topics %v", a, b, slices.Sorted(func(yield func(int) bool) {
			for id := range got {
				if !yield(id) {
					return
				}
			}
		}))
	}
	if got[inner].Label != "Sports & games" || got[inner].LabelSource != outputs.LabelUser {
		t.Errorf("the label after the merge: %q (%s)", got[inner].Label, got[inner].LabelSource)
	}
	txt, _ := os.ReadFile(filepath.Join(m2, outputs.TopicsTextFile))
	if !strings.Contains(string(txt), `"Sports & games"`) || strings.Contains(string(txt), `"to go"`) {
		t.Errorf("topics.txt after the merge:\n%s", txt)
	}
	m, _, err := model.Load(m2)
	if err != nil {
		t.Fatal(err)
	}
	parentSum, _ := model.SavedWeightsSHA256(m1b)
	last := m.Edits.Edits[m.Edits.Len()-1]
	if m.Edits.Len() != 3 || last.Op != edits.OpMerge || !slices.Equal(last.IDs, []int{a, b}) || last.Parent != parentSum {
		t.Errorf("the merged model's log: %+v (parent weights %s)", m.Edits.Edits, parentSum)
	}
	if labels := m.Edits.Labels(); labels[inner] != "Sports & games" || len(labels) != 1 {
		t.Errorf("labels after merge and reload: %v", labels)
	}
	// Move a leaf of another branch under inner, delete inner, reduce.
	var other int
	for _, c := range topics[root].Children {
		if c != inner && len(leavesOf(topics, c)) > 0 {
			other = leavesOf(topics, c)[0]
			break
		}
	}
	m3 := step("move", "move", "--model", m2, "--under", strconv.Itoa(inner), strconv.Itoa(other))
	if got := readTopicsJSON(t, m3); got[other].Parent != inner {
		t.Errorf("after move: %d's parent is %d, want %d", other, got[other].Parent, inner)
	}
	m4 := step("delete", "delete", "--model", m3, strconv.Itoa(inner))
	got = readTopicsJSON(t, m4)
	if _, ok := got[inner]; ok || got[other].Parent != root || got[a].Parent != root {
		t.Errorf("after delete %d: %d under %d, %d under %d", inner, other, got[other].Parent, a, got[a].Parent)
	}
	m5 := step("reduce", "reduce", "--model", m4, "--to", "4")
	if got := readTopicsJSON(t, m5); len(got) != 4 {
		t.Errorf("reduce --to 4 left %d topics", len(got))
	}
	back, _, err := model.Load(m5)
	if err != nil {
		t.Fatal(err)
	}
	if n := back.Edits.Len(); n < 6 || back.Edits.Edits[n-1].Note != "topics reduce --to 4" {
		t.Errorf("the reduced model's log: %+v", back.Edits.Edits)
	}
	if after := folderHashes(t, src); !mapsEqual(before, after) {
		t.Errorf("the source folder changed:\n%v\n%v", before, after)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestTopicsEditRefused: every bad edit exits 2 (bad usage) or 1 (a
// refused edit) with a message naming the problem, and writes nothing.
func TestTopicsEditRefused(t *testing.T) {
	data, src := trainedJSONL(t)
	topics := readTopicsJSON(t, src)
	root, leaf, inner := -1, -1, -1
	for id, tp := range topics {
		switch {
		case tp.Parent < 0:
			root = id
		case len(tp.Children) > 0 && inner < 0:
			inner = id
		}
	}
	leaf = topics[inner].Children[0]
	id := strconv.Itoa
	tmp := t.TempDir()
	foreign := filepath.Join(tmp, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"merge the root", []string{"merge", id(root), id(inner)}, 1, "the root cannot be edited"},
		{"merge with an ancestor", []string{"merge", id(inner), id(leaf)}, 1, "its own ancestor or descendant"},
		{"merge unknown", []string{"merge", id(leaf), "999"}, 1, "topic 999: no such topic"},
		{"merge itself", []string{"merge", id(leaf), id(leaf)}, 1, "the same"},
		{"move into own subtree", []string{"move", "--under", id(leaf), id(inner)}, 1, "inside its own subtree"},
		{"move the root", []string{"move", "--under", id(inner), id(root)}, 1, "the root cannot be edited"},
		{"move to its parent", []string{"move", "--under", id(inner), id(leaf)}, 1, "changes nothing"},
		{"delete the root", []string{"delete", id(root)}, 1, "the root cannot be edited"},
		{"delete unknown", []string{"delete", "999"}, 1, "no such topic"},
		{"reduce below the levels", []string{"reduce", "--to", "1"}, 1, "levels"},
		{"reduce to the size", []string{"reduce", "--to", id(len(topics))}, 1, "already"},
		{"label unknown", []string{"label", "999", "x"}, 1, "no such topic"},
		{"label empty", []string{"label", id(leaf), " "}, 2, "must not be empty"},
		{"label control", []string{"label", id(leaf), "a\tb"}, 2, "control characters"},
		{"label too long", []string{"label", id(leaf), strings.Repeat("x", 81)}, 2, "at most 80 bytes"},
		{"id not a number", []string{"merge", "one", "two"}, 2, "is not a topic id"},
		{"too few ids", []string{"merge", id(leaf)}, 2, "want A B"},
		{"move without --under", []string{"move", id(leaf)}, 2, "--under P is required"},
		{"reduce without --to", []string{"reduce"}, 2, "--to N is required"},
		{"out is the model", []string{"delete", "--out", src, id(leaf)}, 2, "the model's own folder"},
		{"foreign out folder", []string{"delete", "--out", foreign, id(leaf)}, 1, "not a gtformer output folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"topics", c.args[0], "--model", src, "--data", data}, c.args[1:]...)
			if !slices.Contains(c.args, "--out") {
				args = append(args, "--out", out)
			}
			code, _, errs := runCmd(args...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d: %s\nwant exit %d and %q", code, errs, c.code, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused edit made %s (%v)", out, err)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(b) != "mine" {
		t.Error("the foreign folder's file changed")
	}
}
