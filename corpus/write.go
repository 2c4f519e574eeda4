package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// WriteFolder writes g in the dataset folder format that LoadFolder reads:
// voc.txt, contents.txt, links.txt, and labels.txt, label_names.txt,
// meta.jsonl, ids.txt and the word-vector file when g has them. dir is created if needed. Each file is
// written atomically (temporary file, then rename), so a reader never sees
// a half-written file; optional files from an earlier write that g lacks are
// removed, so the folder describes exactly g. Each link is written once,
// lower id first.
//
// Words and label names must survive the loader's line format: non-empty,
// valid UTF-8, no line breaks, no surrounding spaces or tabs.
func WriteFolder(g *Graph, dir string) error {
	if err := checkWritable(g); err != nil {
		return fmt.Errorf("corpus: write %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	path := func(name string) string { return filepath.Join(dir, name) }

	if err := atomicfile.WriteFile(path(VocabFile), func(w io.Writer) error {
		return writeLines(w, g.Vocab)
	}); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path(ContentsFile), func(w io.Writer) error {
		return writeContents(w, g)
	}); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path(LinksFile), func(w io.Writer) error {
		return writeLinks(w, g.Links)
	}); err != nil {
		return err
	}

	optional := []struct {
		name  string
		have  bool
		write func(w io.Writer) error
	}{
		{LabelsFile, g.Labels != nil, func(w io.Writer) error { return writeLabels(w, g.Labels) }},
		{LabelNamesFile, g.Labels != nil && g.LabelNames != nil, func(w io.Writer) error { return writeLines(w, g.LabelNames) }},
		{EmbeddingsFile, g.WordVectors != nil, func(w io.Writer) error { return writeVectors(w, g.WordVectors, g.WordDim) }},
		{MetaFile, len(g.Fields) > 0, func(w io.Writer) error { return WriteMeta(w, g.Fields, g.NumDocs()) }},
		{IDsFile, g.DocIDs != nil, func(w io.Writer) error { return writeLines(w, g.DocIDs) }},
	}
	for _, o := range optional {
		if o.have {
			if err := atomicfile.WriteFile(path(o.name), o.write); err != nil {
				return err
			}
			continue
		}
		if err := os.Remove(path(o.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("corpus: remove stale %s: %w", path(o.name), err)
		}
	}
	return nil
}

// checkWritable verifies what the written files depend on, so that
// WriteFolder fails before writing anything rather than leaving a folder
// that LoadFolder rejects. Its errors name the problem; WriteFolder adds
// the prefix and the folder.
func checkWritable(g *Graph) error {
	n := g.NumDocs()
	if n < 1 || g.DocPtr[0] != 0 || g.DocPtr[n] != int64(len(g.Tokens)) {
		return errors.New("graph has no documents or inconsistent DocPtr")
	}
	if len(g.Vocab) == 0 {
		return errors.New("graph has an empty vocabulary")
	}
	for k, w := range g.Vocab {
		if err := checkLine(w); err != nil {
			return fmt.Errorf("word %d %q: %w", k, w, err)
		}
	}
	v := int32(len(g.Vocab))
	for k, w := range g.Tokens {
		if w < 0 || w >= v {
			return fmt.Errorf("token %d: word id %d outside the vocabulary of %d words", k, w, v)
		}
	}
	for k, l := range g.Links {
		if l[0] < 0 || l[1] < 0 || int(l[0]) >= n || int(l[1]) >= n {
			return fmt.Errorf("link %d (%d-%d) names a document outside [0,%d)", k, l[0], l[1], n)
		}
	}
	if g.Labels != nil {
		if len(g.Labels) != n {
			return fmt.Errorf("%d labels for %d documents", len(g.Labels), n)
		}
		for i, l := range g.Labels {
			if l < 0 || (g.LabelNames != nil && int(l) >= len(g.LabelNames)) {
				return fmt.Errorf("document %d has label %d without a name (%d names)", i, l, len(g.LabelNames))
			}
		}
		for k, name := range g.LabelNames {
			if err := checkLine(name); err != nil {
				return fmt.Errorf("label name %d %q: %w", k, name, err)
			}
		}
	}
	if g.DocIDs != nil {
		if len(g.DocIDs) != n {
			return fmt.Errorf("%d document ids for %d documents", len(g.DocIDs), n)
		}
		seen := make(map[string]bool, n)
		for i, id := range g.DocIDs {
			if err := checkLine(id); err != nil {
				return fmt.Errorf("id of document %d %q: %w", i, id, err)
			}
			if seen[id] {
				return fmt.Errorf("id of document %d %q: a duplicate", i, id)
			}
			seen[id] = true
		}
	}
	for _, f := range g.Fields {
		if len(f.Values) != n {
			return fmt.Errorf("field %q has %d values for %d documents", f.Name, len(f.Values), n)
		}
		if f.Name == "" || f.Name == LabelField {
			return fmt.Errorf("field name %q is empty or the built-in %q", f.Name, LabelField)
		}
	}
	if g.WordVectors != nil {
		if g.WordDim != EmbeddingsDim {
			return fmt.Errorf("word vectors have %d dimensions; %s holds %d", g.WordDim, EmbeddingsFile, EmbeddingsDim)
		}
		if len(g.WordVectors) != len(g.Vocab)*g.WordDim {
			return fmt.Errorf("%d word-vector values for %d words of %d dimensions", len(g.WordVectors), len(g.Vocab), g.WordDim)
		}
		for k, x := range g.WordVectors {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("word vector of word %d holds %v", k/g.WordDim, x)
			}
		}
	}
	return nil
}

