// Package corpus holds a document graph: documents as word-id sequences, the
// vocabulary, bag-of-words counts, undirected links, optional labels, fields
// (year, venue, ...: fields.go) and word vectors, and the
// train/validation/test split of the paper's protocol.
//
// Storage is flat (CSR-style) so that graphs of 500,000 documents and
// millions of links fit in a few GB: no per-document slices are allocated.
//
// Data flow: Load (LoadFolder for the dataset folder format, LoadJSONL for
// raw text through Tokenize) gives a Graph; every problem in the input is a
// *ParseError naming file and line. A corpus without links can be linked by
// KNNGraph (tf-idf cosine, κ nearest neighbours). PaperSplit or RandomSplit
// divide it into training, validation and test documents and the link sets
// that follow; a Sampler draws each document's k neighbours per epoch as an
// (N, k) table; ComputeStats summarises it all.
package corpus

// Graph is a document graph. Document and word ids are 0-based int32.
type Graph struct {
	Name string // dataset name, e.g. "ml" or the folder's base name

	Vocab []string // word id -> word

	// Documents in CSR form: the words of document i are
	// Tokens[DocPtr[i]:DocPtr[i+1]] in reading order. len(DocPtr) = N+1.
	Tokens []int32
	DocPtr []int64

	// DocIDs are external ids (JSON Lines input); nil for the folder format,
	// where a document's id is its line number.
	DocIDs []string

	// Links are the undirected edges, each stored once with Links[k][0] <
	// Links[k][1], sorted, with duplicates and self-links dropped.
	Links [][2]int32
	// Adjacency in CSR form, built from Links: the neighbours of i are
	// AdjIdx[AdjPtr[i]:AdjPtr[i+1]], sorted ascending.
	AdjPtr []int64
	AdjIdx []int32
	// LinksInduced is true when Links came from the tf-idf kNN graph rather
	// than from the input.
	LinksInduced bool

	Labels     []int32  // per document, nil when unlabelled
	LabelNames []string // per label id; len = number of labels

	// Fields are the documents' own fields (JSON Lines "meta", a folder's
	// meta.jsonl), sorted by name, each with one value per document; nil
	// when the corpus has none. AllFields adds the labels.
	Fields []Field

	// WordVectors, when present, holds one row of WordDim floats per
	// vocabulary word: (V, WordDim) row-major.
	WordVectors []float32
	WordDim     int
}

// NumDocs is the number of documents.
func (g *Graph) NumDocs() int { return len(g.DocPtr) - 1 }

// Doc returns the word ids of document i (aliases g.Tokens).
func (g *Graph) Doc(i int) []int32 { return g.Tokens[g.DocPtr[i]:g.DocPtr[i+1]] }

// Neighbors returns the neighbours of document i in the full graph (aliases
// g.AdjIdx).
func (g *Graph) Neighbors(i int) []int32 { return g.AdjIdx[g.AdjPtr[i]:g.AdjPtr[i+1]] }

// Split is the paper's document split and the link sets that follow from it.
type Split struct {
	Train []int32 // training documents, validation included (their text is used)
	// Valid is the validation subset of Train: held out in training the
	// way test documents are (Holdout), labels never trained on.
	Valid []int32
	Test  []int32

	IsTest []bool // per document

	// TrainLinks are links whose two ends are both training documents.
	// Training itself sees only those of its Holdout (no validation
	// document at either end).
	TrainLinks [][2]int32
	// TestLinks are links among test documents, held out for link prediction.
	TestLinks [][2]int32
	// Neighbours for embedding: a training document's neighbours are its
	// training-link neighbours; a test document's are the training documents
	// it links to. CSR as in Graph.
	NbrPtr []int64
	NbrIdx []int32
}

// TrainNeighbors returns the neighbours document i may use under the split.
func (s *Split) TrainNeighbors(i int) []int32 { return s.NbrIdx[s.NbrPtr[i]:s.NbrPtr[i+1]] }

// TrainNeighbors32 is TrainNeighbors with an int32 id, the form the model's
// neighbour functions take.
func (s *Split) TrainNeighbors32(i int32) []int32 { return s.TrainNeighbors(int(i)) }
