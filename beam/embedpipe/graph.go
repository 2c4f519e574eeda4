package embedpipe

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
)

// linkNames emits (name, document key) once per distinct link name of a
// document.
func linkNames(d newDoc, emit func(string, int64)) {
	seen := make(map[string]bool, len(d.Links))
	for _, s := range d.Links {
		if !seen[s] {
			seen[s] = true
			emit(s, d.Key)
		}
	}
}

// idIndex keys a new document's key by its id.
func idIndex(d newDoc) (string, int64) { return d.ID, d.Key }

// docByKey keys a new document by its key.
func docByKey(d newDoc) (int64, newDoc) { return d.Key, d }

// resolveNewFn resolves the links that name a new document (ids of new
// documents come first; no new id names a corpus document by now) into edges, both
// ways; the others go on to the corpus's ids under their canonical name
// (a folder corpus names documents by line number, which a link may write
// as 7 or "007").
type resolveNewFn struct {
	LineNumberIDs bool
	Docs          int64
}

func (f *resolveNewFn) ProcessElement(name string, froms func(*int64) bool, targets func(*int64) bool, edge func(int64, int64), pending func(string, int64)) {
	to, found := int64(0), false
	var t int64
	for targets(&t) { // at most one: ids are unique by now
		to, found = t, true
	}
	var from int64
	if found {
		for froms(&from) {
			if from != to { // a link to itself is dropped, as SetLinks drops it
				edge(from, to)
				edge(to, from)
			}
		}
		return
	}
	key := name
	if f.LineNumberIDs {
		if k, ok := corpus.LineNumberID(name, int(f.Docs)); ok {
			key = strconv.Itoa(k)
		}
	}
	for froms(&from) {
		pending(key, from)
	}
}

// corpusID keys a corpus document's index by its id.
func corpusID(_ int64, c corpusDoc) (string, int64) { return c.ID, c.Index }

// resolveKnown resolves links to corpus ids into edges, both ways; a link
// that names nothing is counted and reported with its document.
func resolveKnown(ctx context.Context, name string, froms func(*int64) bool, index func(*int64) bool, edge func(int64, int64), unknown func(int64, string)) {
	to := int64(-1)
	var t int64
	for index(&t) {
		to = max(to, t) // a repeated corpus id names its last document, as in embed --new
	}
	var from int64
	if to >= 0 {
		for froms(&from) {
			edge(from, to)
			edge(to, from)
		}
		return
	}
	var n int64
	for froms(&from) {
		unknown(from, name)
		n++
	}
	unknownLinksCounter.Inc(ctx, n)
}

// nodeFn builds every document's node: a new document from its line, a
// corpus document from its record, each with the sorted, capped neighbour
// list Model.Embed would aggregate over in the extended corpus (a corpus
// document's own links plus the new documents that link to it).
type nodeFn struct {
	MaxNbrs int
	Links   bool // keep the whole list too (node.Links), for hop features
}

func (f *nodeFn) ProcessElement(key int64, recs func(*corpusDoc) bool, docs func(*newDoc) bool, edges func(*int64) bool, unknowns func(*string) bool, emit func(int64, node), dead func(deadLetter)) {
	var nbrs []int64
	var e int64
	for edges(&e) {
		nbrs = append(nbrs, e)
	}
	var n node
	var c corpusDoc
	var d newDoc
	switch {
	case recs(&c):
		n = node{Key: key, ID: c.ID, Words: c.Words, State: c.States} // no states with hop features (parseStatesFn.NoStates)
		nbrs = append(nbrs, c.Links...)
	case docs(&d):
		n = node{Key: key, ID: d.ID, Source: d.Source, Words: d.Words}
		var u string
		for unknowns(&u) {
			n.Unknown = append(n.Unknown, u)
		}
		slices.Sort(n.Unknown)
	default:
		if len(nbrs) > 0 {
			dead(deadLetter{Source: "pipeline", Reason: fmt.Sprintf("internal: links to document key %d, which is neither new nor in the corpus", key)})
		}
		return
	}
	slices.Sort(nbrs)
	nbrs = slices.Compact(nbrs)
	if f.Links {
		n.Links = slices.Clone(nbrs)
	}
	if len(nbrs) == 0 {
		nbrs = []int64{key} // a document without links attends to itself
	}
	n.Nbrs = slices.Clone(model.CapList(nbrs, f.MaxNbrs))
	emit(key, n)
}

// isNewNode keeps new documents' nodes.
func isNewNode(key int64, n node, emit func(int64, node)) {
	if isNew(key) {
		emit(key, n)
	}
}

// requestsOf emits (neighbour, centre) for every neighbour a centre reads.
func requestsOf(key int64, n node, emit func(int64, int64)) {
	for _, y := range n.Nbrs {
		emit(y, key)
	}
}

// sendStates sends a document's states to the centres of the next stage
// that read them, its Targets (itself too: a document without links reads
// its own states), so that no join of requests and states runs per stage:
// once, keyed by the document, for each wave of the next stage to fan out
// to its own centres (fanOutFn).
func sendStates(n *node, st []float32, emit func(int64, outbox)) {
	if len(n.Targets) > 0 {
		emit(n.Key, outbox{State: st, Targets: n.Targets})
	}
}

// assembleFn lays a centre's neighbours' states out in its Nbrs order.
type assembleFn struct {
	Width int // floats per document's states: Layers × Width
}

func (f *assembleFn) ProcessElement(key int64, nodes func(*node) bool, msgs func(*nbrState) bool, emit func(centre), dead func(deadLetter)) {
	var n node
	if !nodes(&n) {
		return
	}
	assemble(n, msgs, f.Width, emit, dead)
}

// assembleHopFn is assembleFn for a model with hop features: the centre's
// own features join in the same grouping as its neighbours' states, so
// that giving it its features takes no join of its own.
type assembleHopFn struct {
	Width    int // floats per document's states
	HopWidth int
}

func (f *assembleHopFn) ProcessElement(key int64, nodes func(*node) bool, hops func(*vec) bool, msgs func(*nbrState) bool, emit func(centre), dead func(deadLetter)) {
	var n node
	if !nodes(&n) {
		return
	}
	var ok bool
	if n, ok = hopOf(key, n, hops, f.HopWidth, dead); ok {
		assemble(n, msgs, f.Width, emit, dead)
	}
}

// assemble lays out the states of centre n's neighbours (width floats
// each) from msgs.
func assemble(n node, msgs func(*nbrState) bool, width int, emit func(centre), dead func(deadLetter)) {
	got := make(map[int64][]float32, len(n.Nbrs))
	var m nbrState
	for msgs(&m) {
		got[m.Key] = m.State
	}
	c := centre{Node: n, States: make([]float32, 0, len(n.Nbrs)*width)}
	for _, y := range n.Nbrs {
		st, ok := got[y]
		if !ok || len(st) != width {
			dead(deadLetter{Source: n.Source, ID: n.ID, Reason: fmt.Sprintf("internal: the states of neighbour key %d did not arrive; not embedded", y)})
			return
		}
		c.States = append(c.States, st...)
	}
	emit(c)
}

// splitStatesFn sends a needed corpus document's stored own-text states
// (the first Send floats: the layers the next stage reads, sendLayers) to
// the centres that read them, and a new document on to be encoded.
type splitStatesFn struct {
	Send int // floats
}

func (f *splitStatesFn) ProcessElement(key int64, n node, stored func(int64, outbox), encode func(node)) {
	if isNew(key) {
		encode(n)
		return
	}
	st := n.State
	if len(st) > f.Send {
		st = st[:f.Send:f.Send]
	}
	sendStates(&n, st, stored)
}
