// Package outputs writes a trained model's results into an output directory:
// topics.json, topics.txt, doc_embeddings.npy, doc_topics.npy, metrics.json
// (and, through model.Save, config.json, tree.json and weights.safetensors).
// Every file is written atomically.
package outputs

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
)

// Topic is one entry of topics.json.
type Topic struct {
	ID       int        `json:"id"`
	Parent   int        `json:"parent"` // -1 for the root
	Level    int        `json:"level"`
	Children []int      `json:"children"`
	Words    []WordProb `json:"words"` // top 20 by β
	Share    float64    `json:"share"` // s_t over the documents embedded
}

// WordProb is a word with its probability under a topic.
type WordProb struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

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
}

// Topics builds the topics.json entries: top-20 words and each topic's share
// s_t = Σ_i |d_i| θ_it / Σ_i |d_i| over the given documents' θ rows.
func Topics(m *model.Model, g *corpus.Graph, theta []float32, lengths []int) []Topic {
	tab := m.Topics.Tables()
	tree := m.Topics.Tree
	words := m.TopicWords(20)
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
		t := Topic{ID: id, Parent: tree.Parent(id), Level: int(tab.Level[r]), Children: append([]int{}, tree.Children(id)...)}
		if total > 0 {
			t.Share = share[r] / total
		}
		for _, w := range words[r] {
			t.Words = append(t.Words, WordProb{Word: g.Vocab[w.Word], Weight: float64(w.Weight)})
		}
		out[r] = t
	}
	return out
}

// WriteTopicsText renders the tree indented, each topic with its share and
// top-10 words.
func WriteTopicsText(w io.Writer, m *model.Model, topics []Topic) error {
	return m.Topics.Tree.Render(w, func(r int) string {
		t := topics[r]
		ws := make([]string, 0, 10)
		for _, x := range t.Words[:min(10, len(t.Words))] {
			ws = append(ws, x.Word)
		}
		return fmt.Sprintf("(%.1f%%) %s", 100*t.Share, strings.Join(ws, " "))
	})
}

// Write writes all outputs of a trained and evaluated model into dir.
func Write(dir string, m *model.Model, seed uint64, g *corpus.Graph, in *model.Inputs, res *evaluate.Result, met Metrics) error {
	if err := m.Save(dir, seed); err != nil {
		return err
	}
	lengths := in.Len
	topics := Topics(m, g, res.Emb.Theta, lengths)
	if err := writeJSON(filepath.Join(dir, "topics.json"), topics); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "topics.txt"), func(w io.Writer) error {
		return WriteTopicsText(w, m, topics)
	}); err != nil {
		return fmt.Errorf("topics.txt: %w", err)
	}
	n := g.NumDocs()
	if err := npy.Write(filepath.Join(dir, "doc_embeddings.npy"), []int{n, res.Emb.Width + 1}, res.Emb.Points); err != nil {
		return fmt.Errorf("doc_embeddings.npy: %w", err)
	}
	if err := npy.Write(filepath.Join(dir, "doc_topics.npy"), []int{n, res.Emb.Topics}, res.Emb.Theta); err != nil {
		return fmt.Errorf("doc_topics.npy: %w", err)
	}
	met.Test, met.Topics = res.Test, res.Topics
	return WriteMetrics(filepath.Join(dir, "metrics.json"), met)
}

// WriteMetrics writes metrics.json atomically.
func WriteMetrics(path string, met Metrics) error { return writeJSON(path, met) }

func writeJSON(path string, v any) error {
	if err := atomicfile.WriteJSON(path, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}
