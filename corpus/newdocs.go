package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// NewDocs are documents that were not in a corpus when a model was trained,
// read against that corpus: their words mapped into its vocabulary (unknown
// words dropped) and their links resolved to its documents or to each other.
type NewDocs struct {
	IDs    []string
	Tokens [][]int32
	// Links name documents of the extended graph: ids below the known
	// corpus's NumDocs() are known documents, the rest are the new ones in
	// order (known + i).
	Links   [][2]int32
	Unknown int // words dropped because the vocabulary lacks them
	// Labels are the new documents' label ids in the known corpus's
	// labels (ReadUpdate of a labelled corpus); nil: unlabelled, which
	// Extend records as -1.
	Labels []int32
	// UnknownLinks are the links left out because they name no document
	// (ResolveNewDocs with dropUnknown; empty otherwise).
	UnknownLinks []UnknownLink
}

// ReadNewDocs reads JSON Lines of new documents, {"id": ..., "text": ...,
// "links": [...]}, against the known corpus g; a "label", as the corpus
// format has, is accepted and not used. A link names a known document by
// its id (DocIDs for a JSON Lines corpus; for a folder corpus its 0-based
// document id, the line of contents.txt counted from 0, as a string or a
// number) or another new document by its id. A new document's id must not
// be a known document's id (for a folder corpus: must not read as a number
// from 0 to NumDocs()-1), so that every link names one document. Errors
// name the file and line.
func ReadNewDocs(path string, g *Graph) (*NewDocs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	return readNewDocs(path, f, g)
}

func readNewDocs(name string, r io.Reader, g *Graph) (*NewDocs, error) {
	nd, _, _, err := readNewDocLines(name, r, g, false)
	return nd, err
}

// readNewDocLines reads JSON Lines of new documents against g (as
// ReadNewDocs) and returns, per document, the line it was read from and,
// withLabels, its "label" as a string ("" for none); without, a label is
// not read at all.
func readNewDocLines(name string, r io.Reader, g *Graph, withLabels bool) (nd *NewDocs, labels []string, lines []int, err error) {
	var docs []NewDoc
	lr := newLineReader(r)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, &ParseError{File: name, Line: lr.line + 1, Err: err}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id, text, links, err := ParseNewDocLine(line)
		if err != nil {
			return nil, nil, nil, parseErrorf(name, lr.line, "%v", err)
		}
		if withLabels {
			var rec struct {
				Label json.RawMessage `json:"label"`
			}
			_ = json.Unmarshal(line, &rec) // ParseNewDocLine read the line
			label := ""
			if len(rec.Label) > 0 && string(rec.Label) != "null" {
				if label, err = idString(rec.Label); err != nil {
					return nil, nil, nil, parseErrorf(name, lr.line, "label: %v", err)
				}
			}
			labels = append(labels, label)
		}
		docs = append(docs, NewDoc{ID: id, Text: text, Links: links})
		lines = append(lines, lr.line)
	}
	if len(docs) == 0 {
		return nil, nil, nil, parseErrorf(name, 0, "no documents")
	}
	nd, err = g.ResolveNewDocs(docs, false)
	var de *NewDocError
	if errors.As(err, &de) {
		return nil, nil, nil, parseErrorf(name, lines[de.Doc], "%v", de.Err)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return nd, labels, lines, nil
}

// NewDoc is one new document as a reader gives it: its id, raw text and
// the ids of the documents it links to.
type NewDoc struct {
	ID    string
	Text  string
	Links []string
}

// UnknownLink is a link of a new document that names no document: Doc is
// the new document's index, ID the id its link gives.
type UnknownLink struct {
	Doc int
	ID  string
}

// NewDocError is a problem with the new document at index Doc. Err names
// the problem alone, for a caller that says where the document came from;
// the message reads "corpus: new document DOC: PROBLEM".
type NewDocError struct {
	Doc int
	Err error
}

func (e *NewDocError) Error() string {
	return fmt.Sprintf("%snew document %d: %s", prefix, e.Doc, problem(e.Err))
}

func (e *NewDocError) Unwrap() error { return e.Err }

