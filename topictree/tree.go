package topictree

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Limits bound the tree's growth.
type Limits struct {
	MaxDepth    int // maximum number of levels (root alone = 1)
	MaxChildren int // maximum children of any one parent
}

// DefaultLimits are HGTM's defaults, which gtformer adopts (docs/design.md,
// "Topic tree"): depth 4, 20
// children per parent.
var DefaultLimits = Limits{MaxDepth: 4, MaxChildren: 20}

// Initial tree shape (docs/design.md, "Topic tree"): 3 levels, branching 3
// (13 topics).
const (
	DefaultDepth     = 3
	DefaultBranching = 3
)

func (l Limits) validate() error {
	if l.MaxDepth < 1 {
		return fmt.Errorf("topictree: max depth %d < 1", l.MaxDepth)
	}
	if l.MaxDepth > maxDepthLimit {
		return fmt.Errorf("topictree: max depth %d > %d", l.MaxDepth, maxDepthLimit)
	}
	if l.MaxChildren < 1 {
		return fmt.Errorf("topictree: max children %d < 1", l.MaxChildren)
	}
	return nil
}

// topic is one node. Parent is -1 for the root.
type topic struct {
	id, parent, level int
	children          []int // ids in sibling order
}

// Tree is a rooted, ordered topic tree. The zero value is not usable; build
// one with New or ReadJSON.
type Tree struct {
	lim    Limits
	nodes  map[int]*topic
	root   int
	nextID int // next id to hand out; ids below it are used or retired

	order []int       // dense row -> id (breadth-first)
	rowOf map[int]int // id -> dense row
	tab   *Tables
}

// New returns the initial tree: depth levels (the root is level 0), every
// topic above the last level with branching children. Limits are
// DefaultLimits raised where needed so that the initial tree fits them; use
// SetLimits to choose others. Ids are handed out in breadth-first order, so
// initially id = row.
func New(depth, branching int) (*Tree, error) {
	if depth < 1 {
		return nil, fmt.Errorf("topictree: initial depth %d < 1", depth)
	}
	if branching < 1 {
		return nil, fmt.Errorf("topictree: initial branching %d < 1", branching)
	}
	if depth > maxDepthLimit {
		return nil, fmt.Errorf("topictree: initial depth %d > %d", depth, maxDepthLimit)
	}
	// Guard against absurd sizes from user flags before allocating.
	total, layer := 1, 1
	for l := 1; l < depth; l++ {
		layer *= branching
		total += layer
		if total > maxTopics {
			return nil, fmt.Errorf("topictree: initial tree of depth %d and branching %d has more than %d topics", depth, branching, maxTopics)
		}
	}
	lim := DefaultLimits
	lim.MaxDepth = max(lim.MaxDepth, depth)
	lim.MaxChildren = max(lim.MaxChildren, branching)
	t := &Tree{lim: lim, nodes: map[int]*topic{}}
	t.nodes[0] = &topic{id: 0, parent: -1}
	t.nextID = 1
	frontier := []int{0}
	for l := 1; l < depth; l++ {
		var next []int
		for _, p := range frontier {
			for range branching {
				next = append(next, t.attach(p))
			}
		}
		frontier = next
	}
	t.rebuild()
	return t, nil
}

// maxDepthLimit caps MaxDepth so that the path tables (at most T·depth
// entries) stay small whatever the input; topic hierarchies are a handful of
// levels deep.
const maxDepthLimit = 64

// maxTopics caps the tree size accepted from flags or JSON, so hostile input
// cannot exhaust memory; real trees have tens to hundreds of topics.
const maxTopics = 1 << 20

// attach appends a new child to parent p without rebuilding the tables.
func (t *Tree) attach(p int) int {
	id := t.nextID
	t.nextID++
	pt := t.nodes[p]
	t.nodes[id] = &topic{id: id, parent: p, level: pt.level + 1}
	pt.children = append(pt.children, id)
	return id
}

// rebuild recomputes the dense order and the tables after a structural change.
func (t *Tree) rebuild() {
	t.order = t.order[:0]
	t.order = append(t.order, t.root)
	for i := 0; i < len(t.order); i++ {
		t.order = append(t.order, t.nodes[t.order[i]].children...)
	}
	t.rowOf = make(map[int]int, len(t.order))
	for r, id := range t.order {
		t.rowOf[id] = r
	}
	t.tab = buildTables(t)
}

// Limits returns the growth limits.
func (t *Tree) Limits() Limits { return t.lim }

// SetLimits changes the growth limits; it fails if the current tree already
// exceeds them.
func (t *Tree) SetLimits(lim Limits) error {
	if err := lim.validate(); err != nil {
		return err
	}
	if d := t.Depth(); d > lim.MaxDepth {
		return fmt.Errorf("topictree: tree depth %d exceeds max depth %d", d, lim.MaxDepth)
	}
	for _, id := range t.order {
		if n := len(t.nodes[id].children); n > lim.MaxChildren {
			return fmt.Errorf("topictree: topic %d has %d children, more than max children %d", id, n, lim.MaxChildren)
		}
	}
	t.lim = lim
	return nil
}

// Len is the number of topics T.
func (t *Tree) Len() int { return len(t.order) }

// Depth is the number of levels (root alone = 1).
func (t *Tree) Depth() int { return t.tab.Depth }

// Root is the root's id.
func (t *Tree) Root() int { return t.root }

// NextID is the id the next added topic will get; every id below it is in use
// or retired.
func (t *Tree) NextID() int { return t.nextID }

// Tables returns the index tables for the current structure. They are
// immutable and stay valid after later changes (which build new ones).
func (t *Tree) Tables() *Tables { return t.tab }

