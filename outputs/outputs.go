// Package outputs writes a trained model's results into an output directory:
// topics.json, topics.txt, doc_embeddings.npy, doc_topics.npy, doc_lengths.npy,
// topic_links.json, meta.jsonl (when the corpus has fields or labels), metrics.json
// (and, through model.Save, config.json, tree.json and weights.safetensors).
// Every file is written atomically.
package outputs

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/topicmap"
)

// Topic is one entry of topics.json.
type Topic struct {
	ID       int        `json:"id"`
	Parent   int        `json:"parent"` // -1 for the root
	Level    int        `json:"level"`
	Children []int      `json:"children"`
	Words    []WordProb `json:"words"` // top 20 by β
	// LiftWords are the top 20 by relevance to the parent (LiftRelevance):
	// what the topic says beyond what its parent already explains. Empty
	// for the root.
	LiftWords []WordProb `json:"lift_words,omitempty"`
	Share     float64    `json:"share"` // s_t over the documents embedded
	// Label names the topic: the user's (LabelSource "user", from the
	// model's edit log) or AutoLabels' (LabelSource "auto"). Empty only
	// in topics.json files written before labels.
	Label       string `json:"label"`
	LabelSource string `json:"label_source"`
}

// WordProb is a word with its probability under a topic and, in
// LiftWords, its lift β_t(w)/β_parent(w).
type WordProb struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
	Lift   float64 `json:"lift,omitempty"`
}

// LiftRelevance is λ in the relevance that ranks LiftWords,
//
//	r_t(w) = λ log β_t(w) + (1 − λ) log(β_t(w) / β_parent(w)),
//
// LDAvis's relevance (Sievert & Shirley, 2014) with the parent in place of
// the corpus: λ = 1 is the ranking by weight, λ = 0 by lift alone (which
// favours words too rare to read); their user study found λ ≈ 0.6 best.
const LiftRelevance = 0.6

// topWords is the number of words topics.json lists per topic.
const topWords = 20

// Metrics is metrics.json.
type Metrics struct {
	Dataset      string        `json:"dataset"`
	Seed         uint64        `json:"seed"`
	Supervised   bool          `json:"supervised"`
	TrainSeconds float64       `json:"train_seconds"`
	Epochs       int           `json:"epochs"`
	Test         evaluate.Test `json:"test"`
	// Valid are the kept state's validation metrics (held-out validation
	// documents and links; train.Trainer.Kept), and KeptEpoch that state's
	// epoch.
	Valid      *evaluate.Test  `json:"valid,omitempty"`
	KeptEpoch  int             `json:"kept_epoch,omitempty"`
	Topics     evaluate.Topics `json:"topics"`
	Variant    string          `json:"variant,omitempty"`
	BLAS       string          `json:"blas,omitempty"`
	DocsPerSec float64         `json:"docs_per_sec,omitempty"`
	// Phases is the wall time of each phase of the run in seconds (load,
	// split and sampler, tf-idf, features, topic start, cache refresh,
	// steps, validation, growth, final embedding, evaluation, outputs,
	// plots; internal/phases), for the scale table of docs/benchmarks.md.
	Phases map[string]float64 `json:"phases,omitempty"`
	// PhasePeakRSS is each phase's peak resident set size in GB
	// (phases.Record.TrackPeakRSS; Linux); nil: not measured.
	PhasePeakRSS map[string]float64 `json:"phase_peak_rss_gb,omitempty"`
	// Notes explain what the numbers cannot: a metric that is undefined
	// for this corpus and model is written as null, with a note naming it.
	Notes []string `json:"notes,omitempty"`
}

