package explore

import (
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/outputs"
)

// freshIndex is an index of the fixture's model of its own, for tests
// that rename topics (the shared fixture stays as built).
func freshIndex(t *testing.T) *Index {
	t.Helper()
	fixture(t)
	ix, err := New(fix.m, fix.g, fix.emb)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestTreeLabels: every node, inner ones included, has an automatic label,
// and siblings' labels differ.
func TestTreeLabels(t *testing.T) {
	ix := fixture(t)
	tree := ix.Tree()
	byID := map[int]Node{}
	for _, n := range tree.Nodes {
		byID[n.ID] = n
		if n.Label == "" || n.LabelSource != outputs.LabelAuto {
			t.Errorf("topic %d: label %q (%s), want an automatic label", n.ID, n.Label, n.LabelSource)
		}
	}
	for _, n := range tree.Nodes {
		seen := map[string]int{}
		for _, c := range n.Children {
			if o, dup := seen[byID[c].Label]; dup {
				t.Errorf("siblings %d and %d share the label %q", o, c, byID[c].Label)
			}
			seen[byID[c].Label] = c
		}
	}
}

func csvTopLabels(t *testing.T, ix *Index) map[string]string {
	t.Helper()
	var b strings.Builder
	if err := ix.WriteDocTopicsCSV(&b, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "id,label,top_topic,top_theta,path,top_topic_label" {
		t.Fatalf("CSV header %q", got)
	}
	out := map[string]string{}
	for _, r := range rows[1:] {
		out[r[2]] = r[5]
	}
	return out
}

// TestRename: a good label is saved through save, then shows in the tree,
// the topic, its parent's subtopics and the CSV; a bad label, an unknown
// topic or a failed save change nothing.
func TestRename(t *testing.T) {
	ix := freshIndex(t)
	var saved []*edits.Log
	save := func(l *edits.Log) error { saved = append(saved, l); return nil }
	fail := func(*edits.Log) error { return errors.New("disk full") }
	leaf := ix.Tree().Nodes[len(ix.Tree().Nodes)-1]
	before := ix.Tree()
	for _, c := range []struct {
		name  string
		id    int
		label string
		save  func(*edits.Log) error
		want  error
	}{
		{"unknown topic", 9999, "x", save, ErrNotFound},
		{"empty", leaf.ID, "", save, ErrBadLabel},
		{"too long", leaf.ID, strings.Repeat("x", edits.MaxLabel+1), save, ErrBadLabel},
		{"control", leaf.ID, "a\nb", save, ErrBadLabel},
	} {
		if _, err := ix.Rename(c.id, c.label, 5, c.save); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := ix.Rename(leaf.ID, "fine", 5, fail); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("a failed save: error %v", err)
	}
	if len(saved) != 0 || fmt.Sprint(ix.Tree()) != fmt.Sprint(before) {
		t.Fatalf("refused renames changed something: %d saves", len(saved))
	}
	top, err := ix.Rename(leaf.ID, "=SUM(A1)", 5, save)
	if err != nil {
		t.Fatal(err)
	}
	if top.Label != "=SUM(A1)" || top.LabelSource != outputs.LabelUser || len(top.Documents) > 5 {
		t.Errorf("Rename answered %q (%s) with %d documents", top.Label, top.LabelSource, len(top.Documents))
	}
	if len(saved) != 1 || saved[0].Labels()[leaf.ID] != "=SUM(A1)" {
		t.Fatalf("saved %v", saved)
	}
	for _, n := range ix.Tree().Nodes {
		if n.ID == leaf.ID && n.Label != "=SUM(A1)" {
			t.Errorf("tree: label %q after the rename", n.Label)
		}
	}
	parent, _ := ix.Topic(leaf.Parent, 0, 1)
	for _, s := range parent.Sub {
		if s.ID == leaf.ID && (s.Label != "=SUM(A1)" || s.LabelSource != outputs.LabelUser) {
			t.Errorf("parent's subtopics: %q (%s)", s.Label, s.LabelSource)
		}
	}
	if got, ok := csvTopLabels(t, ix)[fmt.Sprint(leaf.ID)]; ok && got != "'=SUM(A1)" {
		t.Errorf("CSV top_topic_label %q, want the label made safe for spreadsheets", got)
	}
	// A second rename appends to the log.
	if _, err := ix.Rename(leaf.ID, "second", 5, save); err != nil || saved[1].Len() != 2 {
		t.Errorf("second rename: %v, log of %d", err, saved[1].Len())
	}
}

// TestRenameConcurrent: renames from many goroutines while others read
// are serialised (run with -race): the log holds every rename once, and
// the label shown is the last one saved.
func TestRenameConcurrent(t *testing.T) {
	ix := freshIndex(t)
	id := ix.Tree().Nodes[1].ID
	var mu sync.Mutex
	var last *edits.Log
	save := func(l *edits.Log) error { mu.Lock(); last = l; mu.Unlock(); return nil }
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := ix.Rename(id, fmt.Sprintf("name %d", i), 1, save); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			ix.Tree()
			ix.Topic(id, 0, 1)
		}()
	}
	wg.Wait()
	if last.Len() != 16 {
		t.Fatalf("log holds %d edits, want 16", last.Len())
	}
	want := last.Edits[15].Label
	if tp, _ := ix.Topic(id, 0, 1); tp.Label != want {
		t.Errorf("label %q, the log's last is %q", tp.Label, want)
	}
}

// TestLayoutLegendLabels: on a corpus without labels the disk colours
// documents by their main branch, named "#id label", and a rename shows
// in the next layout.
func TestLayoutLegendLabels(t *testing.T) {
	fixture(t)
	g := *fix.g
	g.Labels, g.LabelNames = nil, nil
	ix, err := New(fix.m, &g, fix.emb)
	if err != nil {
		t.Fatal(err)
	}
	lo := ix.Layout(0)
	root := ix.Tree().Nodes[0]
	if lo.ColorBy != "topic" || len(lo.Colors) != len(root.Children) {
		t.Fatalf("colour by %q, %d colours for %d branches", lo.ColorBy, len(lo.Colors), len(root.Children))
	}
	first := root.Children[0]
	tp, _ := ix.Topic(first, 0, 1)
	if want := fmt.Sprintf("#%d %s", first, tp.Label); lo.Colors[0] != want {
		t.Errorf("colour 0 is %q, want %q", lo.Colors[0], want)
	}
	if _, err := ix.Rename(first, "Branch one", 1, func(*edits.Log) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := ix.Layout(0).Colors[0]; got != fmt.Sprintf("#%d Branch one", first) {
		t.Errorf("after the rename, colour 0 is %q", got)
	}
}
