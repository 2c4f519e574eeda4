package edits

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckLabel(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"neural networks", true},
		{"réseaux · 神经", true},
		{strings.Repeat("a", MaxLabel), true},
		{strings.Repeat("a", MaxLabel+1), false},
		{"", false},
		{"   ", false},
		{"tab\there", false},
		{"new\nline", false},
		{"bad \xff utf8", false},
		{"del\x7f", false},
	} {
		if err := CheckLabel(c.in); (err == nil) != c.ok {
			t.Errorf("CheckLabel(%q) = %v, want ok=%v", c.in, err, c.ok)
		}
	}
}

func TestLabelsReplay(t *testing.T) {
	var l *Log
	for _, e := range []Edit{
		{Op: OpLabel, IDs: []int{3}, Label: "three"},
		{Op: OpLabel, IDs: []int{4}, Label: "four"},
		{Op: OpLabel, IDs: []int{5}, Label: "five"},
		{Op: OpLabel, IDs: []int{3}, Label: "three again"},
		{Op: OpMerge, IDs: []int{3, 4}}, // 4 goes, 3 keeps its label
		{Op: OpMove, IDs: []int{5, 1}},  // a move keeps the label
		{Op: OpDelete, IDs: []int{6}},   // no label to drop
		{Op: OpLabel, IDs: []int{6}, Label: "x"},
		{Op: OpDelete, IDs: []int{6}},
		{Op: OpUpdate, Parent: "ab12", Note: "3 new documents"}, // labels survive an update
	} {
		l = l.With(e)
	}
	want := map[int]string{3: "three again", 5: "five"}
	if got := l.Labels(); !maps.Equal(got, want) {
		t.Errorf("Labels = %v, want %v", got, want)
	}
	if n := (*Log)(nil).Len(); n != 0 {
		t.Errorf("nil log has %d edits", n)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if l, err := Read(dir); l != nil || err != nil {
		t.Fatalf("Read of a folder without a log = %v, %v; want nil, nil", l, err)
	}
	l := (*Log)(nil).With(Edit{Op: OpLabel, IDs: []int{2}, Label: "two", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	l = l.With(Edit{Op: OpMerge, IDs: []int{2, 7}, Parent: "ab12"})
	l = l.With(Edit{Op: OpUpdate, Parent: "cd34", Note: "2 new documents"})
	if err := Write(dir, l); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != 3 || got.Edits[2].Op != OpUpdate || got.Edits[2].Note != "2 new documents" || got.Edits[0].Label != "two" || !got.Edits[0].Time.Equal(l.Edits[0].Time) || got.Edits[1].Parent != "ab12" {
		t.Errorf("read back %+v, wrote %+v", got, l)
	}
}

func TestParseRefuses(t *testing.T) {
	for name, raw := range map[string]string{
		"not json":      `{`,
		"unknown field": `{"format":"gtformer-edits/1","edits":[],"x":1}`,
		"format":        `{"format":"other","edits":[]}`,
		"op":            `{"format":"gtformer-edits/1","edits":[{"op":"rename","ids":[1]}]}`,
		"arity":         `{"format":"gtformer-edits/1","edits":[{"op":"merge","ids":[1]}]}`,
		"update ids":    `{"format":"gtformer-edits/1","edits":[{"op":"update","ids":[1]}]}`,
		"label":         `{"format":"gtformer-edits/1","edits":[{"op":"label","ids":[1],"label":""}]}`,
		"two values":    `{"format":"gtformer-edits/1","edits":[]} {}`,
	} {
		if _, err := Parse("edits.json", []byte(raw)); err == nil {
			t.Errorf("%s: Parse accepted %s", name, raw)
		} else if !strings.HasPrefix(err.Error(), "edits: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
	}
}

func TestWriteRefusesBadLog(t *testing.T) {
	dir := t.TempDir()
	bad := (*Log)(nil).With(Edit{Op: OpLabel, IDs: []int{1}, Label: "a\x00b"})
	if err := Write(dir, bad); err == nil {
		t.Fatal("Write accepted a label with a control character")
	}
	if _, err := os.Stat(filepath.Join(dir, File)); !os.IsNotExist(err) {
		t.Errorf("a refused write left %s: %v", File, err)
	}
}

// FuzzParse: any bytes either parse into a log whose every edit is well
// formed (so Labels cannot fail) or give an error with the package prefix;
// a parsed log writes and reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"format":"gtformer-edits/1","edits":[]}`,
		`{"format":"gtformer-edits/1","edits":[{"op":"label","ids":[1],"label":"x","time":"2026-01-02T03:04:05Z"}]}`,
		`{"format":"gtformer-edits/1","edits":[{"op":"merge","ids":[1,2]},{"op":"delete","ids":[3]},{"op":"move","ids":[4,0]}]}`,
		`{"format":"gtformer-edits/1","edits":[{"op":"label","ids":[1,2],"label":"x"}]}`,
		`{"format":"gtformer-edits/1","edits":[{"op":"label","ids":[],"label":"x"}]}`,
		`null`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		l, err := Parse("edits.json", raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "edits: ") {
				t.Fatalf("error without the prefix: %v", err)
			}
			return
		}
		l.Labels()
		dir := t.TempDir()
		if err := Write(dir, l); err != nil {
			t.Fatalf("a parsed log does not write: %v", err)
		}
		back, err := Read(dir)
		if err != nil || back.Len() != l.Len() {
			t.Fatalf("read back %v, %v", back, err)
		}
	})
}
