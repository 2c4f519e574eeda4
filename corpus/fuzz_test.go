package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

// sharedHead returns the first n lines of a shared dataset file as a fuzz
// seed. Without the shared folder it returns nil (the literal seeds still
// run), unless shared.Required, when the test fails.
func sharedHead(tb testing.TB, dataset, file string, n int) []byte {
	tb.Helper()
	d := shared.Dir()
	if d == "" {
		if shared.Required() {
			tb.Fatalf("shared folder not found and $%s is set", shared.RequireEnv)
		}
		return nil
	}
	f, err := os.Open(filepath.Join(d, "data", dataset, file))
	if err != nil {
		if shared.Required() {
			tb.Fatalf("shared dataset file: %v", err)
		}
		return nil
	}
	defer f.Close()
	var out []byte
	r := bufio.NewReaderSize(f, 1<<20)
	for range n {
		line, err := r.ReadBytes('\n')
		out = append(out, line...)
		if err != nil {
			break
		}
	}
	return out
}

// addSharedSeeds seeds f with the first lines of file in every dataset that
// ships it (COVID has no GloVe file: ../shared/data/MANIFEST.txt lists none).
func addSharedSeeds(f *testing.F, file string, n int, extra ...any) {
	datasets := []string{"ml", "pl", "covid"}
	if file == EmbeddingsFile {
		datasets = datasets[:2]
	}
	for _, ds := range datasets {
		if b := sharedHead(f, ds, file, n); b != nil {
			f.Add(append([]any{b}, extra...)...)
		}
	}
}

// checkParseError fails unless err is a *ParseError whose message starts
// with the package's prefix, once, and the file name.
func checkParseError(t *testing.T, err error, file string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.File != file || pe.Line < 0 || pe.Err == nil {
		t.Fatalf("ParseError %+v does not name file %q with a line >= 0 and a cause", pe, file)
	}
	if !strings.HasPrefix(pe.Error(), prefix+file) {
		t.Fatalf("message %q does not start with %q and the file name", pe.Error(), prefix)
	}
}

// countLines counts the lines a folder file's parser sees, computed
// independently of lineReader and eachLine: lines end in "\n" (a final
// line without one counts), one "\r" before it belongs to the line end, a
// byte order mark opening the file is not content, and blank lines (spaces
// and tabs only) at the end do not count.
func countLines(b []byte) int {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	lines := strings.Split(string(b), "\n")
	if len(b) == 0 || b[len(b)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	for n > 0 && strings.Trim(strings.TrimSuffix(lines[n-1], "\r"), " \t") == "" {
		n--
	}
	return n
}

func FuzzContents(f *testing.F) {
	addSharedSeeds(f, "contents.txt", 3, uint16(6000))
	f.Add([]byte("0 1 2\n2 2 1\n"), uint16(3))
	f.Add([]byte("0 1\r\n\r\n2"), uint16(3))
	f.Add([]byte("0\t1  7\n"), uint16(5))
	f.Add([]byte("3 -1 +2 99999999999999999999 x\n"), uint16(4))
	f.Add([]byte("\n\n"), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, vocab uint16) {
		tokens, ptr, err := parseContents(bytes.NewReader(data), "contents.txt", int(vocab))
		if err != nil {
			checkParseError(t, err, "contents.txt")
			return
		}
		if len(ptr)-1 != countLines(data) {
			t.Fatalf("%d documents from %d lines", len(ptr)-1, countLines(data))
		}
		if ptr[len(ptr)-1] != int64(len(tokens)) || len(tokens) == 0 {
			t.Fatalf("ptr ends at %d for %d tokens", ptr[len(ptr)-1], len(tokens))
		}
		for _, w := range tokens {
			if w < 0 || int(w) >= int(vocab) {
				t.Fatalf("word id %d outside vocabulary %d", w, vocab)
			}
		}
		// Writing the documents back and reading them again is the identity.
		var buf bytes.Buffer
		for i := 0; i+1 < len(ptr); i++ {
			for k, w := range tokens[ptr[i]:ptr[i+1]] {
				if k > 0 {
					buf.WriteByte(' ')
				}
				fmt.Fprint(&buf, w)
			}
			buf.WriteByte('\n')
		}
		tokens2, ptr2, err := parseContents(&buf, "contents.txt", int(vocab))
		if err != nil || !slices.Equal(tokens, tokens2) || !slices.Equal(ptr, ptr2) {
			t.Fatalf("round trip differs (err %v)", err)
		}
	})
}

