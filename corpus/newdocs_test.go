package corpus

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func tinyKnown() *Graph {
	g := &Graph{Vocab: []string{"graph", "topic", "tree", "model"}}
	g.Tokens = []int32{0, 1, 2, 3}
	g.DocPtr = []int64{0, 2, 4}
	g.SetLinks([][2]int32{{0, 1}})
	return g
}

func TestReadNewDocs(t *testing.T) {
	in := `{"id": "a", "text": "A topic model of the tree, unknownword", "links": ["0", "b"]}
{"id": 7, "text": "graph", "links": [1]}
{"id": "b", "text": ""}
`
	nd, err := readNewDocs("new.jsonl", strings.NewReader(in), tinyKnown())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(nd.IDs, ","); got != "a,7,b" {
		t.Errorf("ids %s", got)
	}
	// "a" has topic, model, tree in reading order; "unknownword" dropped.
	if got := nd.Tokens[0]; len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 2 {
		t.Errorf("tokens of a: %v", got)
	}
	if nd.Unknown != 1 {
		t.Errorf("unknown words %d, want 1", nd.Unknown)
	}
	want := [][2]int32{{2, 0}, {2, 4}, {3, 1}}
	if len(nd.Links) != len(want) {
		t.Fatalf("links %v, want %v", nd.Links, want)
	}
	for i := range want {
		if nd.Links[i] != want[i] {
			t.Errorf("link %d = %v, want %v", i, nd.Links[i], want[i])
		}
	}
	e := tinyKnown().Extend(nd)
	if e.NumDocs() != 5 || len(e.Links) != 4 {
		t.Errorf("extended graph: %d docs, %d links", e.NumDocs(), len(e.Links))
	}
}

func TestReadNewDocsErrors(t *testing.T) {
	cases := []struct {
		in   string
		want string // how the message starts after "corpus: "
	}{
		{`{"id": "a", "text": "x", "links": ["zz"]}`, `new.jsonl:1: link names document "zz"`},
		{"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"a\", \"text\": \"y\"}", `new.jsonl:2: duplicate id "a"`},
		{`{"id": "a"}`, `new.jsonl:1: document "a" has no "text"`},
		{`{"text": "x"}`, `new.jsonl:1: id: missing`},
		{`{"id": 1.5, "text": "x"}`, `new.jsonl:1: id: want a string or an integer`},
		{`not json`, `new.jsonl:1: invalid JSON`},
		{``, `new.jsonl: no documents`},
		{`{"id": "a", "text": "x", "links": ["2"]}`, `new.jsonl:1: link names document "2"`},
		{`{"id": "1", "text": "x"}`, `new.jsonl:1: id "1" reads as document 1 of the corpus`},
		{`{"id": 0, "text": "x"}`, `new.jsonl:1: id "0" reads as document 0 of the corpus`},
		{`{"id": "a", "text": "x", "lnks": []}`, `new.jsonl:1: invalid JSON: json: unknown field "lnks"`},
		{"{\"id\": \"a\", \"text\": \"caf\xe9\"}", `new.jsonl:1: not valid UTF-8 (byte 25 of the line is 0xe9)`},
	}
	for _, c := range cases {
		_, err := readNewDocs("new.jsonl", strings.NewReader(c.in), tinyKnown())
		if err == nil || !strings.HasPrefix(err.Error(), prefix+c.want) {
			t.Errorf("%q: error %v, want %q...", c.in, err, prefix+c.want)
		}
		var pe *ParseError
		if err != nil && strings.Contains(c.want, ":1:") && !errors.As(err, &pe) {
			t.Errorf("%q: %T is not a ParseError", c.in, err)
		}
	}
}

// TestReadNewDocsCorpusFields: a line in the corpus's own JSON Lines
// format, with a "label", is a new document (the label is not used); a new
// id that is a corpus document's id is refused (it used to take over that
// document's links silently).
func TestReadNewDocsCorpusFields(t *testing.T) {
	known := tinyKnown()
	known.DocIDs = []string{"d1", "d2"}
	nd, err := readNewDocs("new.jsonl", strings.NewReader(`{"id": "n1", "text": "graph topic", "links": ["d2"], "label": "physics"}`+"\n"), known)
	if err != nil {
		t.Fatalf("a labelled new document: %v", err)
	}
	if len(nd.IDs) != 1 || len(nd.Links) != 1 || nd.Links[0] != [2]int32{2, 1} {
		t.Errorf("ids %v links %v", nd.IDs, nd.Links)
	}
	_, err = readNewDocs("new.jsonl", strings.NewReader(`{"id": "x", "text": "graph"}`+"\n"+`{"id": "d1", "text": "tree", "links": ["x"]}`), known)
	if want := `new.jsonl:2: id "d1" is already a document of the corpus`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("new id equal to a corpus id: %v, want %q", err, want)
	}
}

func FuzzReadNewDocs(f *testing.F) {
	f.Add(`{"id": "a", "text": "topic tree", "links": ["0", "b"]}` + "\n" + `{"id": "b", "text": "graph"}`)
	f.Add(`{"id": 3, "text": "", "links": [1, 0]}`)
	f.Add(`{"id": "a", "text": "x", "links": [[]]}`)
	f.Fuzz(func(t *testing.T, in string) {
		g := tinyKnown()
		nd, err := readNewDocs("f.jsonl", strings.NewReader(in), g)
		if err != nil {
			return
		}
		n := int32(g.NumDocs() + len(nd.IDs))
		for _, l := range nd.Links {
			if l[0] < 0 || l[0] >= n || l[1] < 0 || l[1] >= n {
				t.Fatalf("link %v outside [0,%d)", l, n)
			}
		}
		if e := g.Extend(nd); e.NumDocs() != int(n) {
			t.Fatalf("extended graph has %d docs, want %d", e.NumDocs(), n)
		}
	})
}

