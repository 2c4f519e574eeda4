package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/model"
)

// updateTopWords is how many of a topic's top words update compares.
const updateTopWords = 10

// updateReport is update.json: what an update added and what it did to
// the topics, by stable topic id.
type updateReport struct {
	Format string `json:"format"` // "gtformer-update/1"
	// Parent is the hex SHA-256 of the updated model's weights.
	Parent       string `json:"parent_sha256"`
	NewDocuments int    `json:"new_documents"`
	// NewLinks are the union's links with a new end; NewTrainingLinks
	// those of them between training documents outside validation, which
	// the default budget counts.
	NewLinks         int `json:"new_links"`
	NewTrainingLinks int `json:"new_training_links"`
	UnknownWords     int `json:"unknown_words"` // words of the new documents the vocabulary lacks (dropped)
	Steps            int `json:"steps"`
	// Kept are the topics of both trees; MeanOverlap is the mean of their
	// Overlap (0 when none was kept).
	Kept        []keptTopic  `json:"kept"`
	MeanOverlap float64      `json:"mean_overlap"`
	Removed     []shownTopic `json:"removed"`
	New         []shownTopic `json:"new"`
}

// keptTopic is a topic that survived the update: its top words before and
// after, and Overlap = |before ∩ after| / 10.
type keptTopic struct {
	ID      int      `json:"id"`
	Before  []string `json:"before"`
	After   []string `json:"after"`
	Overlap float64  `json:"overlap"`
}

// shownTopic is a topic of one tree only: its parent's id (-1 for the
// root) and top words.
type shownTopic struct {
	ID     int      `json:"id"`
	Parent int      `json:"parent"`
	Words  []string `json:"words"`
}

// topicState is a tree's topics by id: parent and top words.
type topicState struct {
	ids    []int // tree order
	parent map[int]int
	words  map[int][]string
}

// topicWords reads m's topics and their top words (vocabulary words).
func topicWords(m *model.Model, vocab []string) topicState {
	tab := m.Topics.Tables()
	tw := m.TopicWords(updateTopWords)
	st := topicState{parent: map[int]int{}, words: map[int][]string{}}
	for r, id := range tab.ID {
		st.ids = append(st.ids, id)
		st.parent[id] = m.Topics.Tree.Parent(id)
		for _, w := range tw[r] {
			st.words[id] = append(st.words[id], vocab[w.Word])
		}
	}
	return st
}

// overlap is |a ∩ b| / updateTopWords.
func overlap(a, b []string) float64 {
	n := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			n++
		}
	}
	return float64(n) / updateTopWords
}

// compareTopics fills the report's topic lists from the trees before and
// after.
func (r *updateReport) compareTopics(before, after topicState) {
	r.Kept, r.Removed, r.New = []keptTopic{}, []shownTopic{}, []shownTopic{}
	var sum float64
	for _, id := range before.ids {
		a, ok := after.words[id]
		if !ok {
			r.Removed = append(r.Removed, shownTopic{ID: id, Parent: before.parent[id], Words: before.words[id]})
			continue
		}
		k := keptTopic{ID: id, Before: before.words[id], After: a, Overlap: overlap(before.words[id], a)}
		sum += k.Overlap
		r.Kept = append(r.Kept, k)
	}
	if len(r.Kept) > 0 {
		r.MeanOverlap = sum / float64(len(r.Kept))
	}
	for _, id := range after.ids {
		if _, ok := before.words[id]; !ok {
			r.New = append(r.New, shownTopic{ID: id, Parent: after.parent[id], Words: after.words[id]})
		}
	}
}

// print writes the report's topic lists for a reader.
func (r *updateReport) print(w io.Writer) {
	fmt.Fprintf(w, "update: %d new documents, %d new links, %d steps; %d topics kept (mean top-%d overlap %.2f), %d removed, %d new\n",
		r.NewDocuments, r.NewLinks, r.Steps, len(r.Kept), updateTopWords, r.MeanOverlap, len(r.Removed), len(r.New))
	for _, k := range r.Kept {
		fmt.Fprintf(w, "  kept %d: overlap %.1f  %s\n", k.ID, k.Overlap, strings.Join(k.After, " "))
	}
	for _, t := range r.Removed {
		fmt.Fprintf(w, "  removed %d (under %d): %s\n", t.ID, t.Parent, strings.Join(t.Words, " "))
	}
	for _, t := range r.New {
		fmt.Fprintf(w, "  new %d under %d: %s\n", t.ID, t.Parent, strings.Join(t.Words, " "))
	}
}