func FuzzLinks(f *testing.F) {
	addSharedSeeds(f, "links.txt", 5, uint16(3087))
	f.Add([]byte("0 1\n1 0\n2 2\n"), uint16(3))
	f.Add([]byte("0\t1\r\n\r\n 4 1"), uint16(5))
	f.Add([]byte("0 1 2\n"), uint16(3))
	f.Add([]byte("7\n"), uint16(9))
	f.Fuzz(func(t *testing.T, data []byte, numDocs uint16) {
		links, err := parseLinks(bytes.NewReader(data), "links.txt", int(numDocs))
		if err != nil {
			checkParseError(t, err, "links.txt")
			return
		}
		for _, l := range links {
			if l[0] < 0 || l[1] < 0 || int(l[0]) >= int(numDocs) || int(l[1]) >= int(numDocs) {
				t.Fatalf("link %v outside %d documents", l, numDocs)
			}
		}
		if numDocs == 0 {
			return
		}
		g := &Graph{Vocab: []string{"w"}, DocPtr: make([]int64, int(numDocs)+1)}
		g.SetLinks(links)
		if err := g.Validate(); err != nil {
			t.Fatalf("graph from links invalid: %v", err)
		}
	})
}

func FuzzVoc(f *testing.F) {
	addSharedSeeds(f, "voc.txt", 10)
	f.Add([]byte("alpha\nbeta\r\ngamma"))
	f.Add([]byte("a\n\nb\n"))
	f.Add([]byte("x\nx\n"))
	f.Add([]byte("\xff\xfe\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		words, err := parseVocab(bytes.NewReader(data), "voc.txt")
		if err != nil {
			checkParseError(t, err, "voc.txt")
			return
		}
		if len(words) != countLines(data) {
			t.Fatalf("%d words from %d lines", len(words), countLines(data))
		}
		seen := map[string]bool{}
		for _, w := range words {
			if w == "" || seen[w] || strings.ContainsAny(w, "\n") {
				t.Fatalf("bad or repeated word %q", w)
			}
			seen[w] = true
		}
	})
}

func FuzzLabels(f *testing.F) {
	addSharedSeeds(f, "labels.txt", 6, uint16(6))
	f.Add([]byte("0\n1\n2\n"), uint16(3))
	f.Add([]byte("0\r\n1"), uint16(2))
	f.Add([]byte("0\n\n"), uint16(2))
	f.Add([]byte("-1\n"), uint16(1))
	f.Add([]byte("1 2\n"), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, numDocs uint16) {
		labels, err := parseLabels(bytes.NewReader(data), "labels.txt", int(numDocs))
		if err != nil {
			checkParseError(t, err, "labels.txt")
			return
		}
		if len(labels) != int(numDocs) {
			t.Fatalf("%d labels for %d documents", len(labels), numDocs)
		}
		for _, l := range labels {
			if l < 0 {
				t.Fatalf("negative label %d", l)
			}
		}
		names := []string{"a", "b", "c"}
		if err := checkLabelNames(labels, names, "labels.txt", "label_names.txt"); err != nil {
			checkParseError(t, err, "labels.txt")
		} else if slices.Max(append([]int32{0}, labels...)) >= 3 {
			t.Fatal("a label without a name passed")
		}
	})
}