// Has reports whether id is a topic of the tree.
func (t *Tree) Has(id int) bool { _, ok := t.nodes[id]; return ok }

func (t *Tree) node(op string, id int) *topic {
	n, ok := t.nodes[id]
	if !ok {
		panic(fmt.Sprintf("topictree: %s: no topic with id %d", op, id))
	}
	return n
}

// Row is the dense row of topic id. It panics if id is not in the tree.
func (t *Tree) Row(id int) int { t.node("Row", id); return t.rowOf[id] }

// ID is the id of the topic at dense row r.
func (t *Tree) ID(r int) int { return t.order[r] }

// IDs returns the ids in dense (row) order.
func (t *Tree) IDs() []int { return append([]int(nil), t.order...) }

// Parent is the parent's id, -1 for the root.
func (t *Tree) Parent(id int) int { return t.node("Parent", id).parent }

// Children returns the children's ids in sibling order (a copy).
func (t *Tree) Children(id int) []int {
	return append([]int(nil), t.node("Children", id).children...)
}

// Level is the topic's level (root = 0).
func (t *Tree) Level(id int) int { return t.node("Level", id).level }

// IsLeaf reports whether the topic has no children.
func (t *Tree) IsLeaf(id int) bool { return len(t.node("IsLeaf", id).children) == 0 }

// Clone returns an independent copy (tables are shared: they are immutable).
func (t *Tree) Clone() *Tree {
	c := &Tree{lim: t.lim, root: t.root, nextID: t.nextID, nodes: make(map[int]*topic, len(t.nodes))}
	for id, n := range t.nodes {
		c.nodes[id] = &topic{id: n.id, parent: n.parent, level: n.level, children: append([]int(nil), n.children...)}
	}
	c.order = append([]int(nil), t.order...)
	c.rowOf = make(map[int]int, len(t.rowOf))
	for k, v := range t.rowOf {
		c.rowOf[k] = v
	}
	c.tab = t.tab
	return c
}

// Errors returned by AddChild and Remove.
var (
	ErrMaxDepth    = errors.New("max depth reached")
	ErrMaxChildren = errors.New("max children reached")
	ErrNoTopic     = errors.New("no such topic")
	ErrRoot        = errors.New("the root cannot be removed")
)

// AddChild appends a new topic as the last child of parent and returns its
// id. It fails (wrapping ErrMaxDepth or ErrMaxChildren) rather than exceed
// the limits. Tables are rebuilt.
func (t *Tree) AddChild(parent int) (int, error) {
	p, ok := t.nodes[parent]
	if !ok {
		return 0, fmt.Errorf("topictree: add child to %d: %w", parent, ErrNoTopic)
	}
	if p.level+1 >= t.lim.MaxDepth {
		return 0, fmt.Errorf("topictree: add child to %d at level %d: %w (%d)", parent, p.level, ErrMaxDepth, t.lim.MaxDepth)
	}
	if len(p.children) >= t.lim.MaxChildren {
		return 0, fmt.Errorf("topictree: add child to %d: %w (%d)", parent, ErrMaxChildren, t.lim.MaxChildren)
	}
	id := t.attach(parent)
	t.rebuild()
	return id, nil
}

// Remove deletes topic id with its whole subtree and returns the removed ids
// in dense (pre-removal row) order. The root cannot be removed. A parent left
// without children becomes a leaf. Ids are retired, never reused.
func (t *Tree) Remove(id int) ([]int, error) {
	n, ok := t.nodes[id]
	if !ok {
		return nil, fmt.Errorf("topictree: remove %d: %w", id, ErrNoTopic)
	}
	if n.parent < 0 {
		return nil, fmt.Errorf("topictree: remove %d: %w", id, ErrRoot)
	}
	removed := t.detach(id)
	t.rebuild()
	return removed, nil
}

// detach removes id's subtree without rebuilding; it returns the removed ids
// in dense order of the current tables.
func (t *Tree) detach(id int) []int {
	n := t.nodes[id]
	p := t.nodes[n.parent]
	for i, c := range p.children {
		if c == id {
			p.children = append(p.children[:i], p.children[i+1:]...)
			break
		}
	}
	sub := []int{id}
	for i := 0; i < len(sub); i++ {
		sub = append(sub, t.nodes[sub[i]].children...)
	}
	for _, s := range sub {
		delete(t.nodes, s)
	}
	// Callers want old-row order; breadth-first from id already is, but
	// sorting keeps that true whatever order the walk above takes.
	sortByRow(sub, t.rowOf)
	return sub
}

func sortByRow(ids []int, rowOf map[int]int) {
	slices.SortFunc(ids, func(a, b int) int { return rowOf[a] - rowOf[b] })
}

// Render writes the tree indented two spaces per level, depth-first with
// children in sibling order, one topic a line: "id label". label receives
// the topic's dense row; a nil label prints ids only.
func (t *Tree) Render(w io.Writer, label func(row int) string) error {
	bw := bufio.NewWriter(w)
	stack := []int{t.root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.nodes[id]
		bw.WriteString(strings.Repeat("  ", n.level))
		fmt.Fprint(bw, id)
		if label != nil {
			if s := label(t.rowOf[id]); s != "" {
				bw.WriteByte(' ')
				bw.WriteString(s)
			}
		}
		bw.WriteByte('\n')
		for i := len(n.children) - 1; i >= 0; i-- {
			stack = append(stack, n.children[i])
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("topictree: render: %w", err)
	}
	return nil
}

// String renders the tree with ids only.
func (t *Tree) String() string {
	var b strings.Builder
	t.Render(&b, nil)
	return b.String()
}
