// Package edits is a model's edit log: the user's curation of its topic
// tree (a label, a merge, a move, a deletion) and the updates that added
// documents to it (gtformer update), in the order made. It is
// edits.json in the model folder, written atomically; model.Save and
// model.Load carry it with the model (its SHA-256 is in config.json's
// files), so that every output shows the user's labels, and a model made
// from another (a curation, an update) keeps the log it started from.
//
// The log is the record; the tree and the weights already hold the
// effect of a structural edit. Labels are the one thing read back from
// the log: Labels replays it.
package edits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// File is the edit log's name in a model folder.
const File = "edits.json"

// format names the file's layout.
const format = "gtformer-edits/1"

// Operations.
const (
	OpLabel  = "label"  // IDs [A]: A is called Label
	OpMerge  = "merge"  // IDs [A, B]: B's subtree and decoder row folded into A
	OpMove   = "move"   // IDs [A, P]: A's subtree re-parented under P
	OpDelete = "delete" // IDs [A]: A removed, its children and mass to its parent
	// OpUpdate is gtformer update: no ids; Parent is the updated model's
	// weights, Note counts what was added and how long it trained.
	OpUpdate = "update"
)

// MaxLabel is the longest label in bytes.
const MaxLabel = 80

// Edit is one entry of the log.
type Edit struct {
	Op    string    `json:"op"`
	IDs   []int     `json:"ids"`
	Label string    `json:"label,omitempty"` // OpLabel's name; "" otherwise
	Time  time.Time `json:"time"`            // when it was made (UTC)
	// Parent is the hex SHA-256 of the weights of the model the edit was
	// made on, for an edit that wrote a new model folder; "" for an edit
	// made in place (a label).
	Parent string `json:"parent_sha256,omitempty"`
	// Note says more about an edit made by another command (a merge done
	// by "topics reduce --to 5"); "" otherwise.
	Note string `json:"note,omitempty"`
}

// Log is edits.json.
type Log struct {
	Format string `json:"format"` // "gtformer-edits/1"
	Edits  []Edit `json:"edits"`
}

// Len is the number of edits (0 for a nil log).
func (l *Log) Len() int {
	if l == nil {
		return 0
	}
	return len(l.Edits)
}

// With returns a copy of l with e appended (l may be nil).
func (l *Log) With(e Edit) *Log {
	out := &Log{Format: format}
	if l != nil {
		out.Edits = append(out.Edits, l.Edits...)
	}
	out.Edits = append(out.Edits, e)
	return out
}

// CheckLabel reports why s cannot be a topic's label: empty or blank, over
// MaxLabel bytes, not UTF-8, or holding a control character.
func CheckLabel(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("edits: a label must not be empty")
	case len(s) > MaxLabel:
		return fmt.Errorf("edits: a label is at most %d bytes, got %d", MaxLabel, len(s))
	case !utf8.ValidString(s):
		return errors.New("edits: a label must be UTF-8 text")
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("edits: a label must not hold control characters (%U)", r)
		}
	}
	return nil
}

// Labels replays the log: each topic's user label, by id. A merge keeps
// A's label (B's goes with B); a deleted topic's label goes with it.
func (l *Log) Labels() map[int]string {
	out := map[int]string{}
	if l == nil {
		return out
	}
	for _, e := range l.Edits {
		switch e.Op {
		case OpLabel:
			out[e.IDs[0]] = e.Label
		case OpMerge:
			delete(out, e.IDs[1])
		case OpDelete:
			delete(out, e.IDs[0])
		}
	}
	return out
}

// arity is each operation's number of ids.
var arity = map[string]int{OpLabel: 1, OpMerge: 2, OpMove: 2, OpDelete: 1, OpUpdate: 0}

func (l *Log) validate() error {
	if l.Format != format {
		return fmt.Errorf("unknown format %q (want %q)", l.Format, format)
	}
	for i, e := range l.Edits {
		n, ok := arity[e.Op]
		switch {
		case !ok:
			return fmt.Errorf("edit %d: unknown op %q", i, e.Op)
		case len(e.IDs) != n:
			return fmt.Errorf("edit %d (%s): %d ids, want %d", i, e.Op, len(e.IDs), n)
		}
		if e.Op == OpLabel {
			if err := CheckLabel(e.Label); err != nil {
				return fmt.Errorf("edit %d: %w", i, err)
			}
		}
	}
	return nil
}

// Parse reads an edit log (name is its path, for messages): one JSON
// object of the known fields, every edit well formed.
func Parse(name string, raw []byte) (*Log, error) {
	var l Log
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("edits: %s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("edits: %s: more than one JSON value", name)
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("edits: %s: %w", name, err)
	}
	return &l, nil
}

// Read reads dir's edit log; a folder without one has none (nil, nil).
func Read(dir string) (*Log, error) {
	path := filepath.Join(dir, File)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("edits: %w", err)
	}
	return Parse(path, raw)
}

// Write writes l into dir atomically.
func Write(dir string, l *Log) error {
	b, err := Encode(l)
	if err != nil {
		return err
	}
	err = atomicfile.WriteFile(filepath.Join(dir, File), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("edits: %w", err)
	}
	return nil
}

// Encode returns the bytes Write writes for l (a nil log: an empty one),
// for a caller that records their hash before writing them.
func Encode(l *Log) ([]byte, error) {
	if l == nil {
		l = &Log{}
	}
	c := *l
	c.Format = format
	if c.Edits == nil {
		c.Edits = []Edit{}
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("edits: write: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("edits: write: %w", err)
	}
	return append(b, '\n'), nil
}
