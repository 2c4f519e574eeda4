package embedpipe

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/model"
)

// Hop features (model Config.FeatureHops K > 0, the default): the model's
// [CLS] start reads a document's [Z₀ | Z₁ | … | Z_K], Z₀ its tf-idf row
// projected on the model's basis and Z_k the normalised sum of Z_{k−1}
// over the document and all its links (uncapped). `gtformer embed --new`
// propagates them over the extended corpus, so a new document's links
// change the features of the corpus documents within K links of it, and
// those documents' own-text states with them: the stored states of the
// export hold only for documents further away. The pipeline therefore
// computes the features of every document it encodes in K stages of
// joins (stage k's centres read their links' Z_{k−1}, as the neighbour
// stages read states), each step by features.HopStep, the step Propagate
// takes, so the numbers are embed --new's; and it encodes every state it
// reads rather than using stored ones. The cost is that the documents
// read reach K links further (on the full, uncapped link lists).

// hopFeatures returns (key, hop features) for the documents of encoded
// (collections of (key, node)), each HopWidth floats, in the waves of
// p.Waves.
func hopFeatures(s beam.Scope, p *Plan, nodes beam.PCollection, encoded []beam.PCollection, dead *[]beam.PCollection) waved {
	s = s.Scope("hop-features")
	K := p.FeatureHops
	// Backwards: need[K] are the documents encoded (their union, by
	// joins: Prism failed on a Flatten here), need[k−1] need[k] with all
	// their links, each with the centres of stage k that read it
	// (Targets).
	// These passes read link lists only: they carry nodes without their
	// words and states (linksOnly), and only need[0], whose Z₀ reads the
	// words, joins the whole nodes. (A runner such as Prism holds every
	// collection a join waits for in memory: copies of whole documents
	// there were most of its memory.)
	need := make([]beam.PCollection, K+1)
	need[K] = beam.ParDo(s, linksOnly, encoded[0])
	for _, c := range encoded[1:] {
		need[K] = beam.ParDo(s, eitherNode, beam.CoGroupByKey(s, need[K], beam.ParDo(s, linksOnly, c)))
	}
	links := beam.ParDo(s, linksOnly, nodes)
	for k := K; k >= 1; k-- {
		reqs := beam.ParDo(s, linkRequestsOf, need[k])
		from := links
		if k == 1 {
			from = nodes
		}
		need[k-1] = beam.ParDo(s, neededBy, beam.CoGroupByKey(s, reqs, from))
	}
	// Forwards: Z₀, then a stage per hop, each document carrying its
	// features so far. A document of stage k−1 sends its Z_{k−1} (only
	// that: a hop step sums nothing else) to the centres of stage k that
	// read it, the Targets the backward pass gave it, so that no request
	// waits through the forward stages; a centre's own features so far
	// join its messages by key, once.
	// Each stage runs in waves (waves.go).
	start := &hopStartFn{Model: p.Model, Batch: p.Batch}
	// A wave's features so far (out[0]) are keyed by its own documents,
	// so they stay in their wave (byKey); its outboxes (out[1]) are
	// fanned out by each wave of the next stage to its own centres.
	out := inWaves(s, p.Waves, []waved{whole(need[0])}, func(parts []beam.PCollection) []beam.PCollection {
		z, msgs := beam.ParDo2(s, start, parts[0])
		return []beam.PCollection{z, msgs}
	})
	out[0].byKey, out[1] = true, outboxes(out[1])
	for k := 1; k <= K; k++ {
		step := &hopStepFn{Dim: p.HopDim, Hop: k}
		out = inWaves(s, p.Waves, []waved{whole(need[k]), out[0], out[1]}, func(parts []beam.PCollection) []beam.PCollection {
			z, msgs, lost := beam.ParDo3(s, step, beam.CoGroupByKey(s, parts...))
			*dead = append(*dead, lost)
			return []beam.PCollection{z, msgs}
		})
		out[0].byKey, out[1] = true, outboxes(out[1])
	}
	return out[0]
}

// neededBy passes on a document that some centre of the next stage reads,
// with those centres as its Targets.
func neededBy(key int64, reqs func(*int64) bool, nodes func(*node) bool, emit func(int64, node)) {
	var targets []int64
	var x int64
	for reqs(&x) {
		targets = append(targets, x)
	}
	var n node
	if len(targets) == 0 || !nodes(&n) {
		return
	}
	slices.Sort(targets)
	n.Targets = slices.Compact(targets)
	emit(key, n)
}

// send sends a document's features of the last hop, z, to the centres of
// the next stage that read them (not to itself: a centre's own features
// join it by key), as an outbox that each wave of that stage fans out to
// its own centres (fanOutFn).
func send(key int64, targets []int64, z []float32, emit func(int64, outbox)) {
	if i, found := slices.BinarySearch(targets, key); found {
		targets = slices.Delete(slices.Clone(targets), i, i+1)
	}
	if len(targets) > 0 {
		emit(key, outbox{State: z, Targets: targets})
	}
}

// linksOnly keeps what a hop stage reads of a node: its key, link list,
// and the names its dead letters give.
func linksOnly(key int64, n node) (int64, node) {
	return key, node{Key: n.Key, ID: n.ID, Source: n.Source, Links: n.Links}
}

