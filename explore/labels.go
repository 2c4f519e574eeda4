package explore

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/outputs"
)

// labels are the topics' names. The automatic ones are fixed with the
// model; the user's change while the server runs (Index.Rename), so they
// are read and replaced under mu, and every answer copies them.
type labels struct {
	mu   sync.RWMutex
	auto []string       // dense row order (outputs.AutoLabels)
	log  *edits.Log     // the model's edit log as last saved; nil: none
	user map[int]string // by topic id: log.Labels()
}

// label returns row r's (topic id's) label and its source.
func (l *labels) label(r, id int) (string, string) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if s, ok := l.user[id]; ok {
		return s, outputs.LabelUser
	}
	return l.auto[r], outputs.LabelAuto
}

// ErrBadLabel marks a label Rename refuses (edits.CheckLabel).
var ErrBadLabel = errors.New("bad label")

// node returns row r's node with its current label.
func (ix *Index) node(r int) Node {
	nd := ix.nodes[r]
	nd.Label, nd.LabelSource = ix.labels.label(r, nd.ID)
	return nd
}

// Rename gives topic id the user's label: the model's edit log gets the
// edit, save writes the new log (model.SaveEdits into the model folder,
// usually), and only when it succeeds do the answers show the label.
// Renames are serialised, so the log on disk holds them in the order the
// answers show them. It returns the topic as Topic(id, 0, limit) does.
func (ix *Index) Rename(id int, label string, limit int, save func(*edits.Log) error) (*Topic, error) {
	if _, ok := ix.rowOf[id]; !ok {
		return nil, fmt.Errorf("topic %d: %w", id, ErrNotFound)
	}
	if err := edits.CheckLabel(label); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadLabel, strings.TrimPrefix(err.Error(), "edits: "))
	}
	l := &ix.labels
	l.mu.Lock()
	next := l.log.With(edits.Edit{Op: edits.OpLabel, IDs: []int{id}, Label: label, Time: time.Now().UTC().Truncate(time.Second)})
	if err := save(next); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	l.log, l.user = next, next.Labels()
	l.mu.Unlock()
	return ix.Topic(id, 0, limit)
}
