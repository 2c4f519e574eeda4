package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// CorpusLinksFile is the file of a folder of new documents (ReadUpdate)
// that links them to the known corpus: one link per line, the new
// document's 0-based line in contents.txt and a known document's id.
const CorpusLinksFile = "corpus_links.txt"

// ReadUpdate reads new documents to add to the known corpus g for good
// (gtformer update): JSON Lines as ReadNewDocs reads them, or a folder.
//
// A labelled corpus needs every new document labelled with one of its
// labels (a JSON Lines "label", by name; a folder's labels.txt and
// label_names.txt), so that the union is labelled throughout; an
// unlabelled corpus ignores new labels.
//
// The folder form is a dataset folder of its own (voc.txt, contents.txt,
// links.txt among its own documents by line, optionally labels.txt,
// label_names.txt and ids.txt naming its documents; ids.txt is required
// when g names its documents by id) and optionally corpus_links.txt (links
// to g's documents: "LINE ID" per line). Its words are mapped into g's
// vocabulary by spelling, unknown words dropped and counted. Without
// ids.txt the new documents are named "new-K" (K their 0-based line).
//
// Errors name the file and line; an empty file or folder is an error.
func ReadUpdate(path string, g *Graph) (*NewDocs, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: new documents: %w", err)
	}
	if fi.IsDir() {
		return readUpdateFolder(path, g)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	return readUpdateJSONL(path, f, g)
}

func readUpdateJSONL(name string, r io.Reader, g *Graph) (*NewDocs, error) {
	nd, labels, lines, err := readNewDocLines(name, r, g, true)
	if err != nil {
		return nil, err
	}
	if err := g.newLabels(nd, labels, func(i int) (string, int) { return name, lines[i] }); err != nil {
		return nil, err
	}
	return nd, nil
}

// newLabels sets nd.Labels from the label names (one per new document,
// "" for none) when g is labelled; where(i) names the file and line of
// document i for errors.
func (g *Graph) newLabels(nd *NewDocs, names []string, where func(i int) (string, int)) error {
	if g.Labels == nil {
		return nil
	}
	byName := make(map[string]int32, len(g.LabelNames))
	for k, s := range g.LabelNames {
		byName[s] = int32(k)
	}
	nd.Labels = make([]int32, len(names))
	for i, s := range names {
		file, line := where(i)
		if s == "" {
			return parseErrorf(file, line, "no label: the corpus is labelled (%d labels), so every new document needs one of its labels", len(g.LabelNames))
		}
		k, ok := byName[s]
		if !ok {
			return parseErrorf(file, line, "label %q is not one of the corpus's %d labels", quote([]byte(s)), len(g.LabelNames))
		}
		nd.Labels[i] = k
	}
	return nil
}

func readUpdateFolder(dir string, g *Graph) (*NewDocs, error) {
	ng, err := LoadFolder(dir, LoadOptions{NoWordVectors: true})
	if err != nil {
		return nil, err
	}
	n := ng.NumDocs()
	contents := filepath.Join(dir, ContentsFile)
	if n == 0 {
		return nil, parseErrorf(contents, 0, "no documents")
	}
	if ng.DocIDs == nil && g.DocIDs != nil {
		return nil, parseErrorf(filepath.Join(dir, IDsFile), 0, "missing: the corpus names its documents by id, so the new ones need ids (one per line of %s)", ContentsFile)
	}
	vocab := make(map[string]int32, len(g.Vocab))
	for i, w := range g.Vocab {
		vocab[w] = int32(i)
	}
	mapped := make([]int32, len(ng.Vocab))
	for i, w := range ng.Vocab {
		mapped[i] = -1
		if v, ok := vocab[w]; ok {
			mapped[i] = v
		}
	}
	docs := make([]NewDoc, n)
	for i := range n {
		id := fmt.Sprintf("new-%d", i)
		if ng.DocIDs != nil {
			id = ng.DocIDs[i]
		}
		docs[i].ID = id
	}
	for _, l := range ng.Links {
		docs[l[0]].Links = append(docs[l[0]].Links, docs[l[1]].ID)
	}
	linksPath := filepath.Join(dir, CorpusLinksFile)
	if err := readCorpusLinks(linksPath, n, g, docs); err != nil {
		return nil, err
	}
	nd, err := g.ResolveNewDocs(docs, false)
	var de *NewDocError
	if errors.As(err, &de) {
		// The links are checked already: the problem is the id.
		file := contents
		if ng.DocIDs != nil {
			file = filepath.Join(dir, IDsFile)
		}
		return nil, parseErrorf(file, de.Doc+1, "%v", de.Err)
	}
	if err != nil {
		return nil, err
	}
	// The words by spelling, not through the tokenizer: a folder's
	// words are already the corpus's kind of words.
	for i := range n {
		var toks []int32
		for _, w := range ng.Doc(i) {
			if v := mapped[w]; v >= 0 {
				toks = append(toks, v)
			} else {
				nd.Unknown++
			}
		}
		nd.Tokens[i] = toks
	}
	names := make([]string, n)
	for i, l := range ng.Labels {
		names[i] = ng.LabelNames[l]
	}
	labelsPath := filepath.Join(dir, LabelsFile)
	if err := g.newLabels(nd, names, func(i int) (string, int) { return labelsPath, i + 1 }); err != nil {
		return nil, err
	}
	return nd, nil
}

