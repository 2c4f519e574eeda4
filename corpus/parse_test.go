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

func TestParseErrors(t *testing.T) {
	type parser func(in string) error
	contents := func(vocab int) parser {
		return func(in string) error {
			_, _, err := parseContents(strings.NewReader(in), "contents.txt", vocab)
			return err
		}
	}
	links := func(n int) parser {
		return func(in string) error { _, err := parseLinks(strings.NewReader(in), "links.txt", n); return err }
	}
	voc := func(in string) error { _, err := parseVocab(strings.NewReader(in), "voc.txt"); return err }
	labels := func(n int) parser {
		return func(in string) error { _, err := parseLabels(strings.NewReader(in), "labels.txt", n); return err }
	}
	names := func(in string) error { _, err := parseLabelNames(strings.NewReader(in), "label_names.txt"); return err }
	emb := func(v, d int) parser {
		return func(in string) error { _, err := parseEmbeddings(strings.NewReader(in), "emb.txt", v, d); return err }
	}
	for _, tc := range []struct {
		name  string
		parse parser
		in    string
		want  string // the whole message after "corpus: "; "" means success
	}{
		{"contents ok, CRLF and no final newline", contents(3), "0 1\r\n2\t2\r\n\r\n1", ""},
		{"contents not an integer", contents(3), "0 1\n2 two\n", `contents.txt:2: token "two" is not an integer word id`},
		{"contents out of range", contents(3), "0 1\n2\n1 3\n", "contents.txt:3: word id 3 outside the vocabulary (ids 0 to 2)"},
		{"contents negative", contents(3), "-1\n", "contents.txt:1: word id -1 outside the vocabulary (ids 0 to 2)"},
		{"contents huge", contents(3), "99999999999999999999999\n", "contents.txt:1: word id 99999999999999999999999 outside the vocabulary (ids 0 to 2)"},
		{"contents stray CR", contents(3), "0 1\r2\n", `contents.txt:1: token "1\r2" is not an integer word id`},
		{"contents empty file", contents(3), "", "contents.txt: empty corpus: no documents"},
		{"contents no words", contents(3), "\n \n1 x", `contents.txt:3: token "x" is not an integer word id`},
		{"contents only blank lines", contents(3), "\n\n", "contents.txt: empty corpus: no documents"},
		{"contents empty documents, no words", contents(3), "\n\n0\n", ""},
		{"links ok", links(3), "0 1\r\n\n2 2\n1\t0", ""},
		{"links missing document", links(3), "0 1\n1 3\n", "links.txt:2: link names document 3, which does not exist (contents.txt has documents 0 to 2)"},
		{"links not an integer", links(3), "0 1.5\n", `links.txt:1: token "1.5" is not an integer document id`},
		{"links three ids", links(3), "0 1 2\n", `links.txt:1: more than two document ids (third field "2")`},
		{"links one id", links(3), "0 1\n\n2\n", "links.txt:3: one document id; a link needs two"},
		{"voc ok", voc, "a\r\nb c\n c2 ", ""},
		{"voc empty word", voc, "a\n\nb\n", "voc.txt:2: empty word (line 2 is word id 1)"},
		{"voc repeat", voc, "a\nb\na\n", `voc.txt:3: word "a" repeats line 1`},
		{"voc invalid UTF-8", voc, "a\n\xff\n", `voc.txt:2: word "\xff" is not valid UTF-8`},
		{"voc control character", voc, "a\nb\tc\n", `voc.txt:2: word "b\tc" contains a control character`},
		{"voc empty", voc, "", "voc.txt: empty vocabulary"},
		{"voc trailing blank line", voc, "a\nb\n\n", ""},
		{"voc only blank lines", voc, "\n\t\n", "voc.txt: empty vocabulary"},
		{"labels ok", labels(2), "1\r\n0", ""},
		{"labels too few", labels(3), "1\n0\n", "labels.txt: 2 labels for 3 documents (one label per line of contents.txt)"},
		{"labels too many", labels(1), "1\n0\n", "labels.txt:2: more labels than documents (contents.txt has 1 documents)"},
		{"labels not an integer", labels(2), "1\nb\n", `labels.txt:2: label "b" is not an integer`},
		{"labels negative", labels(1), "-2\n", "labels.txt:1: label -2 out of range (labels are 0, 1, 2, ...)"},
		{"labels blank", labels(3), "1\n\n0\n", "labels.txt:2: empty line: expected the label of document 1"},
		{"labels trailing blank lines", labels(2), "1\n0\n\n \r\n", ""},
		{"labels byte order mark", labels(2), "\xef\xbb\xbf1\n0\n", ""},
		{"names ok", names, "economy, business, and finance\r\nsports", ""},
		{"names empty", names, "a\n \nb", "label_names.txt:2: empty name for label 1"},
		{"names trailing blank line", names, "a\nb\n\n", ""},
		{"names stray CR", names, "0\r0", `label_names.txt:1: label name "0\r0" contains a control character`},
		{"names none", names, "", "label_names.txt: no label names"},
		{"emb ok", emb(2, 3), "1 2 3\n-1e-3 0\t5\n", ""},
		{"emb short row", emb(2, 3), "1 2 3\n4 5\n", "emb.txt:2: row has 2 values, want 3 (one 3-dimensional vector per word)"},
		{"emb long row", emb(2, 3), "1 2 3 4\n", "emb.txt:1: row has 4 values, want 3 (one 3-dimensional vector per word)"},
		{"emb bad number", emb(1, 2), "1 zero\n", `emb.txt:1: value 2, "zero", is not a finite number`},
		{"emb NaN", emb(1, 2), "NaN 1\n", `emb.txt:1: value 1, "NaN", is not a finite number`},
		{"emb too many rows", emb(1, 1), "1\n2\n", "emb.txt:2: more rows than words (voc.txt has 1 words)"},
		{"emb too few rows", emb(3, 1), "1\n2\n", "emb.txt: 2 rows for 3 vocabulary words (one row per line of voc.txt)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
				return
			case err == nil:
				t.Fatalf("no error, want %q", tc.want)
			case err.Error() != prefix+tc.want:
				t.Fatalf("error\n got %q\nwant %q", err.Error(), prefix+tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%T is not a *ParseError", err)
			}
		})
	}
}