// ResolveNewDocs maps new documents into g: their text tokenized into g's
// vocabulary (unknown words dropped and counted) and their links resolved
// to g's documents (by id, DocIDs for a JSON Lines corpus; the 0-based line
// number of contents.txt for a folder corpus) or to each other (a link may
// name a document that comes later). A link that names no document is an
// error, or, with dropUnknown, left out and listed in UnknownLinks (for a
// caller that reports it, such as an HTTP API). Problems with one document
// (an empty or duplicate id, an unknown link) are *NewDocError.
func (g *Graph) ResolveNewDocs(docs []NewDoc, dropUnknown bool) (*NewDocs, error) {
	vocab := make(map[string]int32, len(g.Vocab))
	for i, w := range g.Vocab {
		vocab[w] = int32(i)
	}
	known := map[string]int32{}
	for i, id := range g.DocIDs {
		known[id] = int32(i)
	}
	nd := &NewDocs{}
	newID := make(map[string]int32, len(docs))
	for i, d := range docs {
		if d.ID == "" {
			return nil, &NewDocError{i, errors.New("id: missing or empty")}
		}
		if _, dup := newID[d.ID]; dup {
			return nil, &NewDocError{i, fmt.Errorf("duplicate id %q", d.ID)}
		}
		if k, ok := known[d.ID]; ok {
			return nil, &NewDocError{i, KnownIDError(d.ID, int(k), false)}
		}
		if k, ok := LineNumberID(d.ID, g.NumDocs()); ok && g.DocIDs == nil {
			return nil, &NewDocError{i, KnownIDError(d.ID, k, true)}
		}
		newID[d.ID] = int32(g.NumDocs() + i)
		var toks []int32
		for _, w := range Tokenize(d.Text) {
			if v, ok := vocab[w]; ok {
				toks = append(toks, v)
			} else {
				nd.Unknown++
			}
		}
		nd.IDs = append(nd.IDs, d.ID)
		nd.Tokens = append(nd.Tokens, toks)
	}
	// Links are resolved after every id is known, so a new document may
	// link to one that comes later.
	for i, d := range docs {
		from := int32(g.NumDocs() + i)
		for _, s := range d.Links {
			to, ok := newID[s]
			if !ok {
				to, ok = known[s]
			}
			if !ok && g.DocIDs == nil {
				if k, isDoc := LineNumberID(s, g.NumDocs()); isDoc {
					to, ok = int32(k), true
				}
			}
			switch {
			case ok:
				nd.Links = append(nd.Links, [2]int32{from, to})
			case dropUnknown:
				nd.UnknownLinks = append(nd.UnknownLinks, UnknownLink{Doc: i, ID: s})
			default:
				return nil, &NewDocError{i, fmt.Errorf("link names document %q, which is neither a known document nor a new one", s)}
			}
		}
	}
	return nd, nil
}

// LineNumberID returns the document a folder corpus of n documents names
// by id: its 0-based line number, written as a decimal integer (leading
// zeros and a sign allowed, as strconv.Atoi reads it).
func LineNumberID(id string, n int) (doc int, ok bool) {
	k, err := strconv.Atoi(id)
	if err != nil || k < 0 || k >= n {
		return 0, false
	}
	return k, true
}

// KnownIDError is the problem of a new document whose id names document
// doc of the known corpus: by its id, or, byNumber, as a folder corpus
// names its documents (LineNumberID). Every reader of new documents
// refuses such a document with it, so that a link names one document.
func KnownIDError(id string, doc int, byNumber bool) error {
	if byNumber {
		return fmt.Errorf("id %q reads as document %d of the corpus (a folder corpus's documents are named by their 0-based ids): a new document needs an id of its own", id, doc)
	}
	return fmt.Errorf("id %q is already a document of the corpus: a new document needs an id of its own", id)
}

// ParseID reads a document id given in JSON, a non-empty string or an
// integer (as the JSON Lines of new documents give them), as a string.
func ParseID(raw json.RawMessage) (string, error) { return idString(raw) }

