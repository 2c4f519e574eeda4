package topictree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// JSON form of a tree (version 1). Topics are listed in dense row order;
// next_id preserves the id counter so that ids retired before a checkpoint
// stay retired after it.
//
//	{"version": 1, "max_depth": 4, "max_children": 20, "next_id": 13,
//	 "topics": [{"id": 0, "parent": -1, "level": 0, "children": [1, 2, 3]}, …]}
type treeJSON struct {
	Version     int         `json:"version"`
	MaxDepth    int         `json:"max_depth"`
	MaxChildren int         `json:"max_children"`
	NextID      int         `json:"next_id"`
	Topics      []topicJSON `json:"topics"`
}

type topicJSON struct {
	ID       int   `json:"id"`
	Parent   int   `json:"parent"`
	Level    int   `json:"level"`
	Children []int `json:"children"`
}

const jsonVersion = 1

// MarshalJSON encodes the tree (see the format above).
func (t *Tree) MarshalJSON() ([]byte, error) {
	tj := treeJSON{Version: jsonVersion, MaxDepth: t.lim.MaxDepth, MaxChildren: t.lim.MaxChildren, NextID: t.nextID}
	tj.Topics = make([]topicJSON, len(t.order))
	for r, id := range t.order {
		n := t.nodes[id]
		ch := n.children
		if ch == nil {
			ch = []int{}
		}
		tj.Topics[r] = topicJSON{ID: id, Parent: n.parent, Level: n.level, Children: ch}
	}
	return json.Marshal(tj)
}

// WriteJSON writes the tree as indented JSON.
func (t *Tree) WriteJSON(w io.Writer) error {
	b, err := t.MarshalJSON()
	if err != nil {
		return fmt.Errorf("topictree: encode: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("topictree: encode: %w", err)
	}
	out.WriteByte('\n')
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("topictree: write: %w", err)
	}
	return nil
}

// UnmarshalJSON decodes and validates a tree, replacing t's contents. On
// error t is unchanged.
func (t *Tree) UnmarshalJSON(b []byte) error {
	nt, err := parseJSON(b)
	if err != nil {
		return err
	}
	*t = *nt
	return nil
}

// ReadJSON reads and validates a tree. Errors say what is wrong and where
// (JSON line for syntax errors, topic id for structural ones); malformed
// input never panics.
func ReadJSON(r io.Reader) (*Tree, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("topictree: read: %w", err)
	}
	return parseJSON(b)
}

// ReadFile reads a tree from a JSON file; errors name the file.
func ReadFile(path string) (*Tree, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("topictree: %w", err)
	}
	t, err := parseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func parseJSON(b []byte) (*Tree, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var tj treeJSON
	if err := dec.Decode(&tj); err != nil {
		return nil, jsonError(b, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("topictree: tree JSON: line %d: data after the tree object", lineAt(b, dec.InputOffset()))
	}
	t, err := fromJSON(&tj)
	if err != nil {
		return nil, fmt.Errorf("topictree: tree JSON: %w", err)
	}
	return t, nil
}

// jsonError adds the line number to a decoding error.
func jsonError(b []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := dec.InputOffset()
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF):
		return fmt.Errorf("topictree: tree JSON: empty input")
	}
	return fmt.Errorf("topictree: tree JSON: line %d: %w", lineAt(b, off), err)
}

func lineAt(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return 1 + bytes.Count(b[:off], []byte{'\n'})
}