func TestParseContentsLongLineAndLineEnds(t *testing.T) {
	// One document far longer than the reader's 256 KiB buffer, between two
	// short ones, with CRLF line ends and no final newline.
	var b bytes.Buffer
	b.WriteString("1 2\r\n")
	const long = 300000
	for i := range long {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString([]string{"0", "1", "2"}[i%3])
	}
	b.WriteString("\r\n2")
	tokens, ptr, err := parseContents(&b, "contents.txt", 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 2, 2 + long, 3 + long}; !slices.Equal(ptr, want) {
		t.Fatalf("ptr = %v, want %v", ptr, want)
	}
	if tokens[2] != 0 || tokens[3] != 1 || tokens[len(tokens)-1] != 2 || tokens[len(tokens)-2] != 2 { // the long line ends with id (long-1)%3 = 2
		t.Fatalf("tokens around the long line are wrong: %v ... %v", tokens[:4], tokens[len(tokens)-2:])
	}
}

func TestLoadFolderTiny(t *testing.T) {
	g, err := LoadFolder(filepath.Join("testdata", "tiny"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Name != "tiny" || g.NumDocs() != 10 || len(g.Vocab) != 8 || g.NumTokens() != 33 {
		t.Errorf("name %q, %d docs, %d words, %d tokens; want tiny, 10, 8, 33", g.Name, g.NumDocs(), len(g.Vocab), g.NumTokens())
	}
	wantLinks := [][2]int32{{0, 1}, {0, 6}, {1, 2}, {2, 8}, {3, 4}, {6, 7}, {7, 8}, {8, 9}}
	if !slices.Equal(g.Links, wantLinks) {
		t.Errorf("links = %v, want %v", g.Links, wantLinks)
	}
	if !slices.Equal(g.Neighbors(8), []int32{2, 7, 9}) || len(g.Neighbors(5)) != 0 {
		t.Errorf("neighbours of 8 = %v, of 5 = %v", g.Neighbors(8), g.Neighbors(5))
	}
	if !slices.Equal(g.LabelNames, []string{"structure", "content"}) || g.NumLabels() != 2 {
		t.Errorf("label names %q", g.LabelNames)
	}
	if !slices.Equal(g.Doc(9), []int32{3, 3, 3, 2}) || !slices.Equal(g.Doc(8), []int32{5, 1, 2}) {
		t.Errorf("docs 8, 9 = %v, %v", g.Doc(8), g.Doc(9))
	}
}

func TestLoadFolderFileProblems(t *testing.T) {
	tiny := filepath.Join("testdata", "tiny")
	copyTiny := func(t *testing.T, skip string) string {
		dir := t.TempDir()
		for _, f := range []string{VocabFile, ContentsFile, LinksFile, LabelsFile, LabelNamesFile} {
			if f == skip {
				continue
			}
			b, err := os.ReadFile(filepath.Join(tiny, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, f := range []string{VocabFile, ContentsFile, LinksFile} {
		t.Run("missing "+f, func(t *testing.T) {
			dir := copyTiny(t, f)
			_, err := LoadFolder(dir, LoadOptions{})
			// ErrMissingFile carries the prefix too; the message carries it once.
			want := prefix + filepath.Join(dir, f) + ": missing required file"
			if !errors.Is(err, ErrMissingFile) || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %v, want %q...", err, want)
			}
		})
	}
	t.Run("links optional with kNN", func(t *testing.T) {
		g, err := LoadFolder(copyTiny(t, LinksFile), LoadOptions{KNNLinks: true})
		if err != nil {
			t.Fatal(err)
		}
		if !g.LinksInduced || len(g.Links) == 0 {
			t.Fatalf("induced %v, %d links", g.LinksInduced, len(g.Links))
		}
	})
	t.Run("labels without names name themselves", func(t *testing.T) {
		g, err := LoadFolder(copyTiny(t, LabelNamesFile), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.LabelNames, []string{"0", "1"}) {
			t.Fatalf("names %q", g.LabelNames)
		}
	})
	t.Run("label without a name", func(t *testing.T) {
		dir := copyTiny(t, "")
		os.WriteFile(filepath.Join(dir, LabelNamesFile), []byte("only\n"), 0o644)
		_, err := LoadFolder(dir, LoadOptions{})
		want := prefix + filepath.Join(dir, LabelsFile) + ":3: label 1 has no name (" + filepath.Join(dir, LabelNamesFile) + " names labels 0 to 0)"
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %s", err, want)
		}
	})
	t.Run("not a folder", func(t *testing.T) {
		if _, err := LoadFolder(filepath.Join(tiny, "voc.txt"), LoadOptions{}); err == nil {
			t.Fatal("no error")
		}
		if _, err := Load(filepath.Join(tiny, "voc.txt"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a dataset folder or a JSON Lines file") {
			t.Fatalf("Load on a .txt file: %v", err)
		}
	})
}

// TestTrailingBlankLinesAndByteOrderMark: blank lines at the end of a
// folder's files are not documents, words or labels (a trailing blank line
// in contents.txt used to become an empty document that labels.txt was then
// blamed for), and a UTF-8 byte order mark at the start of a file is not
// part of its first word or id. The words of voc.txt keep their ids.
func TestTrailingBlankLinesAndByteOrderMark(t *testing.T) {
	src := filepath.Join("testdata", "tiny")
	want, err := LoadFolder(src, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{ContentsFile, LinksFile, VocabFile, LabelsFile, LabelNamesFile} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		b = append(append([]byte("\xef\xbb\xbf"), b...), "\n\n  \r\n"...)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadFolder(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.NumDocs() != want.NumDocs() || !slices.Equal(got.Vocab, want.Vocab) || !slices.Equal(got.Labels, want.Labels) ||
		!slices.Equal(got.LabelNames, want.LabelNames) || !slices.Equal(got.Links, want.Links) || !slices.Equal(got.Tokens, want.Tokens) {
		t.Errorf("with a byte order mark and trailing blank lines: %d documents, vocabulary %q, labels %v; want %d, %q, %v",
			got.NumDocs(), got.Vocab, got.Labels, want.NumDocs(), want.Vocab, want.Labels)
	}
}
