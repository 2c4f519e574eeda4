// Package explore holds what the topic-tree explorer shows about a trained
// model and its corpus, and the explorer page itself.
//
// An Index is built once from a model, its corpus and every document's
// embedding and topic distribution θ; it is read-only afterwards but for
// the topics' user labels (Rename, under the index's own lock), and safe
// for concurrent use. It answers the questions the page asks: the tree
// with each topic's share and words (by weight, and by lift over the
// parent), a topic's representative documents, a document's top topics,
// path and nearest documents by the model's distance, the topics where a
// word ranks highest, and the Poincaré-disk layout (layout.go). The
// answers are plain structs whose JSON is the HTTP API's (package serve)
// and the data a report inlines (report.go).
//
// The page (assets/, embedded with go:embed) is the project's own plain
// JavaScript and SVG: no third-party code, no CDN, no build step.
package explore

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/csvsafe"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/tensor"
)

// Sizes of the answers.
const (
	TreeWords     = 10 // words per node in the tree
	DocTopics     = 5  // top topics of a document
	Nearest       = 10 // nearest documents of a document
	SnippetWords  = 12 // words of a document shown beside its id
	DocumentWords = 60 // words shown in a document's panel
	// MaxRanked bounds a topic's representative-document list (and so its
	// pages): the documents with the highest θ for that topic.
	MaxRanked = 10000
)

// Index is the read-only view of a model and its corpus.
type Index struct {
	m   *model.Model
	g   *corpus.Graph
	emb *model.Embeddings // every document, in document order

	info   Info
	nodes  []Node          // dense row order
	topics []outputs.Topic // dense row order: words by weight and by lift
	rowOf  map[int]int     // topic id -> dense row
	beta   []float32       // (T, V) topic-word distributions
	docOf  map[string]int  // external id -> document index
	docs   []int32         // per topic row: documents whose path passes through it (count)

	layout *layout
	labels labels

	rankOnce []sync.Once
	ranked   [][]int32 // per topic row: documents by θ_t descending (at most MaxRanked)

	knownOnce sync.Once
	known     *model.KnownCorpus

	maps *maps // fields, facets and link maps (maps.go)
}

// Info describes the model and corpus (GET /v1/info).
type Info struct {
	Dataset   string   `json:"dataset"`
	Geometry  string   `json:"geometry"`  // "hyperbolic" or "euclidean"
	Dim       int      `json:"dim"`       // n: tangent dimension; points have n+1 coordinates
	Curvature float64  `json:"curvature"` // K: the hyperboloid has curvature −1/K
	Topics    int      `json:"topics"`
	Levels    int      `json:"levels"`
	Documents int      `json:"documents"`
	Links     int      `json:"links"`
	Vocab     int      `json:"vocab"`
	Labels    []string `json:"labels"` // label names; empty when the corpus has none
	// ModelSHA256 is the SHA-256 of weights.safetensors.
	ModelSHA256 string `json:"model_sha256"`
	// Embeddings says where the documents' embeddings came from:
	// "doc_embeddings.npy" (the training run's) or "computed" (embedded
	// through every link when the files were absent or of another corpus).
	Embeddings string `json:"embeddings"`
	// Fields are the documents' fields, the labels among them (Facets);
	// empty when the corpus has none.
	Fields []FieldInfo `json:"fields"`
}

// Word is a word with its probability under a topic and, among the words
// by lift, its lift over the parent: topics.json's entries
// (outputs.WordProb), the one owner of how topic words are chosen.
type Word = outputs.WordProb

// Node is one topic of the tree (GET /v1/tree lists them in breadth-first
// order). Share is s_t, the topic's share of the corpus's words under θ;
// Docs counts the documents whose path (Index.Path) passes through it.
type Node struct {
	ID       int     `json:"id"`
	Parent   int     `json:"parent"` // -1 for the root
	Level    int     `json:"level"`
	Share    float64 `json:"share"`
	Docs     int     `json:"docs"`
	Children []int   `json:"children"`
	Words    []Word  `json:"words"`
	// Label names the topic: the user's (LabelSource "user") or the
	// automatic one (LabelSource "auto"; outputs.AutoLabels).
	Label       string `json:"label"`
	LabelSource string `json:"label_source"`
}

// DocRef names a document with a snippet of its words.
type DocRef struct {
	ID      string  `json:"id"`
	Label   string  `json:"label,omitempty"`
	Snippet string  `json:"snippet"`
	Theta   float64 `json:"theta,omitempty"` // the topic's θ, in a topic's list
}