// fromJSON validates the decoded form: limits, ids unique and below next_id,
// exactly one root, parent and children lists agreeing, every topic reachable
// from the root (which with the agreement rules out cycles), levels equal to
// the parent's plus one, and the tree within its limits.
func fromJSON(tj *treeJSON) (*Tree, error) {
	if tj.Version != jsonVersion {
		return nil, fmt.Errorf("version %d, want %d", tj.Version, jsonVersion)
	}
	lim := Limits{MaxDepth: tj.MaxDepth, MaxChildren: tj.MaxChildren}
	if err := lim.validate(); err != nil {
		return nil, err
	}
	if len(tj.Topics) == 0 {
		return nil, errors.New("no topics")
	}
	if len(tj.Topics) > maxTopics {
		return nil, fmt.Errorf("%d topics, more than the limit %d", len(tj.Topics), maxTopics)
	}
	t := &Tree{lim: lim, nextID: tj.NextID, nodes: make(map[int]*topic, len(tj.Topics)), root: -1}
	for i, tp := range tj.Topics {
		if tp.ID < 0 {
			return nil, fmt.Errorf("topics[%d]: negative id %d", i, tp.ID)
		}
		if tp.ID >= tj.NextID {
			return nil, fmt.Errorf("topic %d: id not below next_id %d", tp.ID, tj.NextID)
		}
		if _, dup := t.nodes[tp.ID]; dup {
			return nil, fmt.Errorf("topic %d: duplicate id", tp.ID)
		}
		if tp.Parent == -1 {
			if t.root >= 0 {
				return nil, fmt.Errorf("topics %d and %d are both roots (parent -1)", t.root, tp.ID)
			}
			t.root = tp.ID
		} else if tp.Parent < 0 {
			return nil, fmt.Errorf("topic %d: parent %d (use -1 for the root)", tp.ID, tp.Parent)
		}
		if len(tp.Children) > lim.MaxChildren {
			return nil, fmt.Errorf("topic %d: %d children, more than max_children %d", tp.ID, len(tp.Children), lim.MaxChildren)
		}
		t.nodes[tp.ID] = &topic{id: tp.ID, parent: tp.Parent, level: tp.Level, children: append([]int(nil), tp.Children...)}
	}
	if t.root < 0 {
		return nil, errors.New("no root (a topic with parent -1)")
	}
	// Parent and children lists agree: each listed child exists, names this
	// topic as parent and is listed once; each non-root topic is listed by
	// its parent (counted below).
	listed := make(map[int]bool, len(t.nodes))
	for _, tp := range tj.Topics {
		for _, c := range tp.Children {
			cn, ok := t.nodes[c]
			if !ok {
				return nil, fmt.Errorf("topic %d: child %d does not exist", tp.ID, c)
			}
			if cn.parent != tp.ID {
				return nil, fmt.Errorf("topic %d: lists child %d whose parent is %d", tp.ID, c, cn.parent)
			}
			if listed[c] {
				return nil, fmt.Errorf("topic %d: child %d listed twice", tp.ID, c)
			}
			listed[c] = true
		}
	}
	for _, tp := range tj.Topics {
		if tp.Parent < 0 {
			continue
		}
		if _, ok := t.nodes[tp.Parent]; !ok {
			return nil, fmt.Errorf("topic %d: parent %d does not exist", tp.ID, tp.Parent)
		}
		if !listed[tp.ID] {
			return nil, fmt.Errorf("topic %d: not in the children of its parent %d", tp.ID, tp.Parent)
		}
	}
	// Walk from the root: every topic must be reached exactly once, with
	// consistent levels.
	if l := t.nodes[t.root].level; l != 0 {
		return nil, fmt.Errorf("topic %d: root has level %d, want 0", t.root, l)
	}
	seen := map[int]bool{t.root: true}
	queue := []int{t.root}
	for i := 0; i < len(queue); i++ {
		n := t.nodes[queue[i]]
		if n.level+1 > lim.MaxDepth {
			return nil, fmt.Errorf("topic %d: level %d exceeds max_depth %d", n.id, n.level, lim.MaxDepth)
		}
		for _, c := range n.children {
			if seen[c] {
				return nil, fmt.Errorf("topic %d: child %d reached twice (cycle)", n.id, c)
			}
			seen[c] = true
			if cl := t.nodes[c].level; cl != n.level+1 {
				return nil, fmt.Errorf("topic %d: level %d, want %d (parent %d has level %d)", c, cl, n.level+1, n.id, n.level)
			}
			queue = append(queue, c)
		}
	}
	if len(queue) != len(t.nodes) {
		for _, tp := range tj.Topics {
			if !seen[tp.ID] {
				return nil, fmt.Errorf("topic %d: not reachable from root %d (cycle)", tp.ID, t.root)
			}
		}
	}
	t.rebuild()
	return t, nil
}