// Topics builds the topics.json entries: top-20 words and each topic's share
// s_t = Σ_i |d_i| θ_it / Σ_i |d_i| over the given documents' θ rows.
func Topics(m *model.Model, g *corpus.Graph, theta []float32, lengths []int) []Topic {
	tab := m.Topics.Tables()
	tree := m.Topics.Tree
	words := m.TopicWords(topWords)
	beta := m.Beta()
	V := len(beta) / tab.T
	labels, sources := Labels(m, AutoLabels(tab, beta, g.Vocab))
	share := make([]float64, tab.T)
	var total float64
	for i, l := range lengths {
		for t := 0; t < tab.T; t++ {
			share[t] += float64(l) * float64(theta[i*tab.T+t])
		}
		total += float64(l)
	}
	out := make([]Topic, tab.T)
	for r := 0; r < tab.T; r++ {
		id := tab.ID[r]
		t := Topic{ID: id, Parent: tree.Parent(id), Level: int(tab.Level[r]), Children: append([]int{}, tree.Children(id)...),
			Label: labels[r], LabelSource: sources[r]}
		if total > 0 {
			t.Share = share[r] / total
		}
		for _, w := range words[r] {
			t.Words = append(t.Words, WordProb{Word: g.Vocab[w.Word], Weight: float64(w.Weight)})
		}
		if p := tab.Parent[r]; p >= 0 {
			bt, bp := beta[r*V:(r+1)*V], beta[int(p)*V:int(p+1)*V]
			for _, w := range liftWords(bt, bp, topWords) {
				t.LiftWords = append(t.LiftWords, WordProb{Word: g.Vocab[w], Weight: float64(bt[w]), Lift: float64(bt[w]) / float64(bp[w])})
			}
		}
		out[r] = t
	}
	return out
}

// liftWords returns the k words of highest relevance LiftRelevance of a
// topic's distribution bt to its parent's bp, most relevant first (ties by
// word id). Words of zero probability under either are skipped.
func liftWords(bt, bp []float32, k int) []int {
	type scored struct {
		w int
		r float64
	}
	var all []scored
	for w := range bt {
		if bt[w] <= 0 || bp[w] <= 0 {
			continue
		}
		lt := math.Log(float64(bt[w]))
		all = append(all, scored{w, LiftRelevance*lt + (1-LiftRelevance)*(lt-math.Log(float64(bp[w])))})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.r, a.r) })
	out := make([]int, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.w)
	}
	return out
}

// TextOptions choose how WriteTopicsText lists a topic's words.
type TextOptions struct {
	// ByLift lists LiftWords (what the topic adds to its parent) instead
	// of the words by weight.
	ByLift bool
}

// textWords is the number of words per topic in topics.txt.
const textWords = 10

// WriteTopicsText renders the tree from topics alone (no model needed), one
// line per topic, indented by level:
//
//	7 L2 (23.9%) "neural, network, deep" network neural distribution · model algorithm
//
// id, level, share of the words, the label (quoted as Go quotes strings;
// absent when the topic has none), then the top-10 words by weight: first
// those that the parent's top 10 does not hold, then, after "·", those it
// does (the words the parent already explains, de-emphasised). With
// ByLift the words are the top 10 of LiftWords (the root keeps its words
// by weight).
func WriteTopicsText(w io.Writer, topics []Topic, opt TextOptions) error {
	byID := make(map[int]int, len(topics))
	root := -1
	for i, t := range topics {
		byID[t.ID] = i
		if t.Parent < 0 {
			root = i
		}
	}
	if root < 0 {
		return fmt.Errorf("outputs: no root among %d topics", len(topics))
	}
	bw := bufio.NewWriter(w)
	stack := []int{root}
	seen := make([]bool, len(topics))
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			return fmt.Errorf("outputs: topic %d is reached twice", topics[i].ID)
		}
		seen[i] = true
		t := topics[i]
		label := ""
		if t.Label != "" {
			label = strconv.Quote(t.Label) + " "
		}
		fmt.Fprintf(bw, "%s%d L%d (%.1f%%) %s%s\n", strings.Repeat("  ", t.Level), t.ID, t.Level, 100*t.Share, label, topicLine(t, topics, byID, opt))
		for c := len(t.Children) - 1; c >= 0; c-- {
			j, ok := byID[t.Children[c]]
			if !ok {
				return fmt.Errorf("outputs: topic %d lists child %d, which is not among the topics", t.ID, t.Children[c])
			}
			stack = append(stack, j)
		}
	}
	return bw.Flush()
}

