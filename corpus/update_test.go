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

// labelledKnown is tinyKnown with ids and two labels.
func labelledKnown() *Graph {
	g := tinyKnown()
	g.DocIDs = []string{"p", "q"}
	g.Labels, g.LabelNames = []int32{0, 1}, []string{"ai", "bio"}
	return g
}

func TestSplitFileRoundTrip(t *testing.T) {
	g := tinyKnown()
	g = g.Extend(&NewDocs{IDs: []string{"x", "y", "z"}, Tokens: [][]int32{{0}, {1}, {2}}, Links: [][2]int32{{2, 3}, {3, 4}}})
	roles := []Role{RoleTrain, RoleValid, RoleTrain, RoleTest, RoleTest}
	var buf bytes.Buffer
	if err := WriteSplit(&buf, roles); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "train\nvalid\ntrain\ntest\ntest\n" {
		t.Errorf("file %q", got)
	}
	back, err := parseSplit(&buf, "split.txt", 5)
	if err != nil || !slices.Equal(back, roles) {
		t.Fatalf("read back %v, %v", back, err)
	}
	s, err := SplitFromRoles(g, back)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Train, []int32{0, 1, 2}) || !slices.Equal(s.Valid, []int32{1}) || !slices.Equal(s.Test, []int32{3, 4}) {
		t.Errorf("split %v %v %v", s.Train, s.Valid, s.Test)
	}
	if !slices.Equal(s.Roles(5), roles) {
		t.Errorf("roles %v", s.Roles(5))
	}
	// The paper split's roles give the paper split back.
	p := PaperSplit(g)
	q, err := SplitFromRoles(g, p.Roles(g.NumDocs()))
	if err != nil || !slices.Equal(p.Train, q.Train) || !slices.Equal(p.Valid, q.Valid) || !slices.Equal(p.Test, q.Test) {
		t.Errorf("paper split %v → %v (%v)", p, q, err)
	}
}

