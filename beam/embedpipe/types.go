package embedpipe

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Document keys (int64, the pipeline's join keys) order documents as
// `gtformer embed --new` numbers them in the extended corpus: corpus
// documents by their index, then new documents by input file (the sorted
// match list) and line. Sorting neighbour lists by key therefore gives the
// lists Model.Embed aggregates over.
const (
	newBit    = int64(1) << 62
	lineBits  = 36 // lines per file < 2^36
	fileLimit = int64(1) << (62 - lineBits)
)

func newKey(file, line int64) int64 { return newBit | file<<lineBits | line }

func isNew(key int64) bool { return key&newBit != 0 }

// inputFile is one input shard and its place in the sorted match list.
type inputFile struct {
	Path  string
	Index int64
}

// newDoc is a parsed input line.
type newDoc struct {
	Key    int64
	ID     string
	Source string // file:line
	Words  []int32
	Links  []string
}

// deadLetter is a record that was not embedded, with the reason.
type deadLetter struct {
	Source string `json:"source"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason"`
	Record string `json:"record,omitempty"`
}

// corpusDoc is a corpus document from the states export.
type corpusDoc struct {
	Index  int64
	ID     string
	Words  []int32
	Links  []int64
	States []float32
}

// node is a document (new or corpus) with its neighbour list.
type node struct {
	Key    int64
	ID     string
	Source string  // new documents: file:line
	Words  []int32 // the whole document
	// Nbrs are the neighbours' keys as Model.Embed aggregates over them:
	// sorted, capped (model.CapList), the document itself when it has none.
	Nbrs []int64
	// Links are all its neighbours' keys, sorted, uncapped: what hop
	// features are propagated over (set only for a model that reads them).
	Links []int64
	// Hop are its hop features, once joined in (hop.go); nil before, and
	// for a model without them.
	Hop   []float32
	State []float32 // corpus documents: stored own-text states (Layers, Width); nil for new ones, and with hop features (never read then)
	// Unknown lists a new document's links that name no document.
	Unknown []string
	// Targets are the centres of the next hop stage that read this
	// document's features (hop.go), sorted; set in the hop stages only.
	Targets []int64
}

// outbox is what a document sends once, keyed by itself: its states (or
// hop features) and the centres of the next stage that read them. Each
// wave of that stage fans it out to its own centres (fanOutFn), so that
// the per-link messages of a wave are made only when the wave runs.
type outbox struct {
	State   []float32
	Targets []int64 // sorted
}

// nbrState is a neighbour's states, routed to a centre that reads them.
type nbrState struct {
	Key   int64
	State []float32
}

// centre is a node with its neighbours' states, in Nbrs order: the input
// of one model pass.
type centre struct {
	Node   node
	States []float32 // len(Nbrs) × Layers × Width
}

// result is an embedded document.
type result struct {
	ID         string
	Source     string
	Point      []float32 // n+1 coordinates on the manifold
	TopIDs     []int32
	TopWeights []float32
	Path       []int32
	Unknown    []string
}

// Registration by reflection: the register package's generic wrappers are
// faster per element, but instantiating them for this many DoFns took
// minutes and gigabytes to compile, and the pipeline's time goes to the
// model, not to calls.
func init() {
	for _, t := range []any{
		inputFile{}, deadLetter{}, pairOf{}, shardPart{}, // the others have coders (codec.go)
		readFn{}, ownIDFn{}, parseStatesFn{}, resolveNewFn{}, nodeFn{}, assembleFn{}, ownStatesFn{}, nestedFn{}, embedFn{}, splitStatesFn{},
		formatDeadFn{}, writeLinesFn{}, writePartsFn{}, writeShardFn{}, writeCountsFn{},
		hopStartFn{}, hopStepFn{}, withHopFn{}, assembleHopFn{}, splitFn{}, gateFn{}, fanOutFn{},
	} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	for _, fn := range []any{
		keyByID, linkNames, idIndex, docByKey, corpusID, resolveKnown, isNewNode, requestsOf,
		withoutStates, shardIndex, topicHits, sumInt64, toPair,
		eitherNode, linkRequestsOf, dropKey, linksOnly, neededBy, doneKV, done1,
	} {
		beam.RegisterFunction(fn)
	}
}
