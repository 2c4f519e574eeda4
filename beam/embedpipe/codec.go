package embedpipe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Coders of the elements that cross stages. Beam's default for a struct is
// its schema row coder, which walks every field by reflection and a
// []float32 outside a struct is an iterable of floats, each through a
// custom coder call: on Prism, encoding and decoding between stages, with
// the garbage it leaves, took more CPU than the model. These coders write
// each element as one flat byte string: integers as varints, the sorted
// key lists (neighbours, links, targets) as deltas, floats as their raw
// 4 bytes. Floats round-trip bit for bit, and nil slices stay nil (their
// length is written plus one, 0 for nil), so no DoFn sees a difference.

func init() {
	beam.RegisterCoder(reflect.TypeOf(newDoc{}), encodeNewDoc, decodeNewDoc)
	beam.RegisterCoder(reflect.TypeOf(corpusDoc{}), encodeCorpusDoc, decodeCorpusDoc)
	beam.RegisterCoder(reflect.TypeOf(node{}), encodeNode, decodeNode)
	beam.RegisterCoder(reflect.TypeOf(nbrState{}), encodeNbrState, decodeNbrState)
	beam.RegisterCoder(reflect.TypeOf(outbox{}), encodeOutbox, decodeOutbox)
	beam.RegisterCoder(reflect.TypeOf(centre{}), encodeCentre, decodeCentre)
	beam.RegisterCoder(reflect.TypeOf(result{}), encodeResult, decodeResult)
	beam.RegisterCoder(reflect.TypeOf(vec{}), encodeVec, decodeVec)
}

// vec is a vector of floats as a collection's element (hop features,
// states): a bare []float32 would take Beam's per-float iterable coder.
type vec struct {
	F []float32
}

// wbuf appends an element's fields.
type wbuf struct{ b []byte }

func (w *wbuf) int(v int64) { w.b = binary.AppendVarint(w.b, v) }

// size writes a slice's length plus one, 0 for nil.
func (w *wbuf) size(n int, isNil bool) {
	if isNil {
		w.b = binary.AppendUvarint(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(n)+1)
}

func (w *wbuf) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *wbuf) strs(v []string) {
	w.size(len(v), v == nil)
	for _, s := range v {
		w.str(s)
	}
}

func (w *wbuf) int32s(v []int32) {
	w.size(len(v), v == nil)
	for _, x := range v {
		w.b = binary.AppendVarint(w.b, int64(x))
	}
}

// keys writes a key list as differences from the previous key: sorted
// lists of nearby keys (a new document's key is 2^62 + ...) take a byte or
// two a key instead of nine.
func (w *wbuf) keys(v []int64) {
	w.size(len(v), v == nil)
	prev := int64(0)
	for _, x := range v {
		w.b = binary.AppendVarint(w.b, x-prev) // wraps, and unwraps, in two's complement
		prev = x
	}
}

func (w *wbuf) floats(v []float32) {
	w.size(len(v), v == nil)
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(x))
	}
}

// rbuf reads an element's fields back; the first problem sticks in err.
type rbuf struct {
	b   []byte
	err error
}

var errShort = errors.New("element truncated")

func (r *rbuf) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *rbuf) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// size reads a slice's length (−1 for nil), at most what the rest of the
// element can hold at min bytes an item.
func (r *rbuf) size(min int) int {
	v := r.uint()
	if v == 0 {
		return -1
	}
	if v-1 > uint64(len(r.b)/min) {
		r.fail(errShort)
		return -1
	}
	return int(v - 1)
}

func (r *rbuf) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail(errShort)
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *rbuf) strs() []string {
	n := r.size(1)
	if n < 0 {
		return nil
	}
	v := make([]string, n)
	for i := range v {
		v[i] = r.str()
	}
	return v
}

func (r *rbuf) int32s() []int32 {
	n := r.size(1)
	if n < 0 {
		return nil
	}
	v := make([]int32, n)
	for i := range v {
		x := r.int()
		if x != int64(int32(x)) {
			r.fail(fmt.Errorf("value %d out of range", x))
		}
		v[i] = int32(x)
	}
	return v
}

func (r *rbuf) keys() []int64 {
	n := r.size(1)
	if n < 0 {
		return nil
	}
	v := make([]int64, n)
	prev := int64(0)
	for i := range v {
		prev += r.int()
		v[i] = prev
	}
	return v
}