func TestSplitFileErrors(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"train\nvalid\nfoo\n", 3, `split.txt:3: "foo" is not a role`},
		{"train\n\ntest\n", 3, `split.txt:2: "" is not a role`},
		{"train\ntest\n", 3, "split.txt: 2 roles for a corpus of 3 documents"},
		{"train\ntest\ntest\ntrain\n", 3, "split.txt:4: more lines than"},
	}
	for _, c := range cases {
		_, err := parseSplit(strings.NewReader(c.in), "split.txt", c.n)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(strings.TrimPrefix(err.Error(), "corpus: "), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
	if _, err := SplitFromRoles(tinyKnown(), []Role{RoleTrain}); err == nil {
		t.Error("a split of the wrong length was taken")
	}
}

func TestFolderIDsRoundTrip(t *testing.T) {
	g := labelledKnown()
	dir := t.TempDir()
	if err := WriteFolder(g, dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFolder(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.DocIDs, g.DocIDs) {
		t.Errorf("ids %v", back.DocIDs)
	}
	if NewFingerprint(back, nil, nil, "").Hash != NewFingerprint(g, nil, nil, "").Hash {
		t.Error("the folder does not read back as the same corpus")
	}
	for _, c := range []struct{ ids, want string }{
		{"a\na\n", "ids.txt:2: duplicate id"},
		{"a\n", "ids.txt: 1 ids for 2 documents"},
		{"a\n\n b\n", "ids.txt:2: empty line"},
	} {
		if err := os.WriteFile(filepath.Join(dir, IDsFile), []byte(c.ids), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFolder(dir, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ids %q: %v, want %s", c.ids, err, c.want)
		}
	}
}

func TestReadUpdateJSONL(t *testing.T) {
	cases := []struct {
		name   string
		g      *Graph
		in     string
		labels []int32
		want   string // error, "" for none
	}{
		{"labelled", labelledKnown(), `{"id":"a","text":"graph tree","links":["p","b"],"label":"bio"}` + "\n" + `{"id":"b","text":"topic","label":"ai"}`, []int32{1, 0}, ""},
		{"unlabelled corpus ignores labels", tinyKnown(), `{"id":"a","text":"graph","label":"x"}`, nil, ""},
		{"missing label", labelledKnown(), `{"id":"a","text":"graph"}`, nil, "new.jsonl:1: no label"},
		{"unknown label", labelledKnown(), "\n" + `{"id":"a","text":"graph","label":"chem"}`, nil, `new.jsonl:2: label "chem" is not one`},
		{"known id", labelledKnown(), `{"id":"p","text":"graph","label":"ai"}`, nil, `new.jsonl:1: id "p" is already a document`},
		{"unknown link", labelledKnown(), `{"id":"a","text":"graph","links":["zz"],"label":"ai"}`, nil, `new.jsonl:1: link names document "zz"`},
		{"empty", labelledKnown(), "\n\n", nil, "new.jsonl: no documents"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nd, err := readUpdateJSONL("new.jsonl", strings.NewReader(c.in), c.g)
			if c.want != "" {
				if err == nil || !strings.HasPrefix(strings.TrimPrefix(err.Error(), "corpus: "), c.want) {
					t.Fatalf("%v, want %s", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(nd.Labels, c.labels) {
				t.Errorf("labels %v, want %v", nd.Labels, c.labels)
			}
			e := c.g.Extend(nd)
			if c.g.Labels != nil && !slices.Equal(e.Labels, append(slices.Clone(c.g.Labels), c.labels...)) {
				t.Errorf("extended labels %v", e.Labels)
			}
		})
	}
}

// writeFiles writes name → content into a new folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadUpdateFolder(t *testing.T) {
	base := map[string]string{
		VocabFile: "tree\nzebra\ngraph\n", ContentsFile: "0 1 2\n2\n", LinksFile: "0 1\n",
		LabelsFile: "1\n0\n", LabelNamesFile: "ai\nbio\n", IDsFile: "a\nb\n", CorpusLinksFile: "0 p\n1 q\n",
	}
	with := func(over map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range over {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	g := labelledKnown()
	nd, err := ReadUpdate(writeFiles(t, base), g)
	if err != nil {
		t.Fatal(err)
	}
	// tree=2, graph=0 in the corpus's vocabulary; zebra dropped.
	if !slices.Equal(nd.Tokens[0], []int32{2, 0}) || !slices.Equal(nd.Tokens[1], []int32{0}) || nd.Unknown != 1 {
		t.Errorf("tokens %v, unknown %d", nd.Tokens, nd.Unknown)
	}
	if !slices.Equal(nd.Labels, []int32{1, 0}) || !slices.Equal(nd.IDs, []string{"a", "b"}) {
		t.Errorf("labels %v ids %v", nd.Labels, nd.IDs)
	}
	e := g.Extend(nd)
	if len(e.Links) != 4 { // p-q, a-b, a-p, b-q
		t.Errorf("links %v", e.Links)
	}
	for _, c := range []struct {
		name  string
		over  map[string]string
		want  string
		known *Graph
	}{
		{"no ids for a corpus with ids", map[string]string{IDsFile: ""}, "ids.txt: missing", nil},
		{"known id", map[string]string{IDsFile: "p\nb\n"}, `ids.txt:1: id "p" is already`, nil},
		{"bad corpus link", map[string]string{CorpusLinksFile: "0 p\n1 zz\n"}, `corpus_links.txt:2: "zz" names no document`, nil},
		{"bad line", map[string]string{CorpusLinksFile: "5 p\n"}, `corpus_links.txt:1: "5" is not a new document's`, nil},
		{"one field", map[string]string{CorpusLinksFile: "0\n"}, "corpus_links.txt:1: want two fields", nil},
		{"unknown label", map[string]string{LabelNamesFile: "ai\nchem\n"}, `labels.txt:1: label "chem"`, nil},
		{"line-number links without ids", map[string]string{IDsFile: "", CorpusLinksFile: "0 1\n1 7\n"}, `corpus_links.txt:2: "7" names no document`, tinyKnown()},
	} {
		t.Run(c.name, func(t *testing.T) {
			known := g
			if c.known != nil {
				known = c.known
			}
			_, err := ReadUpdate(writeFiles(t, with(c.over)), known)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %s", err, c.want)
			}
		})
	}
	// A corpus named by line numbers: the new documents are new-K.
	nd, err = ReadUpdate(writeFiles(t, with(map[string]string{IDsFile: "", LabelsFile: "", LabelNamesFile: "", CorpusLinksFile: "0 1\n"})), tinyKnown())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nd.IDs, []string{"new-0", "new-1"}) || nd.Labels != nil {
		t.Errorf("ids %v labels %v", nd.IDs, nd.Labels)
	}
}

func TestSubsetAndNewDocsJSONL(t *testing.T) {
	g := labelledKnown().Extend(&NewDocs{IDs: []string{"r"}, Tokens: [][]int32{{3, 3}}, Links: [][2]int32{{2, 0}, {2, 1}}, Labels: []int32{1}})
	base := g.Subset([]int32{0, 2})
	if base.NumDocs() != 2 || !slices.Equal(base.DocIDs, []string{"p", "r"}) || !slices.Equal(base.Labels, []int32{0, 1}) {
		t.Fatalf("subset %v %v", base.DocIDs, base.Labels)
	}
	if len(base.Links) != 1 || base.Links[0] != [2]int32{0, 1} {
		t.Errorf("subset links %v", base.Links)
	}
	var buf bytes.Buffer
	if err := g.WriteNewDocsJSONL(&buf, []int32{1}, func(d int32) string { return g.DocIDs[d] }); err != nil {
		t.Fatal(err)
	}
	nd, err := readUpdateJSONL("new.jsonl", &buf, base)
	if err != nil {
		t.Fatal(err)
	}
	back := base.Extend(nd)
	if back.NumDocs() != 3 || len(back.Links) != len(g.Links) || !slices.Equal(back.Doc(2), g.Doc(1)) || back.Labels[2] != 1 {
		t.Errorf("round trip: %d docs, links %v, doc %v labels %v", back.NumDocs(), back.Links, back.Doc(2), back.Labels)
	}
}

func FuzzSplitFile(f *testing.F) {
	f.Add([]byte("train\nvalid\ntest\n"), 3)
	f.Add([]byte("train\r\n \ttest\n\n"), 2)
	f.Add([]byte("\xef\xbb\xbfvalid"), 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		roles, err := parseSplit(bytes.NewReader(b), "split.txt", n)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("not a ParseError: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteSplit(&buf, roles); err != nil {
			t.Fatal(err)
		}
		back, err := parseSplit(&buf, "split.txt", n)
		if err != nil || !slices.Equal(back, roles) {
			t.Fatalf("round trip %v → %v (%v)", roles, back, err)
		}
	})
}

func FuzzReadUpdateJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","text":"graph tree","links":["p","b"],"label":"bio"}` + "\n" + `{"id":"b","text":"topic","label":"ai"}`))
	f.Add([]byte(`{"id":1,"text":"x","label":2}`))
	f.Add([]byte(`{"id":"a","text":"x","label":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := labelledKnown()
		nd, err := readUpdateJSONL("new.jsonl", bytes.NewReader(b), g)
		if err != nil {
			return
		}
		if len(nd.Labels) != len(nd.IDs) {
			t.Fatalf("%d labels for %d documents", len(nd.Labels), len(nd.IDs))
		}
		e := g.Extend(nd)
		if err := e.Validate(); err != nil {
			t.Fatalf("extended graph invalid: %v", err)
		}
	})
}

func FuzzCorpusLinks(f *testing.F) {
	f.Add([]byte("0 p\n1 q\n"))
	f.Add([]byte("1\tq\r\n\n"))
	f.Add([]byte("0 p extra\n-1 q\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		for name, s := range map[string]string{VocabFile: "tree\ngraph\n", ContentsFile: "0 1\n1\n", LinksFile: "0 1\n", IDsFile: "a\nb\n",
			CorpusLinksFile: string(b)} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g := tinyKnown()
		g.DocIDs = []string{"p", "q"}
		nd, err := ReadUpdate(dir, g)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("not a ParseError: %v", err)
			}
			return
		}
		if err := g.Extend(nd).Validate(); err != nil {
			t.Fatalf("extended graph invalid: %v", err)
		}
	})
}