func FuzzLabelNames(f *testing.F) {
	addSharedSeeds(f, "label_names.txt", 20)
	f.Add([]byte("economy, business, and finance\r\neducation\r\nsports"))
	f.Add([]byte("a\n\n"))
	f.Add([]byte("\xef\xbb\xbfa\n \t\r\n"))
	f.Add([]byte(" x \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := parseLabelNames(bytes.NewReader(data), "label_names.txt")
		if err != nil {
			checkParseError(t, err, "label_names.txt")
			return
		}
		if len(names) != countLines(data) {
			t.Fatalf("%d names from %d lines", len(names), countLines(data))
		}
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, "\r\n") {
				t.Fatalf("bad name %q", n)
			}
		}
	})
}

func FuzzEmbeddings(f *testing.F) {
	// The shared rows are 300 wide; seed them with their true width.
	addSharedSeeds(f, EmbeddingsFile, 2, uint8(2), uint16(300))
	f.Add([]byte("0.5 -1\n2e3 0\n"), uint8(2), uint16(2))
	f.Add([]byte("0.5 -1\n2e3\n"), uint8(2), uint16(2))
	f.Add([]byte("NaN 1\n"), uint8(1), uint16(2))
	f.Add([]byte("1e999 1\n"), uint8(1), uint16(2))
	f.Add([]byte("1\t2\r\n"), uint8(1), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, vocab uint8, dim uint16) {
		if dim == 0 {
			dim = 1
		}
		vec, err := parseEmbeddings(bytes.NewReader(data), EmbeddingsFile, int(vocab), int(dim))
		if err != nil {
			checkParseError(t, err, EmbeddingsFile)
			return
		}
		if len(vec) != int(vocab)*int(dim) {
			t.Fatalf("%d values for %d words of dimension %d", len(vec), vocab, dim)
		}
		for _, x := range vec {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				t.Fatalf("non-finite value %v", x)
			}
		}
	})
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"id": "a", "text": "Graphs and trees", "links": ["b"], "label": "x"}` + "\n" +
		`{"id": "b", "text": "Trees of graphs", "label": "y"}`))
	f.Add([]byte(`{"id": 1, "text": "one two"}` + "\n" + `{"id": 1, "text": "three"}` + "\n"))
	f.Add([]byte(`{"id": "a", "text": "x y", "links": ["zz"]}`))
	f.Add([]byte(`{"id": "a", "text": "x y"` + "\n"))
	f.Add([]byte("\r\n\r\n" + `{"id": "é", "text": "Ünïcode wörds ÄND digits 42"}` + "\r\n"))
	f.Add([]byte(`{"id": null, "text": 5, "label": [1]}`))
	// Seed with the first COVID documents spelt out as JSON Lines.
	if voc, docs := sharedHead(f, "covid", "voc.txt", 5083), sharedHead(f, "covid", "contents.txt", 3); voc != nil && docs != nil {
		words := strings.Split(strings.ReplaceAll(string(voc), "\r", ""), "\n")
		var buf bytes.Buffer
		for i, line := range strings.Split(strings.TrimSpace(string(docs)), "\n") {
			var text []string
			for _, tok := range strings.Fields(line) {
				var id int
				fmt.Sscan(tok, &id)
				if id < len(words) {
					text = append(text, words[id])
				}
			}
			fmt.Fprintf(&buf, `{"id": "d%d", "text": %q, "links": ["d0"], "label": "l%d"}`+"\n", i, strings.Join(text, " "), i%2)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := parseJSONL(bytes.NewReader(data), "in.jsonl", TokenizerOptions{MinDF: 1})
		if err != nil {
			checkParseError(t, err, "in.jsonl")
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("graph from JSON Lines invalid: %v", err)
		}
		if len(g.DocIDs) != g.NumDocs() {
			t.Fatalf("%d ids for %d documents", len(g.DocIDs), g.NumDocs())
		}
	})
}
