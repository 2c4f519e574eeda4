// Package corpusstates holds a trained corpus as the neighbours of new
// documents. Embedding a new document reads, for each document it links
// to, that document's [CLS] states after layers 1..L-1; with two hops
// (Config.NestedNeighbors) a linked corpus document is itself re-encoded
// over its own neighbours, which then include the new documents that link
// to it, so its words and links are needed as well. This package keeps
// exactly that, per corpus document: its id, words, links and own-text
// states under one model, in two files beside the model:
//
//	corpus_states.json   Meta: format, sizes, the vocabulary, the SHA-256 of
//	                     the weights the states were computed with
//	corpus_states.jsonl  one Record per line: {"id", "index", "words",
//	                     "links", "states"}, states as base64 of
//	                     little-endian float32 (Layers, Width)
//
// A worker that embeds new documents then needs neither the corpus nor a
// pass over it: gtformer-beam reads the lines as a collection and joins
// the ones it needs on the link ids. `gtformer embed --export-states`
// writes the files (Export).
package corpusstates

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
)

// File names and format tag.
const (
	MetaFile    = "corpus_states.json"
	RecordsFile = "corpus_states.jsonl"
	Format      = "gtformer-corpus-states/1"
)

// Meta describes a states export.
type Meta struct {
	Format string `json:"format"`
	Docs   int    `json:"docs"`   // corpus documents (records)
	Layers int    `json:"layers"` // states per document: the model's layers − 1 (0 for a model that reads no neighbours)
	Width  int    `json:"width"`  // n
	// LineNumberIDs is true for a folder corpus, whose documents are named
	// by their 0-based line number in contents.txt (record ids "0", "1",
	// ...); a link may then also write the number as 7 or "007".
	LineNumberIDs bool `json:"line_number_ids"`
	// WeightsSHA256 is the hex SHA-256 of the weights file the states were
	// computed with: states of other weights are refused.
	WeightsSHA256 string   `json:"weights_sha256"`
	Vocab         []string `json:"vocab"` // the corpus's (and model's) vocabulary; word ids index it
}

// Record is one corpus document.
type Record struct {
	ID    string  // external id (the line number for a folder corpus)
	Index int32   // row in the corpus, 0-based: the order neighbour lists are sorted in
	Words []int32 // word ids into Meta.Vocab, the whole document in reading order
	Links []int32 // indices of the documents it links to, ascending
	// States are the own-text [CLS] after layers 1..L-1, (Layers, Width)
	// row-major: model.Cache rows of this document.
	States []float32
}

// recordJSON is Record's line: states as base64 of little-endian float32,
// compact and exact.
type recordJSON struct {
	ID     string  `json:"id"`
	Index  int32   `json:"index"`
	Words  []int32 `json:"words"`
	Links  []int32 `json:"links"`
	States string  `json:"states"`
}

// MarshalJSON writes the record's line.
func (r *Record) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 4*len(r.States))
	for _, v := range r.States {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return json.Marshal(recordJSON{ID: r.ID, Index: r.Index, Words: nonNil(r.Words), Links: nonNil(r.Links),
		States: base64.StdEncoding.EncodeToString(b)})
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// ParseRecord reads one line of RecordsFile and checks it against meta:
// a non-empty id, index, word ids and link indices in range, no link to
// itself, Layers·Width finite states. Errors name the problem (and the id
// when it was read), not the package, the file or the line: the caller
// reports them where it read the line.
func ParseRecord(line []byte, meta *Meta) (*Record, error) {
	var rj recordJSON
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rj); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: more than one value on the line")
	}
	if rj.ID == "" {
		return nil, errors.New("missing or empty id")
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("document %q: %s", rj.ID, fmt.Sprintf(format, a...))
	}
	if rj.Index < 0 || int(rj.Index) >= meta.Docs {
		return nil, fail("index %d outside [0, %d)", rj.Index, meta.Docs)
	}
	for _, w := range rj.Words {
		if w < 0 || int(w) >= len(meta.Vocab) {
			return nil, fail("word id %d outside the vocabulary (%d words)", w, len(meta.Vocab))
		}
	}
	for _, l := range rj.Links {
		if l < 0 || int(l) >= meta.Docs || l == rj.Index {
			return nil, fail("link to %d: not another document of [0, %d)", l, meta.Docs)
		}
	}
	raw, err := base64.StdEncoding.DecodeString(rj.States)
	if err != nil {
		return nil, fail("states: %v", err)
	}
	if want := 4 * meta.Layers * meta.Width; len(raw) != want {
		return nil, fail("states hold %d bytes, want %d (%d layers × width %d × 4)", len(raw), want, meta.Layers, meta.Width)
	}
	r := &Record{ID: rj.ID, Index: rj.Index, Words: rj.Words, Links: rj.Links, States: make([]float32, len(raw)/4)}
	for i := range r.States {
		v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fail("state %d is %v", i, v)
		}
		r.States[i] = v
	}
	return r, nil
}