// ParseNewDocLine reads one line of new documents' JSON Lines, {"id": ...,
// "text": ..., "links": [...]}: the id and each link a string or an
// integer (returned as its decimal text), the text required, the links
// optional. A "label" (as a JSON Lines corpus's documents carry) is
// accepted and ignored, so held-out corpus records can be embedded as they
// are; any other field is an error, and so is a line that is not valid
// UTF-8 (JSON decoding would replace its bytes without a word). Errors
// name the problem, not the file and line: the caller knows those. It is
// the one reader of a new document: `gtformer embed --new`, gtformer-beam
// and serve's POST /v1/embed (each of its "docs" as one line) use it, so
// they accept the same documents and refuse the same ones in the same
// words.
func ParseNewDocLine(line []byte) (id, text string, links []string, err error) {
	// Not checkUTF8's advice to save a file: the line may be a document
	// of an HTTP request (serve's POST /v1/embed reads each with this).
	if i := invalidUTF8At(line); i < len(line) {
		return "", "", nil, fmt.Errorf("not valid UTF-8 (byte %d of the line is 0x%02x): write the documents as UTF-8", i+1, line[i])
	}
	var rec struct {
		ID    json.RawMessage   `json:"id"`
		Text  *string           `json:"text"`
		Links []json.RawMessage `json:"links"`
		Label json.RawMessage   `json:"label"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ) && typ.Field == "":
			return "", "", nil, fmt.Errorf(`want a JSON object {"id": ..., "text": ..., "links": [...]}, got %s`, typ.Value)
		case errors.As(err, &typ):
			want := map[string]string{"text": "a string", "links": "an array of ids"}[typ.Field]
			return "", "", nil, fmt.Errorf("field %q must be %s, got %s", typ.Field, want, typ.Value)
		}
		return "", "", nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if bytes.Equal(bytes.TrimSpace(line), []byte("null")) {
		return "", "", nil, errors.New(`want a JSON object {"id": ..., "text": ..., "links": [...]}, got null`)
	}
	if dec.More() {
		return "", "", nil, errors.New("invalid JSON: more than one value on the line")
	}
	if id, err = idString(rec.ID); err != nil {
		return "", "", nil, fmt.Errorf("id: %v", err)
	}
	if rec.Text == nil {
		return "", "", nil, fmt.Errorf("document %q has no \"text\"", id)
	}
	for _, l := range rec.Links {
		s, err := idString(l)
		if err != nil {
			return "", "", nil, fmt.Errorf("link: %v", err)
		}
		links = append(links, s)
	}
	return id, *rec.Text, links, nil
}

// idString reads a JSON string or integer id.
func idString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("missing")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", errors.New("empty")
		}
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return "", fmt.Errorf("want a string or an integer, got %s", raw)
	}
	if _, err := n.Int64(); err != nil {
		return "", fmt.Errorf("want a string or an integer, got %s", raw)
	}
	return n.String(), nil
}

// ExtendedNeighbors returns the neighbour lists of g extended by nd, as
// Extend(nd).Neighbors gives them (sorted ids, no duplicates, no
// self-links), in time linear in nd's links: a known document's list is
// its own followed by the new documents it links to (whose ids are all
// larger), a new document's the distinct documents it links to. ok is
// false when a link has no new end or names no document of the extended
// graph (Extend's own checks then apply).
func (g *Graph) ExtendedNeighbors(nd *NewDocs) (nbrs func(d int32) []int32, ok bool) {
	known, total := int32(g.NumDocs()), int32(g.NumDocs()+len(nd.Tokens))
	added := map[int32][]int32{}
	for _, l := range nd.Links {
		a, b := l[0], l[1]
		if a < 0 || b < 0 || a >= total || b >= total || (a < known && b < known) {
			return nil, false
		}
		if a != b {
			added[a] = append(added[a], b)
			added[b] = append(added[b], a)
		}
	}
	for d, l := range added {
		slices.Sort(l)
		l = slices.Compact(l)
		if d < known {
			l = append(slices.Clone(g.Neighbors(int(d))), l...)
		}
		added[d] = l
	}
	return func(d int32) []int32 {
		if l, ok := added[d]; ok || d >= known {
			return l
		}
		return g.Neighbors(int(d))
	}, true
}

// Extend returns a graph holding g's documents followed by the new ones,
// with g's links and the new links (g is not modified; its arrays are
// copied where they grow).
func (g *Graph) Extend(nd *NewDocs) *Graph {
	e := *g
	e.Tokens = append([]int32(nil), g.Tokens...)
	e.DocPtr = append([]int64(nil), g.DocPtr...)
	for _, t := range nd.Tokens {
		e.Tokens = append(e.Tokens, t...)
		e.DocPtr = append(e.DocPtr, int64(len(e.Tokens)))
	}
	if g.Labels != nil {
		e.Labels = append(append([]int32(nil), g.Labels...), make([]int32, len(nd.Tokens))...)
		for i := g.NumDocs(); i < len(e.Labels); i++ {
			e.Labels[i] = -1
			if nd.Labels != nil {
				e.Labels[i] = nd.Labels[i-g.NumDocs()]
			}
		}
	}
	e.Fields = nil
	for _, f := range g.Fields {
		f.Values = append(slices.Clone(f.Values), make([]string, len(nd.Tokens))...)
		e.Fields = append(e.Fields, f)
	}
	if g.DocIDs != nil {
		e.DocIDs = append(append([]string(nil), g.DocIDs...), nd.IDs...)
	}
	links := append(append([][2]int32(nil), g.Links...), nd.Links...)
	e.SetLinks(links)
	return &e
}