// TopicWeight is a topic's weight in a document's θ.
type TopicWeight struct {
	ID     int     `json:"id"`
	Weight float64 `json:"weight"`
}

// Topic is a topic's details (GET /v1/topics/{id}).
type Topic struct {
	Node
	Path      []int    `json:"path"`            // ids from the root to this topic
	Sub       []Node   `json:"subtopics"`       // the children, with their top words
	ByWeight  []Word   `json:"words_by_weight"` // top 20 by β_t
	ByLift    []Word   `json:"words_by_lift"`   // top 20 by relevance to the parent (outputs.LiftRelevance); none for the root
	Documents []DocRef `json:"documents"`       // representative: highest θ_t first
	Total     int      `json:"documents_total"`
	Next      string   `json:"next_cursor,omitempty"`
}

// Neighbor is a document at a distance.
type Neighbor struct {
	DocRef
	Distance float64 `json:"distance"`
}

// Document is a document's details (GET /v1/documents/{id}).
type Document struct {
	ID     string        `json:"id"`
	Label  string        `json:"label,omitempty"`
	Length int           `json:"length"` // words in the vocabulary
	Text   string        `json:"text"`   // its first DocumentWords words
	Topics []TopicWeight `json:"topics"` // top DocTopics of θ
	// Fields are the document's fields by name (the label among them),
	// numbers as numbers; absent when it has none.
	Fields  map[string]any `json:"fields,omitempty"`
	Path    []int          `json:"path"`
	Nearest []Neighbor     `json:"nearest"`
}

// WordHit is where a word ranks in one topic (1 = the topic's most
// probable word).
type WordHit struct {
	Topic  int     `json:"topic"`
	Rank   int     `json:"rank"`
	Weight float64 `json:"weight"`
}

// WordTopics answers a word search (GET /v1/words/{word}).
type WordTopics struct {
	Word   string    `json:"word"`
	Topics []WordHit `json:"topics"`
}

// ErrNotFound marks an unknown topic, document or word.
var ErrNotFound = errors.New("not found")

// Open builds the index of the model in dir for the corpus g (the one it
// was trained on): the documents' embeddings and θ come from the run's
// doc_embeddings.npy and doc_topics.npy when they have g's documents, and
// are computed through every link of g otherwise.
func Open(dir string, m *model.Model, g *corpus.Graph) (*Index, error) {
	hash, err := model.SavedWeightsSHA256(dir)
	if err != nil {
		return nil, err
	}
	emb, source, err := loadEmbeddings(dir, m, g)
	if err != nil {
		return nil, err
	}
	ix, err := New(m, g, emb)
	if err != nil {
		return nil, err
	}
	ix.info.ModelSHA256, ix.info.Embeddings = hash, source
	// The fields the model folder kept of its corpus, when its θ is this
	// corpus's; the corpus's own otherwise.
	if source != "computed" {
		fields, err := readModelFields(dir, g.NumDocs())
		if err != nil {
			return nil, err
		}
		if fields != nil {
			ix.setFields(fields)
		}
	}
	return ix, nil
}

// loadEmbeddings reads the training run's embeddings and θ when their
// shapes fit g and the model, and computes them otherwise.
func loadEmbeddings(dir string, m *model.Model, g *corpus.Graph) (*model.Embeddings, string, error) {
	n, T, N := m.Cfg.Width, m.Topics.Tables().T, g.NumDocs()
	pts, ps, err1 := npy.ReadAs[float32](filepath.Join(dir, "doc_embeddings.npy"))
	theta, ts, err2 := npy.ReadAs[float32](filepath.Join(dir, "doc_topics.npy"))
	if err1 == nil && err2 == nil && slices.Equal(ps, []int{N, n + 1}) && slices.Equal(ts, []int{N, T}) {
		return &model.Embeddings{Width: n, Topics: T, Points: pts, Theta: theta}, "doc_embeddings.npy", nil
	}
	for _, err := range []error{err1, err2} {
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, "", err
		}
	}
	all := make([]int32, N)
	for i := range all {
		all[i] = int32(i)
	}
	nbrs := func(i int32) []int32 { return g.Neighbors(int(i)) }
	return m.Embed(m.Inputs(g, nbrs), all, nbrs, 64, 128), "computed", nil
}

