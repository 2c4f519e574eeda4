package corpus

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseDate(t *testing.T) {
	for _, tc := range []struct {
		in      string
		y, m, d int
		ok      bool
	}{
		{"1997", 1997, 0, 0, true},
		{"1997-07", 1997, 7, 0, true},
		{"2000-02-29", 2000, 2, 29, true},
		{"1900-02-29", 0, 0, 0, false},
		{"1997-13", 0, 0, 0, false},
		{"1997-00", 0, 0, 0, false},
		{"1997-04-31", 0, 0, 0, false},
		{"97", 0, 0, 0, false},
		{"1997/07", 0, 0, 0, false},
		{"ICML", 0, 0, 0, false},
		{"19a7", 0, 0, 0, false},
	} {
		y, m, d, ok := ParseDate(tc.in)
		if ok != tc.ok || y != tc.y || m != tc.m || d != tc.d {
			t.Errorf("ParseDate(%q) = %d %d %d %v, want %d %d %d %v", tc.in, y, m, d, ok, tc.y, tc.m, tc.d, tc.ok)
		}
	}
}

func TestJSONLFields(t *testing.T) {
	in := `{"id": "a", "text": "topic trees", "meta": {"year": 1997, "venue": "ICML", "date": "1997-07"}}
{"id": "b", "text": "topic graphs", "meta": {"year": 2001.5, "venue": "KDD", "date": "2001"}}
{"id": "c", "text": "topic graphs", "meta": {"venue": null, "date": "2003-01-31"}}
{"id": "d", "text": "trees"}
`
	g, err := parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Name: "date", Kind: KindDate, Values: []string{"1997-07", "2001", "2003-01-31", ""}},
		{Name: "venue", Kind: KindString, Values: []string{"ICML", "KDD", "", ""}},
		{Name: "year", Kind: KindNumber, Values: []string{"1997", "2001.5", "", ""}},
	}
	if len(g.Fields) != len(want) {
		t.Fatalf("fields %+v", g.Fields)
	}
	for k, f := range g.Fields {
		if f.Name != want[k].Name || f.Kind != want[k].Kind || !slices.Equal(f.Values, want[k].Values) {
			t.Errorf("field %d = %+v, want %+v", k, f, want[k])
		}
	}
	if x, ok := g.Fields[2].Number(1); !ok || x != 2001.5 {
		t.Errorf("Number = %v %v", x, ok)
	}

	// Round trip through the folder format.
	dir := t.TempDir()
	if err := WriteFolder(g, dir); err != nil {
		t.Fatal(err)
	}
	h, err := LoadFolder(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range h.Fields {
		if f.Name != want[k].Name || f.Kind != want[k].Kind || !slices.Equal(f.Values, want[k].Values) {
			t.Errorf("read back: field %d = %+v, want %+v", k, f, want[k])
		}
	}
	// A graph without fields leaves no meta.jsonl behind.
	g.Fields = nil
	if err := WriteFolder(g, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale %s: %v", MetaFile, err)
	}
}

func TestFieldErrors(t *testing.T) {
	for _, tc := range []struct {
		name, meta string // the meta of the second document
		want       string
	}{
		{"mixed kinds", `{"year": "late"}`, `in.jsonl:2: fields: "year" is a string here but a number on line 1`},
		{"nested object", `{"venue": {"name": "ICML"}}`, `in.jsonl:2: fields: "venue": nested objects and arrays`},
		{"array", `{"tags": ["a"]}`, `in.jsonl:2: fields: "tags": nested objects`},
		{"bool", `{"open": true}`, `in.jsonl:2: fields: "open": true is not a number`},
		{"not an object", `[1]`, `in.jsonl:2: fields: expected a JSON object`},
		{"label", `{"label": "x"}`, `in.jsonl:2: fields: "label" is the built-in field`},
		{"empty name", `{"": 1}`, `in.jsonl:2: fields: a field has an empty name`},
		{"twice", `{"a": 1, "a": 2}`, `in.jsonl:2: fields: "a" given twice`},
		{"huge", `{"year": 1e400}`, `in.jsonl:2: fields: "year": 1e400 is not a finite number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"id": 1, "text": "topic trees", "meta": {"year": 1997}}` + "\n" +
				`{"id": 2, "text": "topic trees", "meta": ` + tc.meta + "}\n"
			_, err := parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a ParseError containing %q", err, tc.want)
			}
		})
	}
}

func TestMetaFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, meta, want string
	}{
		{"too few lines", "{}\n{}\n", "meta.jsonl: 2 lines for 3 documents (contents.txt)"},
		{"too many lines", "{}\n{}\n{}\n{}\n", "meta.jsonl: 4 lines for 3 documents"},
		{"blank line", "{}\n\n{}\n", "meta.jsonl:2: blank line"},
		{"bad JSON", "{}\n{\"a\": }\n{}\n", "meta.jsonl:2: fields: invalid JSON"},
		{"trailing", "{}\n{} {}\n{}\n", "meta.jsonl:2: fields: invalid JSON"},
		{"mixed", "{\"a\": 1}\n{}\n{\"a\": \"x\"}\n", `meta.jsonl:3: fields: "a" is a string here but a number on line 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseMeta(strings.NewReader(tc.meta), "meta.jsonl", 3)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	fs, err := parseMeta(strings.NewReader("{\"d\": \"2001\"}\n{\"d\": \"spring\"}\n{}\n"), "meta.jsonl", 3)
	if err != nil || len(fs) != 1 || fs[0].Kind != KindString {
		t.Errorf("a string field with one date-like value: %+v %v, want a string field", fs, err)
	}
}

func TestAllFieldsAndReadMeta(t *testing.T) {
	g := &Graph{DocPtr: []int64{0, 0, 0}, Labels: []int32{1, 0}, LabelNames: []string{"2001", "b"},
		Fields: []Field{{Name: "year", Kind: KindNumber, Values: []string{"", "3"}}}}
	all := g.AllFields()
	var buf bytes.Buffer
	if err := WriteMeta(&buf, all, 2); err != nil {
		t.Fatal(err)
	}
	if want := "{\"label\":\"b\"}\n{\"label\":\"2001\",\"year\":3}\n"; buf.String() != want {
		t.Errorf("meta %q, want %q", buf.String(), want)
	}
	back, err := ReadMeta(&buf, "meta.jsonl", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Name != LabelField || back[0].Kind != KindString || !slices.Equal(back[0].Values, []string{"b", "2001"}) ||
		back[1].Kind != KindNumber || !slices.Equal(back[1].Values, []string{"", "3"}) {
		t.Errorf("read back %+v", back)
	}
}

// FuzzFields: the fields parser never panics, and what it accepts it
// writes and reads back unchanged.
func FuzzFields(f *testing.F) {
	for _, s := range []string{`{"year": 1997, "venue": "ICML"}`, `{"d": "2001-02-03"}`, `{}`, `null`, `{"a": {"b": 1}}`,
		`{"a": 1e5}`, `{"a": "x\u0000y"}`, `{"a": -0}`, `[`, `{"a": 1} {}`} {
		f.Add([]byte(s), []byte(`{"a": "2020"}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if bytes.ContainsAny(a, "\r\n") || bytes.ContainsAny(b, "\r\n") {
			return
		}
		in := append(append(append(a, '\n'), b...), '\n')
		fs, err := parseMeta(bytes.NewReader(in), "meta.jsonl", 2)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "meta.jsonl" {
				t.Fatalf("error %v is not a ParseError naming the file", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteMeta(&buf, fs, 2); err != nil {
			t.Fatal(err)
		}
		back, err := parseMeta(&buf, "meta.jsonl", 2)
		if err != nil {
			t.Fatalf("written %q does not read back: %v", buf.String(), err)
		}
		if len(back) != len(fs) {
			t.Fatalf("%d fields, %d read back", len(fs), len(back))
		}
		for k := range fs {
			if back[k].Name != fs[k].Name || back[k].Kind != fs[k].Kind || !slices.Equal(back[k].Values, fs[k].Values) {
				t.Fatalf("field %+v read back as %+v", fs[k], back[k])
			}
		}
	})
}