// checkLine reports whether s would read back unchanged as one line.
func checkLine(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case !utf8.ValidString(s):
		return errors.New("not valid UTF-8")
	case strings.ContainsAny(s, "\n\r"):
		return errors.New("contains a line break")
	case strings.Trim(s, " \t") != s:
		return errors.New("has surrounding spaces")
	}
	return nil
}

// The writers below append to one reused byte slice and flush it in large
// pieces: no per-document allocation, which matters at 500,000 documents.
const flushAt = 64 << 10

// chunks is that reused slice: callers append to buf and call spill after
// each record; done writes the rest.
type chunks struct {
	w   io.Writer
	buf []byte
	err error
}

func newChunks(w io.Writer) *chunks { return &chunks{w: w, buf: make([]byte, 0, flushAt+256)} }

// spill writes buf once it holds flushAt bytes; after an error it keeps
// the first and drops what follows.
func (c *chunks) spill() {
	if len(c.buf) < flushAt {
		return
	}
	if c.err == nil {
		_, c.err = c.w.Write(c.buf)
	}
	c.buf = c.buf[:0]
}

func (c *chunks) done() error {
	if c.err == nil {
		_, c.err = c.w.Write(c.buf)
	}
	return c.err
}

func writeLines(w io.Writer, lines []string) error {
	c := newChunks(w)
	for _, s := range lines {
		c.buf = append(append(c.buf, s...), '\n')
		c.spill()
	}
	return c.done()
}

func writeContents(w io.Writer, g *Graph) error {
	c := newChunks(w)
	for i := 0; i < g.NumDocs(); i++ {
		for k, t := range g.Doc(i) {
			if k > 0 {
				c.buf = append(c.buf, ' ')
			}
			c.buf = strconv.AppendInt(c.buf, int64(t), 10)
			c.spill()
		}
		c.buf = append(c.buf, '\n')
	}
	return c.done()
}

func writeLinks(w io.Writer, links [][2]int32) error {
	c := newChunks(w)
	for _, l := range links {
		c.buf = strconv.AppendInt(c.buf, int64(l[0]), 10)
		c.buf = append(c.buf, ' ')
		c.buf = strconv.AppendInt(c.buf, int64(l[1]), 10)
		c.buf = append(c.buf, '\n')
		c.spill()
	}
	return c.done()
}

func writeLabels(w io.Writer, labels []int32) error {
	c := newChunks(w)
	for _, l := range labels {
		c.buf = append(strconv.AppendInt(c.buf, int64(l), 10), '\n')
		c.spill()
	}
	return c.done()
}

// writeVectors writes one row of dim floats per word, each the shortest
// decimal that reads back as the same float32.
func writeVectors(w io.Writer, vec []float32, dim int) error {
	c := newChunks(w)
	for i := 0; i < len(vec); i += dim {
		for k, x := range vec[i : i+dim] {
			if k > 0 {
				c.buf = append(c.buf, ' ')
			}
			c.buf = strconv.AppendFloat(c.buf, float64(x), 'g', -1, 32)
			c.spill()
		}
		c.buf = append(c.buf, '\n')
	}
	return c.done()
}