// New builds the index from a model, its corpus and every document's
// embedding (Points and Theta, in document order).
func New(m *model.Model, g *corpus.Graph, emb *model.Embeddings) (*Index, error) {
	tab := m.Topics.Tables()
	N, T := g.NumDocs(), tab.T
	if len(emb.Points) != N*(m.Cfg.Width+1) || len(emb.Theta) != N*T {
		return nil, fmt.Errorf("explore: embeddings of %d values and θ of %d for %d documents, %d topics and width %d",
			len(emb.Points), len(emb.Theta), N, T, m.Cfg.Width)
	}
	if len(g.Vocab) != m.Cfg.Vocab {
		return nil, fmt.Errorf("explore: the corpus has %d words, the model %d", len(g.Vocab), m.Cfg.Vocab)
	}
	ix := &Index{m: m, g: g, emb: emb, rowOf: map[int]int{}, docOf: make(map[string]int, N)}
	geometry := m.Cfg.Geometry
	if geometry == "" {
		geometry = "hyperbolic"
	}
	ix.info = Info{Dataset: g.Name, Geometry: string(geometry), Dim: m.Cfg.Width, Curvature: m.Cfg.Curvature,
		Topics: T, Levels: tab.Depth, Documents: N, Links: len(g.Links), Vocab: len(g.Vocab),
		Labels: append([]string{}, g.LabelNames...)}
	for i := 0; i < N; i++ {
		ix.docOf[ix.DocID(i)] = i
	}
	lengths := make([]int, N)
	for i := range lengths {
		lengths[i] = len(g.Doc(i))
	}
	ix.beta = m.Beta()
	for r, id := range tab.ID {
		ix.rowOf[id] = r
	}
	topics := outputs.Topics(m, g, emb.Theta, lengths)
	ix.docs = make([]int32, T)
	for i := 0; i < N; i++ {
		for _, r := range ix.pathRows(i) {
			ix.docs[r]++
		}
	}
	ix.topics = topics
	ix.labels.auto = outputs.AutoLabels(tab, ix.beta, g.Vocab)
	ix.labels.log = m.Edits
	ix.labels.user = m.Edits.Labels()
	ix.nodes = make([]Node, T)
	for r, t := range topics {
		nd := Node{ID: t.ID, Parent: t.Parent, Level: t.Level, Share: t.Share, Docs: int(ix.docs[r]), Children: t.Children}
		for _, w := range t.Words[:min(TreeWords, len(t.Words))] {
			nd.Words = append(nd.Words, w)
		}
		ix.nodes[r] = nd
	}
	ix.rankOnce = make([]sync.Once, T)
	ix.ranked = make([][]int32, T)
	ix.layout = newLayout(m, emb, ix)
	ix.maps = newMaps(ix, nil, lengths)
	ix.setFields(g.AllFields())
	return ix, nil
}

// Info describes the model and corpus.
func (ix *Index) Info() Info { return ix.info }

// Model and Graph return what the index was built from (read-only).
func (ix *Index) Model() *model.Model  { return ix.m }
func (ix *Index) Graph() *corpus.Graph { return ix.g }

// Known is the corpus prepared for embedding new documents against it
// (model.EmbedNewIn), its hop features propagated once, on first use.
func (ix *Index) Known() *model.KnownCorpus {
	ix.knownOnce.Do(func() { ix.known = ix.m.NewKnownCorpus(ix.g) })
	return ix.known
}

// Tree is the topic tree (GET /v1/tree): every topic in breadth-first
// order.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Tree returns the topic tree, with the topics' current labels.
func (ix *Index) Tree() Tree {
	nodes := make([]Node, len(ix.nodes))
	for r := range nodes {
		nodes[r] = ix.node(r)
	}
	return Tree{Nodes: nodes}
}

// Search is a search's answer (GET /v1/search?q=): the topics where the
// query ranks highest when it is a word of the vocabulary, and the
// document when it is a document id; either may be nil.
type Search struct {
	Query    string      `json:"query"`
	Word     *WordTopics `json:"word"`
	Document *DocRef     `json:"document"`
}

// Search looks q up as a word (case-insensitive) and as a document id.
func (ix *Index) Search(q string, k int) Search {
	q = strings.TrimSpace(q)
	s := Search{Query: q}
	if w, err := ix.Word(q, k); err == nil {
		s.Word = w
	}
	if i, ok := ix.docOf[q]; ok {
		ref := ix.Ref(i)
		s.Document = &ref
	}
	return s
}

// NumDocs is the number of documents.
func (ix *Index) NumDocs() int { return ix.g.NumDocs() }

// DocID is document i's external id: its JSON Lines id, or its 0-based
// line number for a folder corpus.
func (ix *Index) DocID(i int) string {
	if ix.g.DocIDs != nil {
		return ix.g.DocIDs[i]
	}
	return strconv.Itoa(i)
}