// TestResolveNewDocsDropUnknown: with dropUnknown a link to nothing is left
// out and listed (document index and the id given), the other links kept;
// without it, it is a *NewDocError naming the document.
func TestResolveNewDocsDropUnknown(t *testing.T) {
	docs := []NewDoc{
		{ID: "a", Text: "graph tree", Links: []string{"nope", "1", "b"}},
		{ID: "b", Text: "topic", Links: []string{"9"}},
	}
	nd, err := tinyKnown().ResolveNewDocs(docs, true)
	if err != nil {
		t.Fatal(err)
	}
	wantLinks := [][2]int32{{2, 1}, {2, 3}}
	if len(nd.Links) != len(wantLinks) || nd.Links[0] != wantLinks[0] || nd.Links[1] != wantLinks[1] {
		t.Errorf("links %v, want %v", nd.Links, wantLinks)
	}
	wantUnknown := []UnknownLink{{0, "nope"}, {1, "9"}}
	if len(nd.UnknownLinks) != 2 || nd.UnknownLinks[0] != wantUnknown[0] || nd.UnknownLinks[1] != wantUnknown[1] {
		t.Errorf("unknown links %v, want %v", nd.UnknownLinks, wantUnknown)
	}
	_, err = tinyKnown().ResolveNewDocs(docs, false)
	var de *NewDocError
	if !errors.As(err, &de) || de.Doc != 0 || !strings.HasPrefix(err.Error(), prefix+"new document 0: ") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("strict: error %v, want a NewDocError for document 0 naming \"nope\"", err)
	}
	for _, bad := range [][]NewDoc{{{ID: "", Text: "x"}}, {{ID: "a"}, {ID: "a"}}} {
		if _, err := tinyKnown().ResolveNewDocs(bad, true); !errors.As(err, &de) {
			t.Errorf("%v: error %v, want a NewDocError", bad, err)
		}
	}
}

func TestLineNumberID(t *testing.T) {
	for _, tc := range []struct {
		id  string
		doc int
		ok  bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"007", 7, true}, {"+7", 7, true}, {"9", 9, true},
		{"10", 0, false}, {"-1", 0, false}, {"-0", 0, true}, {"7a", 0, false}, {"", 0, false}, {" 7", 0, false}, {"7.0", 0, false},
	} {
		if doc, ok := LineNumberID(tc.id, 10); doc != tc.doc || ok != tc.ok {
			t.Errorf("LineNumberID(%q, 10) = %d, %v; want %d, %v", tc.id, doc, ok, tc.doc, tc.ok)
		}
	}
}

func TestParseNewDocLine(t *testing.T) {
	for _, tc := range []struct {
		line, id, text string
		links          []string
		err            string
	}{
		{line: `{"id": "a", "text": "x y", "links": ["b", 7]}`, id: "a", text: "x y", links: []string{"b", "7"}},
		{line: `{"id": 12, "text": "", "label": "physics"}`, id: "12", text: ""},
		{line: `{"id": "a", "text": "x", "label": 3, "links": []}`, id: "a", text: "x"},
		{line: `{"id": "a", "text": "x", "title": "t"}`, err: `invalid JSON: json: unknown field "title"`},
		{line: `{"id": "a", "text": "x"} {"id": "b", "text": "y"}`, err: "more than one value"},
		{line: `{"id": "a"}`, err: `document "a" has no "text"`},
		{line: `{"id": "", "text": "x"}`, err: "id: empty"},
		{line: `{"id": true, "text": "x"}`, err: "id: want a string or an integer"},
		{line: `{"id": "a", "text": "x", "links": [1.5]}`, err: "link: want a string or an integer"},
		{line: `{"id": "a", "text": 3}`, err: `field "text" must be a string, got number`},
		{line: `{"id": "a", "text": "x", "links": "b"}`, err: `field "links" must be an array of ids, got string`},
		{line: `[1]`, err: `want a JSON object {"id": ..., "text": ..., "links": [...]}, got array`},
		{line: ` null `, err: `want a JSON object {"id": ..., "text": ..., "links": [...]}, got null`},
		{line: `{"id": "a"`, err: "invalid JSON"},
		{line: "{\"id\": \"a\", \"text\": \"caf\xe9\"}", err: "not valid UTF-8 (byte 25 of the line is 0xe9)"},
		{line: "{\"id\": \"a\xff\", \"text\": \"x\"}", err: "not valid UTF-8 (byte 10 of the line is 0xff)"},
	} {
		id, text, links, err := ParseNewDocLine([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || id != tc.id || text != tc.text || !slices.Equal(links, tc.links) {
			t.Errorf("%s: (%q, %q, %q, %v), want (%q, %q, %q)", tc.line, id, text, links, err, tc.id, tc.text, tc.links)
		}
	}
}

func FuzzParseNewDocLine(f *testing.F) {
	f.Add([]byte(`{"id": "a", "text": "topic tree", "links": ["0", 3]}`))
	f.Add([]byte(`{"id": 3, "text": "", "label": "x"}`))
	f.Add([]byte(`{"id": "a", "text": "x", "links": [[]]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, _, links, err := ParseNewDocLine(line)
		if err != nil {
			return
		}
		if id == "" {
			t.Fatal("accepted an empty id")
		}
		if !utf8.Valid(line) {
			t.Fatalf("accepted a line that is not valid UTF-8: %q", line)
		}
		for _, l := range links {
			if l == "" {
				t.Fatal("accepted an empty link")
			}
		}
	})
}