// dropKey passes a keyed node on alone.
func dropKey(_ int64, n node) node { return n }

// eitherNode keeps a document that either collection holds, once.
func eitherNode(key int64, a, b func(*node) bool, emit func(int64, node)) {
	var n node
	if a(&n) || b(&n) {
		emit(key, n)
	}
}

// linkRequestsOf emits (document, centre) for the centre itself and every
// one of its links: what a hop step sums.
func linkRequestsOf(key int64, n node, emit func(int64, int64)) {
	emit(key, key)
	for _, y := range n.Links {
		emit(y, key)
	}
}

// hopStartFn computes Z₀ (model.HopStart), a batch of documents at a time.
type hopStartFn struct {
	Model string
	Batch int

	m   *model.Model
	buf []node
}

func (f *hopStartFn) Setup(ctx context.Context) (err error) {
	f.m, err = loadModel(ctx, f.Model)
	return err
}

func (f *hopStartFn) ProcessElement(ctx context.Context, _ int64, n node, emit func(int64, vec), msg func(int64, outbox)) {
	f.buf = append(f.buf, n)
	if len(f.buf) >= f.Batch {
		f.flush(ctx, emit, msg)
	}
}

func (f *hopStartFn) FinishBundle(ctx context.Context, emit func(int64, vec), msg func(int64, outbox)) {
	f.flush(ctx, emit, msg)
}

func (f *hopStartFn) flush(ctx context.Context, emit func(int64, vec), msg func(int64, outbox)) {
	if len(f.buf) == 0 {
		return
	}
	batchDist.Update(ctx, int64(len(f.buf)))
	words := make([][]int32, len(f.buf))
	for i, n := range f.buf {
		words[i] = n.Words
	}
	z := f.m.HopStart(f.m.DocInputs(words))
	d := len(z) / len(f.buf)
	for i, n := range f.buf {
		zi := z[i*d : (i+1)*d : (i+1)*d]
		emit(n.Key, vec{F: zi})
		send(n.Key, n.Targets, zi, msg)
	}
	f.buf = f.buf[:0]
}

// hopStepFn is hop stage Hop: a centre's Z_Hop from the Z_{Hop−1} of
// itself (the last of its features so far, own) and of its links (msgs)
// in the order of its link list, appended to own; Z_Hop goes on to the
// centres of the next stage that read it.
type hopStepFn struct {
	Dim int // floats per hop
	Hop int
}

func (f *hopStepFn) ProcessElement(key int64, nodes func(*node) bool, owns func(*vec) bool, msgs func(*nbrState) bool, emit func(int64, vec), msg func(int64, outbox), dead func(deadLetter)) {
	var n node
	if !nodes(&n) {
		return
	}
	got := make(map[int64][]float32, len(n.Links)+1)
	var m nbrState
	for msgs(&m) {
		got[m.Key] = m.State
	}
	have := f.Hop * f.Dim // floats of Z₀ … Z_{Hop−1}
	lost := func(y int64) {
		dead(deadLetter{Source: n.Source, ID: n.ID, Reason: fmt.Sprintf("internal: hop %d: the features of document key %d did not arrive; not embedded", f.Hop, y)})
	}
	var ov vec
	if !owns(&ov) || len(ov.F) != have {
		lost(key)
		return
	}
	own := ov.F
	rows := make([][]float32, len(n.Links))
	for i, y := range n.Links {
		r, ok := got[y]
		if !ok || len(r) != f.Dim {
			lost(y)
			return
		}
		rows[i] = r
	}
	out := make([]float32, have+f.Dim)
	copy(out, own)
	features.HopStep(out[have:], make([]float64, f.Dim), own[have-f.Dim:], rows)
	emit(key, vec{F: out})
	send(key, n.Targets, out[have:], msg)
}

// withHopFn gives a node its hop features.
type withHopFn struct {
	Width int // HopWidth
}

func (f *withHopFn) ProcessElement(key int64, nodes func(*node) bool, hops func(*vec) bool, emit func(int64, node), dead func(deadLetter)) {
	var n node
	if !nodes(&n) {
		return
	}
	if n, ok := hopOf(key, n, hops, f.Width, dead); ok {
		emit(key, n)
	}
}

// hopOf gives n its hop features, the one vector of width floats hops
// holds; else a dead letter and false.
func hopOf(key int64, n node, hops func(*vec) bool, width int, dead func(deadLetter)) (node, bool) {
	var h vec
	if !hops(&h) || len(h.F) != width {
		dead(deadLetter{Source: n.Source, ID: n.ID, Reason: fmt.Sprintf("internal: the hop features of document key %d did not arrive; not embedded", key)})
		return n, false
	}
	n.Hop = h.F
	return n, true
}

// setHop lays the hop features of the first len(rows) documents of in out
// (the rest, neighbour slots that are never encoded, stay zero); no-op for
// a model without hop features.
func setHop(m *model.Model, in *model.Inputs, rows [][]float32) {
	w := m.HopWidth()
	if w == 0 {
		return
	}
	in.Hop, in.HopWidth = make([]float32, in.N*w), w
	for i, r := range rows {
		copy(in.Hop[i*w:(i+1)*w], r)
	}
}