// DocIndex returns the index of the document with external id id.
func (ix *Index) DocIndex(id string) (int, bool) {
	i, ok := ix.docOf[id]
	return i, ok
}

// Label is document i's label name ("" without labels).
func (ix *Index) Label(i int) string {
	if ix.g.Labels == nil || ix.g.Labels[i] < 0 {
		return ""
	}
	l := int(ix.g.Labels[i])
	if l < len(ix.g.LabelNames) {
		return ix.g.LabelNames[l]
	}
	return strconv.Itoa(l)
}

// words joins the first k words of a token sequence.
func (ix *Index) words(toks []int32, k int) string {
	var b strings.Builder
	for j, w := range toks[:min(k, len(toks))] {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ix.g.Vocab[w])
	}
	return b.String()
}

// Ref names document i with its snippet.
func (ix *Index) Ref(i int) DocRef {
	return DocRef{ID: ix.DocID(i), Label: ix.Label(i), Snippet: ix.words(ix.g.Doc(i), SnippetWords)}
}

// Point returns document i's embedding (n+1 coordinates, aliased).
func (ix *Index) Point(i int) []float32 {
	c := ix.m.Cfg.Width + 1
	return ix.emb.Points[i*c : (i+1)*c]
}

// theta returns document i's θ (dense row order, aliased).
func (ix *Index) theta(i int) []float32 {
	T := ix.emb.Topics
	return ix.emb.Theta[i*T : (i+1)*T]
}

// TopTopics returns the k largest entries of a θ row as topic ids
// (model.Model.TopTopics: the one ranking the API and gtformer-beam share).
func (ix *Index) TopTopics(theta []float32, k int) []TopicWeight {
	top := ix.m.TopTopics(theta, k)
	out := make([]TopicWeight, len(top))
	for i, t := range top {
		out[i] = TopicWeight{ID: t.Topic, Weight: float64(t.Weight)}
	}
	return out
}

// Path returns the topic ids of a θ row's path: from the root, each step
// goes to the child whose subtree holds the most θ mass (the first such
// child on ties), down to a leaf (model.Model.TopicPath).
func (ix *Index) Path(theta []float32) []int { return ix.m.TopicPath(theta) }

// pathRows returns document i's path as dense topic rows.
func (ix *Index) pathRows(i int) []int {
	path := ix.m.TopicPath(ix.theta(i))
	for k, id := range path {
		path[k] = ix.rowOf[id]
	}
	return path
}

// Topic returns topic id's details with the representative documents
// [offset, offset+limit) of its ranking (θ_t descending).
func (ix *Index) Topic(id, offset, limit int) (*Topic, error) {
	r, ok := ix.rowOf[id]
	if !ok {
		return nil, fmt.Errorf("topic %d: %w", id, ErrNotFound)
	}
	nd := ix.node(r)
	t := &Topic{Node: nd, Sub: []Node{}, Documents: []DocRef{}}
	for p := r; p >= 0; p = int(ix.m.Topics.Tables().Parent[p]) {
		t.Path = append([]int{ix.nodes[p].ID}, t.Path...)
	}
	for _, c := range nd.Children {
		t.Sub = append(t.Sub, ix.node(ix.rowOf[c]))
	}
	t.ByWeight = append([]Word{}, ix.topics[r].Words...)
	t.ByLift = append([]Word{}, ix.topics[r].LiftWords...)
	ranked := ix.rankedDocs(r)
	t.Total = len(ranked)
	if offset > len(ranked) {
		return nil, fmt.Errorf("cursor %d is past the topic's %d documents", offset, len(ranked))
	}
	end := min(offset+limit, len(ranked))
	T := len(ix.nodes)
	for _, d := range ranked[offset:end] {
		ref := ix.Ref(int(d))
		ref.Theta = float64(ix.emb.Theta[int(d)*T+r])
		t.Documents = append(t.Documents, ref)
	}
	if end < len(ranked) {
		t.Next = strconv.Itoa(end)
	}
	return t, nil
}

// rankedDocs returns row r's documents by θ_r descending (computed once).
func (ix *Index) rankedDocs(r int) []int32 {
	ix.rankOnce[r].Do(func() {
		N, T := ix.g.NumDocs(), len(ix.nodes)
		d := make([]int32, N)
		for i := range d {
			d[i] = int32(i)
		}
		th := ix.emb.Theta
		sort.SliceStable(d, func(a, b int) bool { return th[int(d[a])*T+r] > th[int(d[b])*T+r] })
		ix.ranked[r] = slices.Clip(d[:min(MaxRanked, N)])
	})
	return ix.ranked[r]
}

