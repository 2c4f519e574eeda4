package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello, World! The naïve café's 42 x", []string{"hello", "world", "naïve", "café", "42"}},
		{"GRAPH-based topic_models (2024)", []string{"graph", "based", "topic", "models", "2024"}},
		{"Ünïcode ΣΟΦΙΑ straße", []string{"ünïcode", "σοφια", "straße"}},
		{"it is what it is; a b c", nil},
		{"", nil},
	} {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseJSONL(t *testing.T) {
	in := `{"id": "a", "text": "Topic trees and topic graphs", "links": ["7", "c", "a"], "label": "trees"}
{"id": 7, "text": "Graphs grow wide", "label": "graphs"}

{"id": "c", "text": "Trees grow deep. Trees!", "links": [7], "label": "trees"}
`
	g, err := parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	// Document frequencies: trees 2, graphs 2, grow 2, topic 1, deep 1,
	// wide 1; ties alphabetical.
	if want := []string{"graphs", "grow", "trees", "deep", "topic", "wide"}; !slices.Equal(g.Vocab, want) {
		t.Errorf("vocab %q, want %q", g.Vocab, want)
	}
	if !slices.Equal(g.DocIDs, []string{"a", "7", "c"}) {
		t.Errorf("ids %q", g.DocIDs)
	}
	if want := [][2]int32{{0, 1}, {0, 2}, {1, 2}}; !slices.Equal(g.Links, want) {
		t.Errorf("links %v, want %v", g.Links, want)
	}
	if !slices.Equal(g.LabelNames, []string{"graphs", "trees"}) || !slices.Equal(g.Labels, []int32{1, 0, 1}) {
		t.Errorf("labels %v names %q", g.Labels, g.LabelNames)
	}
	// "Trees grow deep. Trees!" -> trees grow deep trees
	if want := []int32{2, 1, 3, 2}; !slices.Equal(g.Doc(2), want) {
		t.Errorf("doc c = %v, want %v", g.Doc(2), want)
	}

	// Limits: min-df 2 keeps graphs, grow, trees; max-df 0.5 of 3 documents
	// (at most 1.5) then drops all of them.
	g, err = parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{MinDF: 2})
	if err != nil || !slices.Equal(g.Vocab, []string{"graphs", "grow", "trees"}) {
		t.Errorf("min-df 2: vocab %v, err %v", g.Vocab, err)
	}
	g, err = parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{MaxVocab: 4})
	if err != nil || !slices.Equal(g.Vocab, []string{"graphs", "grow", "trees", "deep"}) {
		t.Errorf("max-vocab 4: vocab %v, err %v", g.Vocab, err)
	}
	_, err = parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{MinDF: 2, MaxDF: 0.5})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no word survives") {
		t.Errorf("over-pruned: err %v", err)
	}
}

func TestParseJSONLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the whole message after "corpus: "
	}{
		{"invalid JSON", `{"id": "a", "text": "x y"}` + "\n" + `{"id": "b", "text": }`,
			"in.jsonl:2: invalid JSON: invalid character '}' looking for beginning of value"},
		{"missing id", `{"text": "x y"}`, `in.jsonl:1: missing "id"`},
		{"bad id", `{"id": [1], "text": "x y"}`, `in.jsonl:1: "id": [1] is not a string or a number`},
		{"empty id", `{"id": "", "text": "x y"}`, `in.jsonl:1: "id": empty string`},
		{"missing text", `{"id": "a"}`, `in.jsonl:1: document "a": missing "text"`},
		{"duplicate id", "{\"id\": \"a\", \"text\": \"x y\"}\r\n\r\n{\"id\": \"a\", \"text\": \"z\"}",
			`in.jsonl:3: duplicate id "a" (first on line 1)`},
		{"unknown link", `{"id": "a", "text": "xx yy", "links": ["b"]}`, `in.jsonl:1: document "a" links to "b", which does not exist`},
		{"bad link", `{"id": "a", "text": "xx yy", "links": [true]}`, `in.jsonl:1: document "a": "links": true is not a string or a number`},
		{"mixed labels", `{"id": "a", "text": "xx", "label": "l"}` + "\n" + `{"id": "b", "text": "yy"}`,
			`in.jsonl:2: documents on lines 1 and 2 differ in having a "label": label every document or none`},
		{"empty", "\n \n", "in.jsonl: empty corpus: no documents"},
		{"invalid UTF-8 in the text", `{"id": "a", "text": "xx yy"}` + "\n" + `{"id": "b", "text": "caf` + "\xe9" + ` au lait"}`,
			"in.jsonl:2: not valid UTF-8 (byte 25 of the line is 0xe9): save the file as UTF-8"},
		{"invalid UTF-8 in an id", "{\"id\": \"\xff\", \"text\": \"xx\"}", "in.jsonl:1: not valid UTF-8 (byte 9 of the line is 0xff): save the file as UTF-8"},
		{"no words", `{"id": "a", "text": "a the of"}`, "in.jsonl: empty corpus: no word survives the tokenizer's limits (0 distinct words before limits; min-df 0, max-df 0, max-vocab 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseJSONL(strings.NewReader(tc.in), "in.jsonl", TokenizerOptions{})
			if err == nil || err.Error() != prefix+tc.want {
				t.Fatalf("error\n got %v\nwant %s", err, prefix+tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%T is not a *ParseError", err)
			}
		})
	}
}

// TestParseJSONLByteOrderMark: a UTF-8 byte order mark at the start of the
// file (Windows editors write one) is not part of the first line; it used
// to fail with "invalid character 'ï'".
func TestParseJSONLByteOrderMark(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"id": "a", "text": "xx yy", "links": ["b"]}` + "\r\n" + `{"id": "b", "text": "yy zz"}` + "\r\n"
	g, err := parseJSONL(strings.NewReader(in), "in.jsonl", TokenizerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.DocIDs, []string{"a", "b"}) || len(g.Links) != 1 {
		t.Errorf("ids %q, links %v", g.DocIDs, g.Links)
	}
}

func TestLoadJSONLFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "news.jsonl")
	os.WriteFile(path, []byte(`{"id": "a", "text": "markets fell"}`+"\n"+`{"id": "b", "text": "markets rose"}`+"\n"), 0o644)
	g, err := Load(path, LoadOptions{KNNLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "news" || !g.LinksInduced || !slices.Equal(g.Links, [][2]int32{{0, 1}}) || g.Labels != nil {
		t.Errorf("name %q induced %v links %v labels %v", g.Name, g.LinksInduced, g.Links, g.Labels)
	}
	if _, err := LoadJSONL(filepath.Join(dir, "absent.jsonl"), LoadOptions{}); !errors.Is(err, ErrMissingFile) {
		t.Errorf("absent file: %v", err)
	}
	if _, err := LoadJSONL(path, LoadOptions{Tokenizer: TokenizerOptions{MaxDF: 1.5}}); err == nil {
		t.Error("max-df 1.5 accepted")
	}
}