// readCorpusLinks reads a folder's corpus_links.txt (optional) into the
// documents' links: "LINE ID", the new document's 0-based line and a
// known document's id (its DocIDs entry, or for a corpus without ids its
// 0-based line number).
func readCorpusLinks(path string, n int, g *Graph, docs []NewDoc) error {
	known := map[string]bool{}
	for _, id := range g.DocIDs {
		known[id] = true
	}
	err := readFile(path, false, func(r io.Reader, file string) error {
		return eachLine(r, file, func(line []byte, ln int) error {
			var toks [][]byte
			_ = fields(line, func(tok []byte) error {
				toks = append(toks, slices.Clone(tok))
				return nil
			})
			if len(toks) != 2 {
				return parseErrorf(file, ln, "want two fields, a new document's line (0-based) and a corpus document's id; got %d", len(toks))
			}
			k, ok := parseID(toks[0])
			if !ok || k < 0 || k >= int64(n) {
				return parseErrorf(file, ln, "%q is not a new document's 0-based line (%d documents)", quote(toks[0]), n)
			}
			id := string(toks[1])
			_, byLine := LineNumberID(id, g.NumDocs())
			if !known[id] && !(g.DocIDs == nil && byLine) {
				return parseErrorf(file, ln, "%q names no document of the corpus", quote(toks[1]))
			}
			docs[k].Links = append(docs[k].Links, id)
			return nil
		})
	})
	return err
}

// Subset returns the corpus of g's documents keep (ascending ids), in that
// order: their words, ids (nil stays nil), labels and fields, and the
// links among them; the vocabulary and word vectors are g's.
func (g *Graph) Subset(keep []int32) *Graph {
	s := *g
	s.Tokens, s.DocPtr = nil, []int64{0}
	s.DocIDs, s.Labels, s.Fields = nil, nil, nil
	at := make(map[int32]int32, len(keep))
	for i, d := range keep {
		at[d] = int32(i)
		s.Tokens = append(s.Tokens, g.Doc(int(d))...)
		s.DocPtr = append(s.DocPtr, int64(len(s.Tokens)))
		if g.DocIDs != nil {
			s.DocIDs = append(s.DocIDs, g.DocIDs[d])
		}
		if g.Labels != nil {
			s.Labels = append(s.Labels, g.Labels[d])
		}
	}
	for _, f := range g.Fields {
		vals := make([]string, len(keep))
		for i, d := range keep {
			vals[i] = f.Values[d]
		}
		f.Values = vals
		s.Fields = append(s.Fields, f)
	}
	var links [][2]int32
	for _, l := range g.Links {
		a, okA := at[l[0]]
		b, okB := at[l[1]]
		if okA && okB {
			links = append(links, [2]int32{a, b})
		}
	}
	s.SetLinks(links)
	return &s
}

// WriteNewDocsJSONL writes g's documents docs as the JSON Lines of new
// documents (ReadNewDocs, ReadUpdate): each named id(d), its words joined
// by spaces as its text, its label's name when g is labelled, and a link
// to each of its neighbours in g, named id(neighbour).
func (g *Graph) WriteNewDocsJSONL(w io.Writer, docs []int32, id func(d int32) string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	type rec struct {
		ID    string   `json:"id"`
		Text  string   `json:"text"`
		Links []string `json:"links,omitempty"`
		Label string   `json:"label,omitempty"`
	}
	var text []byte
	for _, d := range docs {
		text = text[:0]
		for i, t := range g.Doc(int(d)) {
			if i > 0 {
				text = append(text, ' ')
			}
			text = append(text, g.Vocab[t]...)
		}
		r := rec{ID: id(d), Text: string(text)}
		for _, n := range g.Neighbors(int(d)) {
			r.Links = append(r.Links, id(n))
		}
		if g.Labels != nil {
			r.Label = g.LabelNames[g.Labels[d]]
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
	}
	return nil
}