// Document returns document id's details.
func (ix *Index) Document(id string) (*Document, error) {
	i, ok := ix.docOf[id]
	if !ok {
		return nil, fmt.Errorf("document %q: %w", id, ErrNotFound)
	}
	th := ix.theta(i)
	return &Document{
		ID: id, Label: ix.Label(i), Length: len(ix.g.Doc(i)),
		Text:    ix.words(ix.g.Doc(i), DocumentWords),
		Topics:  ix.TopTopics(th, DocTopics),
		Fields:  ix.docFields(i),
		Path:    ix.Path(th),
		Nearest: ix.Neighbors(ix.Point(i), Nearest, i),
	}, nil
}

// Neighbors returns the k documents nearest to the point x (n+1
// coordinates) by the model's distance (hyperbolic, or Euclidean for the
// ablation), nearest first, leaving out document skip (-1: none).
func (ix *Index) Neighbors(x []float32, k, skip int) []Neighbor {
	N, c := ix.g.NumDocs(), ix.m.Cfg.Width+1
	tp := tensor.NewTape()
	tp.NoGrad = true
	d := ix.m.M.PairDist(tp, tensor.FromData(slices.Clone(x), 1, c), tensor.FromData(ix.emb.Points, N, c)).Data
	idx := make([]int, 0, N)
	for i := 0; i < N; i++ {
		if i != skip {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return d[idx[a]] < d[idx[b]] })
	out := make([]Neighbor, 0, k)
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, Neighbor{DocRef: ix.Ref(i), Distance: float64(d[i])})
	}
	return out
}

// Word returns the topics where word ranks highest (best rank first, at
// most k).
func (ix *Index) Word(word string, k int) (*WordTopics, error) {
	word = strings.ToLower(strings.TrimSpace(word))
	w := slices.Index(ix.g.Vocab, word)
	if w < 0 {
		return nil, fmt.Errorf("word %q is not in the model's vocabulary: %w", word, ErrNotFound)
	}
	V := len(ix.g.Vocab)
	out := &WordTopics{Word: word}
	for r := range ix.nodes {
		row := ix.beta[r*V : (r+1)*V]
		rank := 1
		for _, v := range row {
			if v > row[w] {
				rank++
			}
		}
		out.Topics = append(out.Topics, WordHit{Topic: ix.nodes[r].ID, Rank: rank, Weight: float64(row[w])})
	}
	sort.SliceStable(out.Topics, func(a, b int) bool {
		ta, tb := out.Topics[a], out.Topics[b]
		return ta.Rank < tb.Rank || ta.Rank == tb.Rank && ta.Weight > tb.Weight
	})
	out.Topics = out.Topics[:min(k, len(out.Topics))]
	return out, nil
}

// WriteDocTopicsCSV writes one row per document of docs (all documents
// when nil): id, label, its top topic and that topic's θ, its path (topic
// ids joined by "/"), and the top topic's label. The ids, the labels of
// documents and the labels of topics come from the corpus or the user, so
// they pass through csvsafe.Text: one that a spreadsheet would read as a
// formula gets a leading single quote. The numbers are the program's own
// and are written as they are.
func (ix *Index) WriteDocTopicsCSV(w io.Writer, docs []int) error {
	if docs == nil {
		docs = make([]int, ix.g.NumDocs())
		for i := range docs {
			docs[i] = i
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"id", "label", "top_topic", "top_theta", "path", "top_topic_label"}); err != nil {
		return fmt.Errorf("explore: doc-topics CSV: %w", err)
	}
	for _, i := range docs {
		th := ix.theta(i)
		top := ix.TopTopics(th, 1)[0]
		path := ix.Path(th)
		ps := make([]string, len(path))
		for k, p := range path {
			ps[k] = strconv.Itoa(p)
		}
		name, _ := ix.labels.label(ix.rowOf[top.ID], top.ID)
		rec := []string{csvsafe.Text(ix.DocID(i)), csvsafe.Text(ix.Label(i)), strconv.Itoa(top.ID), strconv.FormatFloat(top.Weight, 'f', 6, 64), strings.Join(ps, "/"),
			csvsafe.Text(name)}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("explore: doc-topics CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("explore: doc-topics CSV: %w", err)
	}
	return nil
}

// sortByDesc orders indices by their values in v, largest first (stable:
// ties keep index order).
func sortByDesc(idx []int, v []float32) {
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
}
