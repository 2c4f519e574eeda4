package safetensors

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader: it must never panic, and
// whatever it accepts must be internally consistent and survive a
// write/read round trip unchanged.
func FuzzRead(f *testing.F) {
	f.Add(handFile)
	f.Add(header(`{}`, nil))
	f.Add(header(`{"__metadata__":{"a":"b"}}`, nil))
	f.Add(header(`{"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"I64","shape":[1,1],"data_offsets":[2,10]}}`, make([]byte, 10)))
	f.Add(header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)))
	var buf bytes.Buffer
	if err := Encode(&buf, []Entry{
		{Name: "x", Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}},
		{Name: "d", Shape: []int{1}, Data: []float64{math.Pi}},
		{Name: "i", Shape: []int{}, Data: []int32{-3}},
	}, map[string]string{"k": "v"}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())

	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Decode("fuzz", b)
		if err != nil {
			if file != nil {
				t.Fatal("non-nil File with an error")
			}
			return
		}
		var entries []Entry
		for _, name := range file.Names() {
			dt, shape, raw, err := file.Raw(name)
			if err != nil {
				t.Fatalf("Raw(%q) of a listed name: %v", name, err)
			}
			n := 1
			for _, d := range shape {
				n *= d
			}
			if n*dt.Size() != len(raw) {
				t.Fatalf("%q: %v %v with %d bytes", name, dt, shape, len(raw))
			}
			// Every accessor either works or errors; none panics.
			file.Int64(name)
			file.Int32(name)
			file.Tensor(name)
			if v, _, err := file.Float32(name); err == nil {
				if len(v) != n {
					t.Fatalf("%q: Float32 gave %d values for %d elements", name, len(v), n)
				}
				if dt == F32 {
					entries = append(entries, Entry{Name: name, Shape: shape, Data: slices.Clone(v)})
				}
			}
		}
		// Re-encoding the F32 tensors and the metadata reads back the same.
		var out bytes.Buffer
		if err := Encode(&out, entries, file.Metadata()); err != nil {
			// Only names or metadata that are not valid UTF-8 may be refused:
			// JSON decoding replaced them, so this cannot happen.
			t.Fatalf("re-encode: %v", err)
		}
		again, err := Decode("again", out.Bytes())
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		for _, e := range entries {
			v, shape, err := again.Float32(e.Name)
			if err != nil || !equalBits(v, e.Data.([]float32)) || !slices.Equal(shape, e.Shape) {
				t.Fatalf("%q changed in the round trip", e.Name)
			}
		}
	})
}