// topicLine is a topic's words in topics.txt (see WriteTopicsText).
func topicLine(t Topic, topics []Topic, byID map[int]int, opt TextOptions) string {
	words := t.Words
	if opt.ByLift && len(t.LiftWords) > 0 {
		words = t.LiftWords
	}
	words = words[:min(textWords, len(words))]
	p, ok := byID[t.Parent]
	if !ok || opt.ByLift {
		ws := make([]string, len(words))
		for i, x := range words {
			ws[i] = x.Word
		}
		return strings.Join(ws, " ")
	}
	inParent := map[string]bool{}
	for _, x := range topics[p].Words[:min(textWords, len(topics[p].Words))] {
		inParent[x.Word] = true
	}
	var own, shared []string
	for _, x := range words {
		if inParent[x.Word] {
			shared = append(shared, x.Word)
		} else {
			own = append(own, x.Word)
		}
	}
	line := strings.Join(own, " ")
	if len(shared) > 0 {
		line += " · " + strings.Join(shared, " ")
	}
	return strings.TrimSpace(line)
}

// Write writes all outputs of a trained and evaluated model into dir.
func Write(dir string, m *model.Model, seed uint64, g *corpus.Graph, in *model.Inputs, res *evaluate.Result, met Metrics) error {
	if err := m.Save(dir, seed); err != nil {
		return err
	}
	lengths := in.Len
	topics := Topics(m, g, res.Emb.Theta, lengths)
	if err := writeJSON(filepath.Join(dir, TopicsFile), topics); err != nil {
		return err
	}
	// Rendered first (a few kilobytes), so that a problem with the topics
	// is reported as it is, not inside atomicfile's write error.
	var text bytes.Buffer
	if err := WriteTopicsText(&text, topics, TextOptions{}); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, TopicsTextFile), func(w io.Writer) error {
		_, err := w.Write(text.Bytes())
		return err
	}); err != nil {
		return fmt.Errorf("outputs: %w", err) // atomicfile's error names the file
	}
	n := g.NumDocs()
	if err := npy.Write(filepath.Join(dir, EmbeddingsFile), []int{n, res.Emb.Width + 1}, res.Emb.Points); err != nil {
		return fmt.Errorf("outputs: %w", err) // npy's error names the file
	}
	if err := npy.Write(filepath.Join(dir, ThetaFile), []int{n, res.Emb.Topics}, res.Emb.Theta); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	lens := make([]int32, n)
	for i := range lens {
		lens[i] = int32(len(g.Doc(i)))
	}
	if err := npy.Write(filepath.Join(dir, LengthsFile), []int{n}, lens); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	maps, err := topicmap.AllLinks(res.Emb.Theta, topicmap.TreeOf(m.Topics.Tables()), g.Links, LinkPairs)
	if err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, LinksFile), maps); err != nil {
		return err
	}
	if fields := g.AllFields(); len(fields) > 0 {
		if err := atomicfile.WriteFile(filepath.Join(dir, MetaFile), func(w io.Writer) error {
			return corpus.WriteMeta(w, fields, n)
		}); err != nil {
			return fmt.Errorf("outputs: %w", err)
		}
	}
	met.Test, met.Topics = res.Test, res.Topics
	return WriteMetrics(filepath.Join(dir, MetricsFile), met)
}

// WriteMetrics writes metrics.json (or another name) atomically. A metric
// that is NaN or infinite is written as null, and met.Notes gets a line
// naming it: an undefined metric never makes the write fail.
func WriteMetrics(path string, met Metrics) error {
	notes, err := UndefinedNotes(met)
	if err != nil {
		return fmt.Errorf("outputs: %s: %w", filepath.Base(path), err)
	}
	met.Notes = append(met.Notes, notes...)
	return writeJSON(path, met)
}