func (r *rbuf) floats() []float32 {
	n := r.size(4)
	if n < 0 {
		return nil
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[4*i:]))
	}
	r.b = r.b[4*n:]
	return v
}

// done returns the first problem, or one if bytes are left over.
func (r *rbuf) done(what string) error {
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes left over", len(r.b))
	}
	if r.err != nil {
		return fmt.Errorf("embedpipe: decode %s: %w", what, r.err)
	}
	return nil
}

func encodeNewDoc(d newDoc) []byte {
	var w wbuf
	w.int(d.Key)
	w.str(d.ID)
	w.str(d.Source)
	w.int32s(d.Words)
	w.strs(d.Links)
	return w.b
}

func decodeNewDoc(b []byte) (newDoc, error) {
	r := rbuf{b: b}
	d := newDoc{Key: r.int(), ID: r.str(), Source: r.str(), Words: r.int32s(), Links: r.strs()}
	return d, r.done("new document")
}

func encodeCorpusDoc(c corpusDoc) []byte {
	var w wbuf
	w.int(c.Index)
	w.str(c.ID)
	w.int32s(c.Words)
	w.keys(c.Links)
	w.floats(c.States)
	return w.b
}

func decodeCorpusDoc(b []byte) (corpusDoc, error) {
	r := rbuf{b: b}
	c := corpusDoc{Index: r.int(), ID: r.str(), Words: r.int32s(), Links: r.keys(), States: r.floats()}
	return c, r.done("corpus document")
}

func (w *wbuf) node(n *node) {
	w.int(n.Key)
	w.str(n.ID)
	w.str(n.Source)
	w.int32s(n.Words)
	w.keys(n.Nbrs)
	w.keys(n.Links)
	w.floats(n.Hop)
	w.floats(n.State)
	w.strs(n.Unknown)
	w.keys(n.Targets)
}

func (r *rbuf) node() node {
	return node{Key: r.int(), ID: r.str(), Source: r.str(), Words: r.int32s(), Nbrs: r.keys(), Links: r.keys(),
		Hop: r.floats(), State: r.floats(), Unknown: r.strs(), Targets: r.keys()}
}

func encodeNode(n node) []byte {
	var w wbuf
	w.node(&n)
	return w.b
}

func decodeNode(b []byte) (node, error) {
	r := rbuf{b: b}
	n := r.node()
	return n, r.done("node")
}

func encodeNbrState(s nbrState) []byte {
	var w wbuf
	w.int(s.Key)
	w.floats(s.State)
	return w.b
}

func decodeNbrState(b []byte) (nbrState, error) {
	r := rbuf{b: b}
	s := nbrState{Key: r.int(), State: r.floats()}
	return s, r.done("neighbour state")
}

func encodeOutbox(o outbox) []byte {
	var w wbuf
	w.floats(o.State)
	w.keys(o.Targets)
	return w.b
}

func decodeOutbox(b []byte) (outbox, error) {
	r := rbuf{b: b}
	o := outbox{State: r.floats(), Targets: r.keys()}
	return o, r.done("outbox")
}

func encodeCentre(c centre) []byte {
	var w wbuf
	w.node(&c.Node)
	w.floats(c.States)
	return w.b
}

func decodeCentre(b []byte) (centre, error) {
	r := rbuf{b: b}
	c := centre{Node: r.node(), States: r.floats()}
	return c, r.done("centre")
}

func encodeResult(x result) []byte {
	var w wbuf
	w.str(x.ID)
	w.str(x.Source)
	w.floats(x.Point)
	w.int32s(x.TopIDs)
	w.floats(x.TopWeights)
	w.int32s(x.Path)
	w.strs(x.Unknown)
	return w.b
}

func decodeResult(b []byte) (result, error) {
	r := rbuf{b: b}
	x := result{ID: r.str(), Source: r.str(), Point: r.floats(), TopIDs: r.int32s(), TopWeights: r.floats(), Path: r.int32s(), Unknown: r.strs()}
	return x, r.done("result")
}

func encodeVec(v vec) []byte {
	var w wbuf
	w.floats(v.F)
	return w.b
}

func decodeVec(b []byte) (vec, error) {
	r := rbuf{b: b}
	v := vec{F: r.floats()}
	return v, r.done("vector")
}
