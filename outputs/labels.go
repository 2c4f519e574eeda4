package outputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/topictree"
)

// Label sources: the user's (the model's edit log) or automatic.
const (
	LabelUser = "user"
	LabelAuto = "auto"
)

// AutoLabelWords is the number of words in an automatic label.
const AutoLabelWords = 3

// AutoLabels returns every topic's automatic label (dense row order): the
// root's AutoLabelWords most probable words; any other topic's words of
// highest relevance to its parent (LiftRelevance, as LiftWords rank them),
// skipping the words of its parent's label and of its earlier siblings'
// labels, so that siblings never share a word and a child never repeats its
// parent. Words are joined by ", ". beta is (T, V) in the dense row order
// of tab.
func AutoLabels(tab *topictree.Tables, beta []float32, vocab []string) []string {
	T := tab.T
	V := len(beta) / T
	words := make([][]int, T)
	top := make([]int, V)
	for w := range top {
		top[w] = w
	}
	root := beta[:V]
	slices.SortStableFunc(top, func(a, b int) int {
		switch {
		case root[a] > root[b]:
			return -1
		case root[a] < root[b]:
			return 1
		}
		return 0
	})
	words[0] = top[:min(AutoLabelWords, V)]
	// Dense rows are breadth-first, with each parent's children in sibling
	// order: a parent's label is made before its children's, and a
	// topic's earlier siblings before it.
	taken := map[int32]map[int]bool{} // parent row → words its children's labels hold
	for r := 1; r < T; r++ {
		p := tab.Parent[r]
		skip := taken[p]
		if skip == nil {
			skip = map[int]bool{}
			for _, w := range words[p] {
				skip[w] = true
			}
			taken[p] = skip
		}
		bt, bp := beta[r*V:(r+1)*V], beta[int(p)*V:int(p+1)*V]
		for _, w := range liftWords(bt, bp, V) {
			if len(words[r]) == AutoLabelWords {
				break
			}
			if !skip[w] {
				words[r] = append(words[r], w)
				skip[w] = true
			}
		}
	}
	out := make([]string, T)
	for r, ws := range words {
		s := make([]string, len(ws))
		for i, w := range ws {
			s[i] = vocab[w]
		}
		out[r] = strings.Join(s, ", ")
	}
	return out
}

// Labels returns every topic's label and its source (dense row order): the
// user's label from the model's edit log, else the automatic one (auto,
// from AutoLabels).
func Labels(m *model.Model, auto []string) (labels, sources []string) {
	user := m.Edits.Labels()
	tab := m.Topics.Tables()
	labels, sources = make([]string, tab.T), make([]string, tab.T)
	for r, id := range tab.ID {
		if l, ok := user[id]; ok {
			labels[r], sources[r] = l, LabelUser
		} else {
			labels[r], sources[r] = auto[r], LabelAuto
		}
	}
	return labels, sources
}

// ReadTopics reads the topics.json of the model folder dir with the
// labels of the folder's edit log over the ones written with it: a topic
// renamed since (gtformer serve's PUT /v1/topics/{id}/label writes the log
// in place) shows its new label.
func ReadTopics(dir string) ([]Topic, error) {
	topics, err := readTopicsFile(dir)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, model.ConfigFile)
	cfgRaw, err := os.ReadFile(cfgPath)
	if errors.Is(err, os.ErrNotExist) {
		return topics, nil
	}
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	sc, err := model.ParseConfig(cfgPath, cfgRaw)
	if err != nil {
		return nil, err
	}
	if _, ok := sc.Files[edits.File]; !ok {
		return topics, nil
	}
	l, err := edits.Read(dir)
	if err != nil {
		return nil, err
	}
	return withLabels(topics, l), nil
}

// readTopicsFile reads dir's topics.json as written.
func readTopicsFile(dir string) ([]Topic, error) {
	path := filepath.Join(dir, TopicsFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	var topics []Topic
	if err := json.Unmarshal(raw, &topics); err != nil {
		return nil, fmt.Errorf("outputs: %s: %w", path, err)
	}
	return topics, nil
}

// withLabels sets the labels of l's topics as the user's.
func withLabels(topics []Topic, l *edits.Log) []Topic {
	user := l.Labels()
	for i, t := range topics {
		if s, ok := user[t.ID]; ok {
			topics[i].Label, topics[i].LabelSource = s, LabelUser
		}
	}
	return topics
}

// RenderTopics returns topics.json and topics.txt of the model folder dir
// as they are to be written again once its edit log is l (a label changed
// in place), so that a reader of the files alone sees the new names; nil
// for a folder without topics.json (a model saved without its outputs).
func RenderTopics(dir string, l *edits.Log) ([]model.FileWrite, error) {
	if _, err := os.Stat(filepath.Join(dir, TopicsFile)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	topics, err := readTopicsFile(dir)
	if err != nil {
		return nil, err
	}
	topics = withLabels(topics, l)
	var text bytes.Buffer
	if err := WriteTopicsText(&text, topics, TextOptions{}); err != nil {
		return nil, err
	}
	js, _, err := encodeFinite(topics)
	if err != nil {
		return nil, fmt.Errorf("outputs: %s: %w", TopicsFile, err)
	}
	return []model.FileWrite{{Name: TopicsFile, Data: append(js, '\n')}, {Name: TopicsTextFile, Data: text.Bytes()}}, nil
}
