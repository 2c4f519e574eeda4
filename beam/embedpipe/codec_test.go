package embedpipe

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// TestCodecsRoundTrip: every element type with a coder comes back as it
// went in, nil slices nil and empty ones empty, floats bit for bit (NaN,
// −0), keys of both kinds in any order.
func TestCodecsRoundTrip(t *testing.T) {
	nan := math.Float32frombits(0x7fc00001)
	negZero := float32(math.Copysign(0, -1))
	big := newKey(fileLimit-1, 1<<lineBits-1)
	full := node{
		Key: newKey(3, 17), ID: "doc-é", Source: "a/b.jsonl:17", Words: []int32{0, 5, math.MaxInt32, -1},
		Nbrs: []int64{2, 9, newKey(0, 1), big}, Links: []int64{big, 0, -5, newKey(1, 2)},
		Hop: []float32{1.5, nan, negZero, math.MaxFloat32}, State: []float32{}, Unknown: []string{"x", ""},
		Targets: []int64{math.MinInt64, math.MaxInt64},
	}
	tests := []struct {
		name string
		v    any
		enc  func(any) []byte
		dec  func([]byte) (any, error)
	}{
		{"node zero", node{}, encAny(encodeNode), decAny(decodeNode)},
		{"node full", full, encAny(encodeNode), decAny(decodeNode)},
		{"node empty slices", node{Words: []int32{}, Nbrs: []int64{}, Unknown: []string{}}, encAny(encodeNode), decAny(decodeNode)},
		{"new document", newDoc{Key: newKey(2, 3), ID: "n", Source: "s:3", Words: []int32{7}, Links: []string{"a", "b"}}, encAny(encodeNewDoc), decAny(decodeNewDoc)},
		{"corpus document", corpusDoc{Index: 4, ID: "4", Words: []int32{1, 2}, Links: []int64{3, 1}, States: []float32{0.25}}, encAny(encodeCorpusDoc), decAny(decodeCorpusDoc)},
		{"neighbour state", nbrState{Key: big, State: []float32{nan, 1}}, encAny(encodeNbrState), decAny(decodeNbrState)},
		{"outbox", outbox{State: []float32{negZero, 2}, Targets: []int64{-3, 0, newKey(0, 1), big}}, encAny(encodeOutbox), decAny(decodeOutbox)},
		{"outbox nil", outbox{}, encAny(encodeOutbox), decAny(decodeOutbox)},
		{"centre", centre{Node: full, States: []float32{3, negZero}}, encAny(encodeCentre), decAny(decodeCentre)},
		{"result", result{ID: "r", Source: "f:1", Point: []float32{1, 2}, TopIDs: []int32{3}, TopWeights: []float32{0.5}, Path: []int32{0, 3}, Unknown: []string{"u"}}, encAny(encodeResult), decAny(decodeResult)},
		{"vector", vec{F: []float32{1, nan}}, encAny(encodeVec), decAny(decodeVec)},
		{"nil vector", vec{}, encAny(encodeVec), decAny(decodeVec)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.enc(tt.v)
			got, err := tt.dec(b)
			if err != nil {
				t.Fatal(err)
			}
			// reflect.DeepEqual fails on NaN: compare the encodings,
			// and the values where they hold no NaN.
			if again := tt.enc(got); !bytes.Equal(again, b) {
				t.Errorf("re-encoded %x, want %x", again, b)
			}
			if tt.name != "node full" && tt.name != "neighbour state" && tt.name != "centre" && tt.name != "vector" && !reflect.DeepEqual(got, tt.v) {
				t.Errorf("got %#v, want %#v", got, tt.v)
			}
			if n, ok := got.(node); ok && tt.name == "node full" {
				if n.Hop[1] == n.Hop[1] || math.Float32bits(n.Hop[1]) != math.Float32bits(nan) || math.Float32bits(n.Hop[2]) != math.Float32bits(negZero) {
					t.Errorf("floats changed: %v", n.Hop)
				}
				if n.State == nil || len(n.State) != 0 || !reflect.DeepEqual(n.Targets, full.Targets) || !reflect.DeepEqual(n.Links, full.Links) {
					t.Errorf("got %#v", n)
				}
			}
			// Every strict prefix is an error, never a panic or a value.
			for i := range b {
				if _, err := tt.dec(b[:i]); err == nil {
					t.Errorf("prefix of %d of %d bytes decoded", i, len(b))
				}
			}
			if _, err := tt.dec(append(b[:len(b):len(b)], 0)); err == nil {
				t.Error("a trailing byte was not an error")
			}
		})
	}
}

func encAny[T any](f func(T) []byte) func(any) []byte { return func(v any) []byte { return f(v.(T)) } }

func decAny[T any](f func([]byte) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) { return f(b) }
}

// FuzzDecodeNode: any bytes decode to an error or to a node that encodes
// back to bytes that decode to the same node.
func FuzzDecodeNode(f *testing.F) {
	f.Add(encodeNode(node{}))
	f.Add(encodeNode(node{Key: newKey(1, 2), ID: "a", Words: []int32{1}, Nbrs: []int64{3, 4}, Hop: []float32{1}, Unknown: []string{"z"}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := decodeNode(b)
		if err != nil {
			return
		}
		b2 := encodeNode(n)
		n2, err := decodeNode(b2)
		if err != nil {
			t.Fatalf("re-encoded node does not decode: %v", err)
		}
		if b3 := encodeNode(n2); !bytes.Equal(b3, b2) {
			t.Fatalf("encodings differ: %x, %x", b3, b2)
		}
	})
}