// ReadMeta reads and checks MetaFile's content (name is for errors, which
// read "corpusstates: NAME: PROBLEM").
func ReadMeta(r io.Reader, name string) (*Meta, error) {
	var m Meta
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("corpusstates: %s: %w", name, err)
	}
	switch {
	case m.Format != Format:
		return nil, fmt.Errorf("corpusstates: %s: format %q, want %q", name, m.Format, Format)
	case m.Docs < 1 || m.Width < 1 || m.Layers < 0:
		return nil, fmt.Errorf("corpusstates: %s: %d documents, %d layers of width %d", name, m.Docs, m.Layers, m.Width)
	case len(m.Vocab) == 0:
		return nil, fmt.Errorf("corpusstates: %s: no vocabulary", name)
	case len(m.WeightsSHA256) != 64:
		return nil, fmt.Errorf("corpusstates: %s: weights_sha256 %q is not a SHA-256", name, m.WeightsSHA256)
	}
	return &m, nil
}

// StateLayers is the number of per-layer states m keeps for a neighbour:
// its layers − 1, or 0 when it reads no neighbours.
func StateLayers(m *model.Model) int {
	if m.Cfg.Layers < 2 || m.Cfg.NoGraph {
		return 0
	}
	return m.Cfg.Layers - 1
}

// exportChunk is how many documents' states are computed at a time, so
// that exporting a corpus of any size holds a bounded number of them.
const exportChunk = 4096

// Write writes the records of every document of g under m to w, in
// document order, computing own-text states batch documents at a time.
func Write(w io.Writer, m *model.Model, g *corpus.Graph, batch int) error {
	if err := checkModel(m); err != nil {
		return err
	}
	layers := StateLayers(m)
	// Hop features (HopWidth floats a document) are propagated over the
	// whole corpus's links, as Inputs propagates them when it embeds the
	// corpus: the states are those of the trained corpus. New documents
	// change the features of the corpus documents within FeatureHops links
	// of them, so a reader that embeds new documents recomputes those
	// (gtformer-beam recomputes every state it reads for such a model, from
	// the records' words and links).
	var hop []float32
	hw := m.HopWidth()
	if hw > 0 {
		hop = m.Inputs(g, func(d int32) []int32 { return g.Neighbors(int(d)) }).Hop
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	for lo := 0; lo < g.NumDocs(); lo += exportChunk {
		hi := min(lo+exportChunk, g.NumDocs())
		words := make([][]int32, hi-lo)
		local := make([]int32, hi-lo)
		for i := range words {
			words[i] = g.Doc(lo + i)
			local[i] = int32(i)
		}
		in := m.DocInputs(words)
		if hw > 0 {
			in.Hop, in.HopWidth = hop[lo*hw:hi*hw], hw
		}
		c := m.NewCache(hi - lo)
		m.Refresh(c, in, local, batch)
		for i := range words {
			r := &Record{Index: int32(lo + i), Words: words[i], Links: g.Neighbors(lo + i),
				States: make([]float32, 0, layers*m.Cfg.Width)}
			if g.DocIDs != nil {
				r.ID = g.DocIDs[lo+i]
			} else {
				r.ID = strconv.Itoa(lo + i)
			}
			for l := range layers {
				r.States = append(r.States, c.Row(l, i)...)
			}
			line, err := r.MarshalJSON()
			if err != nil {
				return err
			}
			bw.Write(line)
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// checkModel reports what m lacks to compute states.
func checkModel(m *model.Model) error {
	if m.IDF == nil {
		return errors.New("corpusstates: the model's weights carry no idf")
	}
	if m.Cfg.FeatureHops > 0 && m.LSA == nil {
		return errors.New("corpusstates: the model reads hop features and its weights carry no basis for them")
	}
	return nil
}

// Export writes MetaFile and RecordsFile into dir (usually the model's
// directory), each atomically, the records first: m is the model loaded
// from modelDir (whose weights file's SHA-256 ties the states to it), g
// the corpus it was trained on.
func Export(dir, modelDir string, m *model.Model, g *corpus.Graph, batch int) error {
	if len(g.Vocab) != m.Cfg.Vocab {
		return fmt.Errorf("corpusstates: the corpus has %d words, the model %d", len(g.Vocab), m.Cfg.Vocab)
	}
	// Checked before writing, so that what fails later is the writing.
	if err := checkModel(m); err != nil {
		return err
	}
	sum, err := model.SavedWeightsSHA256(modelDir)
	if err != nil {
		return fmt.Errorf("corpusstates: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("corpusstates: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, RecordsFile), func(w io.Writer) error {
		return Write(w, m, g, batch)
	}); err != nil {
		return fmt.Errorf("corpusstates: %w", err)
	}
	meta := Meta{Format: Format, Docs: g.NumDocs(), Layers: StateLayers(m), Width: m.Cfg.Width,
		LineNumberIDs: g.DocIDs == nil, WeightsSHA256: sum, Vocab: g.Vocab}
	if err := atomicfile.WriteJSON(filepath.Join(dir, MetaFile), meta); err != nil {
		return fmt.Errorf("corpusstates: %w", err)
	}
	return nil
}
