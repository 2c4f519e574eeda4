package topictree

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	tr := handDrawn(t)
	// Retire ids 7 and 8 so next_id must carry them.
	if _, err := tr.AddChild(6); err != nil { // id 8
		t.Fatal(err)
	}
	if _, err := tr.Remove(5); err != nil { // removes 5 and 7
		t.Fatal(err)
	}
	if _, err := tr.Remove(8); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != tr.String() || back.NextID() != 9 || back.Limits() != tr.Limits() {
		t.Errorf("round trip changed the tree:\n%s next %d\nwant\n%s next 9", back, back.NextID(), tr)
	}
	checkTables(t, back)
	if id, _ := back.AddChild(0); id != 9 {
		t.Errorf("after reload the next id is %d, want 9 (5, 7, 8 stay retired)", id)
	}
	// Through encoding/json too, and the file reader.
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var viaStd Tree
	if err := json.Unmarshal(b, &viaStd); err != nil || viaStd.String() != tr.String() {
		t.Errorf("json.Unmarshal: %v\n%s", err, viaStd.String())
	}
	path := filepath.Join(t.TempDir(), "tree.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := ReadFile(path); err != nil || f.String() != tr.String() {
		t.Errorf("ReadFile: %v", err)
	}
}

func TestJSONGolden(t *testing.T) {
	tr, _ := New(2, 2)
	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "max_depth": 4,
  "max_children": 20,
  "next_id": 3,
  "topics": [
    {
      "id": 0,
      "parent": -1,
      "level": 0,
      "children": [
        1,
        2
      ]
    },
    {
      "id": 1,
      "parent": 0,
      "level": 1,
      "children": []
    },
    {
      "id": 2,
      "parent": 0,
      "level": 1,
      "children": []
    }
  ]
}
`
	if buf.String() != want {
		t.Errorf("JSON:\n%s\nwant\n%s", buf.String(), want)
	}
}

// tj builds a tree JSON document from topic objects, with the header given.
func tj(header string, topics ...string) string {
	return `{` + header + `, "topics": [` + strings.Join(topics, ",") + `]}`
}

const hdr = `"version": 1, "max_depth": 4, "max_children": 3, "next_id": 10`

func TestJSONErrors(t *testing.T) {
	root := `{"id": 0, "parent": -1, "level": 0, "children": [1]}`
	one := `{"id": 1, "parent": 0, "level": 1, "children": []}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", ``, "empty input"},
		{"syntax", "{\n\"version\": 1,\n\"topics\": [}\n", "line 3"},
		{"type", "{\n\"version\": \"one\"}", "line 2"},
		{"unknownField", tj(hdr+`, "colour": 1`, root, one), "unknown field"},
		{"trailing", tj(hdr, root, one) + ` {}`, "data after"},
		{"version", tj(`"version": 2, "max_depth": 4, "max_children": 3, "next_id": 10`, root, one), "version 2"},
		{"maxDepth", tj(`"version": 1, "max_depth": 0, "max_children": 3, "next_id": 10`, root, one), "max depth 0"},
		{"maxDepthHuge", tj(`"version": 1, "max_depth": 1000, "max_children": 3, "next_id": 10`, root, one), "max depth 1000"},
		{"maxChildren", tj(`"version": 1, "max_depth": 4, "max_children": 0, "next_id": 10`, root, one), "max children 0"},
		{"noTopics", tj(hdr), "no topics"},
		{"negativeID", tj(hdr, `{"id": -3, "parent": -1, "level": 0, "children": []}`), "negative id"},
		{"idNotBelowNext", tj(hdr, `{"id": 10, "parent": -1, "level": 0, "children": []}`), "next_id"},
		{"duplicate", tj(hdr, root, one, one), "topic 1: duplicate id"},
		{"twoRoots", tj(hdr, root, one, `{"id": 2, "parent": -1, "level": 0, "children": []}`), "both roots"},
		{"noRoot", tj(hdr, `{"id": 1, "parent": 2, "level": 1, "children": []}`, `{"id": 2, "parent": 1, "level": 1, "children": []}`), "no root"},
		{"badParent", tj(hdr, root, `{"id": 1, "parent": -2, "level": 1, "children": []}`), "parent -2"},
		{"missingParent", tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": []}`, `{"id": 1, "parent": 7, "level": 1, "children": []}`), "parent 7 does not exist"},
		{"missingChild", tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": [1, 4]}`, one), "child 4 does not exist"},
		{"childParentMismatch", tj(hdr, root, one, `{"id": 2, "parent": 1, "level": 2, "children": []}`, `{"id": 3, "parent": 0, "level": 1, "children": [2]}`), "whose parent is 1"},
		{"childTwice", tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": [1, 1]}`, one), "listed twice"},
		{"unlisted", tj(hdr, root, one, `{"id": 2, "parent": 0, "level": 1, "children": []}`), "not in the children"},
		{"cycle", tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": []}`, `{"id": 1, "parent": 2, "level": 1, "children": [2]}`, `{"id": 2, "parent": 1, "level": 2, "children": [1]}`), "not reachable"},
		{"rootLevel", tj(hdr, `{"id": 0, "parent": -1, "level": 1, "children": [1]}`, `{"id": 1, "parent": 0, "level": 2, "children": []}`), "root has level 1"},
		{"level", tj(hdr, root, `{"id": 1, "parent": 0, "level": 2, "children": []}`), "level 2, want 1"},
		{"tooDeep", tj(`"version": 1, "max_depth": 2, "max_children": 3, "next_id": 10`, root, `{"id": 1, "parent": 0, "level": 1, "children": [2]}`, `{"id": 2, "parent": 1, "level": 2, "children": []}`), "exceeds max_depth 2"},
		{"tooManyChildren", tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": [1, 2, 3, 4]}`,
			`{"id": 1, "parent": 0, "level": 1, "children": []}`, `{"id": 2, "parent": 0, "level": 1, "children": []}`,
			`{"id": 3, "parent": 0, "level": 1, "children": []}`, `{"id": 4, "parent": 0, "level": 1, "children": []}`), "more than max_children 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error for %s", tc.in)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "topictree: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
	// A valid document with the same pieces parses.
	if _, err := ReadJSON(strings.NewReader(tj(hdr, root, one))); err != nil {
		t.Errorf("valid tree rejected: %v", err)
	}
	// The file reader names the file.
	path := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte(tj(hdr, root)), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadFile error %v does not name the file", err)
	}
	// On error UnmarshalJSON leaves the tree unchanged.
	tr, _ := New(2, 2)
	if err := tr.UnmarshalJSON([]byte(tj(hdr, root))); err == nil || tr.Len() != 3 {
		t.Errorf("UnmarshalJSON on bad input: err %v, tree %v", err, tr.IDs())
	}
}

// FuzzReadJSON: the reader never panics, and whatever it accepts is a
// consistent tree that writes and reads back identically.
func FuzzReadJSON(f *testing.F) {
	for _, tr := range []*Tree{handDrawn(f), build(f, 0, 1, 2), build(f)} {
		var buf bytes.Buffer
		tr.WriteJSON(&buf)
		f.Add(buf.Bytes())
	}
	f.Add([]byte(tj(hdr, `{"id": 0, "parent": -1, "level": 0, "children": []}`, `{"id": 1, "parent": 2, "level": 1, "children": [2]}`, `{"id": 2, "parent": 1, "level": 2, "children": [1]}`)))
	f.Add([]byte(`{"version":1,"max_depth":4,"max_children":3,"next_id":2,"topics":[{"id":0,"parent":-1,"level":0,"children":[1,1]}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"topics": null}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ReadJSON(bytes.NewReader(in))
		if err != nil {
			return
		}
		checkTables(t, tr)
		checkLimits(t, tr)
		var a, b bytes.Buffer
		if err := tr.WriteJSON(&a); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("re-read of written tree failed: %v\n%s", err, a.String())
		}
		back.WriteJSON(&b)
		if a.String() != b.String() {
			t.Fatalf("write/read/write differs:\n%s\n%s", a.String(), b.String())
		}
	})
}
