package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names of the dataset folder format (see LoadFolder).
const (
	ContentsFile   = "contents.txt"
	LinksFile      = "links.txt"
	VocabFile      = "voc.txt"
	LabelsFile     = "labels.txt"
	LabelNamesFile = "label_names.txt"
	EmbeddingsFile = "word_embeddings_glove_300d.txt"
	// IDsFile names the documents (Graph.DocIDs), one id per document
	// line; without it a folder's documents are named by their 0-based
	// line numbers.
	IDsFile = "ids.txt"
	// EmbeddingsDim is the row width EmbeddingsFile must have.
	EmbeddingsDim = 300
)

// DefaultKNN is κ, the number of nearest neighbours per document in an
// induced link graph (the paper's choice for COVID).
const DefaultKNN = 5

// LoadOptions control loading. The zero value loads the data as it is.
type LoadOptions struct {
	// KNNLinks builds a tf-idf kNN link graph (see KNNGraph) when the corpus
	// has no links; the graph then has LinksInduced set. A folder may then
	// omit links.txt. A corpus that has links keeps them.
	KNNLinks bool
	KNN      KNNOptions

	// NoWordVectors skips the optional word-vector file.
	NoWordVectors bool

	// Tokenizer limits the vocabulary of JSON Lines input (ignored for
	// folders, whose vocabulary is given). The zero value keeps every word
	// that is not a stop word; DefaultTokenizer holds the recommended limits.
	Tokenizer TokenizerOptions
}

// Load reads a corpus from a dataset folder (LoadFolder) or a JSON Lines
// file (LoadJSONL), chosen by what path is.
func Load(path string, opt LoadOptions) (*Graph, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("corpus: %s: no such file or folder (expected a dataset folder or a .jsonl file)", path)
		}
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if fi.IsDir() {
		return LoadFolder(path, opt)
	}
	if !isJSONL(path) {
		return nil, fmt.Errorf("corpus: %s: not a dataset folder or a JSON Lines file (.jsonl)", path)
	}
	return LoadJSONL(path, opt)
}

// LoadFolder reads the dataset folder format, one folder per corpus:
//
//	contents.txt   one line per document: space-separated word ids (0-based into voc.txt)
//	links.txt      one line per link: two 0-based document ids (either direction,
//	               repeats and self-links allowed; they are dropped)
//	voc.txt        one word per line; line k is word id k
//	labels.txt     optional: one integer label per document line
//	label_names.txt  optional: line k names label k
//	meta.jsonl     optional: one JSON object of fields per document line ({} for none;
//	               see LoadJSONL's "meta")
//	ids.txt        optional: one document id per document line (Graph.DocIDs;
//	               without it a document's id is its 0-based line number)
//	word_embeddings_glove_300d.txt  optional: one row of 300 floats per word
//
// CRLF line ends, a missing final newline and lines of any length are
// accepted. links.txt may be absent when opt.KNNLinks is set. Every error
// is a *ParseError naming the file and, where there is one, the line.
func LoadFolder(dir string, opt LoadOptions) (*Graph, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("corpus: %s: not a dataset folder (expected %s, %s, %s)", dir, ContentsFile, LinksFile, VocabFile)
	}
	g := &Graph{Name: filepath.Base(filepath.Clean(dir))}
	path := func(name string) string { return filepath.Join(dir, name) }

	var err error
	if err = readFile(path(VocabFile), true, func(r io.Reader, f string) error {
		g.Vocab, err = parseVocab(r, f)
		return err
	}); err != nil {
		return nil, err
	}
	if err = readFile(path(ContentsFile), true, func(r io.Reader, f string) error {
		g.Tokens, g.DocPtr, err = parseContents(r, f, len(g.Vocab))
		return err
	}); err != nil {
		return nil, err
	}
	n := g.NumDocs()

	var links [][2]int32
	if err = readFile(path(LinksFile), !opt.KNNLinks, func(r io.Reader, f string) error {
		links, err = parseLinks(r, f, n)
		return err
	}); err != nil {
		if errors.Is(err, ErrMissingFile) {
			return nil, fmt.Errorf("%w (or pass the kNN option, --knn-links, to link documents by tf-idf similarity)", err)
		}
		return nil, err
	}
	g.SetLinks(links)

	if err = readFile(path(LabelsFile), false, func(r io.Reader, f string) error {
		g.Labels, err = parseLabels(r, f, n)
		return err
	}); err != nil {
		return nil, err
	}
	if err = readFile(path(LabelNamesFile), false, func(r io.Reader, f string) error {
		g.LabelNames, err = parseLabelNames(r, f)
		return err
	}); err != nil {
		return nil, err
	}
	switch {
	case g.Labels != nil && g.LabelNames != nil:
		if err := checkLabelNames(g.Labels, g.LabelNames, path(LabelsFile), path(LabelNamesFile)); err != nil {
			return nil, err
		}
	case g.Labels != nil:
		// Without label_names.txt the labels name themselves.
		g.LabelNames = numberNames(g.Labels)
	case g.LabelNames != nil:
		g.LabelNames = nil // names without labels say nothing about documents
	}

	if err = readFile(path(MetaFile), false, func(r io.Reader, f string) error {
		g.Fields, err = parseMeta(r, f, n)
		return err
	}); err != nil {
		return nil, err
	}

	if err = readFile(path(IDsFile), false, func(r io.Reader, f string) error {
		g.DocIDs, err = parseIDs(r, f, n)
		return err
	}); err != nil {
		return nil, err
	}

	if !opt.NoWordVectors {
		if err = readFile(path(EmbeddingsFile), false, func(r io.Reader, f string) error {
			g.WordVectors, err = parseEmbeddings(r, f, len(g.Vocab), EmbeddingsDim)
			return err
		}); err != nil {
			return nil, err
		}
		if g.WordVectors != nil {
			g.WordDim = EmbeddingsDim
		}
	}

	if opt.KNNLinks && len(g.Links) == 0 {
		g.SetLinks(KNNGraph(g, opt.KNN))
		g.LinksInduced = true
	}
	return g, nil
}

// readFile opens path and hands it to parse; a missing file is an error
// only when required.
func readFile(path string, required bool, parse func(r io.Reader, file string) error) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if !required {
				return nil
			}
			return &ParseError{File: path, Err: ErrMissingFile}
		}
		return &ParseError{File: path, Err: err}
	}
	defer f.Close()
	return parse(f, path)
}

// numberNames names labels 0..max by their numbers.
func numberNames(labels []int32) []string {
	top := int32(-1)
	for _, l := range labels {
		top = max(top, l)
	}
	names := make([]string, top+1)
	for i := range names {
		names[i] = fmt.Sprint(i)
	}
	return names
}

// isJSONL reports whether a file name looks like JSON Lines.
func isJSONL(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".jsonl" || ext == ".ndjson" || ext == ".json"
}