// UndefinedNotes returns a note for each NaN or infinite number in v (a
// result that WriteJSON writes as null), naming it by its JSON path, for
// the result's own notes.
func UndefinedNotes(v any) ([]string, error) {
	_, undefined, err := encodeFinite(v)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, u := range undefined {
		notes = append(notes, fmt.Sprintf("%s is undefined for this corpus and model (not a finite number): written as null", u))
	}
	return notes, nil
}

// WriteJSON writes v as indented JSON atomically, a NaN or infinite number
// as null (see UndefinedNotes), so that an undefined metric never makes
// the write fail.
func WriteJSON(path string, v any) error { return writeJSON(path, v) }

// Files a training run writes into its output directory, besides its
// checkpoint: the model (model.ConfigFile, TreeFile, WeightsFile, and
// edits.File for an edited model), then
// TopicsFile ... MetricsFile (all written by Write), the learning curves
// and the document map (when there is something to draw), an evaluation's
// EvalFile, and a validation-only run's ValidFile.
const (
	TopicsFile     = "topics.json"
	TopicsTextFile = "topics.txt"
	EmbeddingsFile = "doc_embeddings.npy"
	ThetaFile      = "doc_topics.npy"
	MetricsFile    = "metrics.json"
	// MetaFile holds the corpus's document fields, the labels among them
	// (corpus.Graph.AllFields), one JSON object per document in corpus
	// order, when the corpus has any: what facets are computed over.
	MetaFile = "meta.jsonl"
	// LengthsFile holds each document's word count (in the vocabulary),
	// int32 (N,), the weights of the facets' word shares.
	LengthsFile = "doc_lengths.npy"
	// LinksFile holds the topic link map of every level below the root
	// (topicmap.LinkMap), over all the corpus's links.
	LinksFile = "topic_links.json"
	EvalFile  = "eval.json"
	// ValidFile is what a run that never reads the test split writes
	// instead of the outputs above (gtformer train --valid-only).
	ValidFile = "valid.json"
)

// RunFiles lists every file a run may write into its output directory, so
// that a directory trained into again can be cleaned of the previous run's
// files this run did not write (package pipeline).
var RunFiles = []string{model.ConfigFile, model.TreeFile, model.WeightsFile, edits.File, TopicsFile, TopicsTextFile, EmbeddingsFile, ThetaFile,
	MetricsFile, LengthsFile, LinksFile, MetaFile, "curves.png", "curves.svg", "map.png", "map.svg", EvalFile, ValidFile}

// WriteFiles are the files Write always writes (Written: for a model and
// its corpus).
var WriteFiles = []string{model.ConfigFile, model.TreeFile, model.WeightsFile, TopicsFile, TopicsTextFile, EmbeddingsFile, ThetaFile,
	LengthsFile, LinksFile, MetricsFile}

// LinkPairs is how many cross-branch pairs LinksFile lists per level.
const LinkPairs = 20

// Written returns the files Write writes for m and its corpus g:
// WriteFiles, edits.File when m has an edit log, and MetaFile when g's
// documents have fields or labels.
func Written(m *model.Model, g *corpus.Graph) []string {
	out := slices.Clone(WriteFiles)
	if m.Edits.Len() > 0 {
		out = append(out, edits.File)
	}
	if g.Labels != nil || len(g.Fields) > 0 {
		out = append(out, MetaFile)
	}
	return out
}

// MarshalJSON is v as WriteJSON writes it: indented, a NaN or infinite
// number as null, with a final newline.
func MarshalJSON(v any) ([]byte, error) {
	b, _, err := encodeFinite(v)
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	return append(b, '\n'), nil
}

// writeJSON writes v as indented JSON, a non-finite float as null.
func writeJSON(path string, v any) error {
	b, _, err := encodeFinite(v)
	if err == nil {
		err = atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(append(b, '\n'))
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("outputs: %s: %w", filepath.Base(path), err)
	}
	return nil
}
