package safetensors

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// benchEntries is ~100 MB of F32 in 25 tensors of 1M floats each (the shape
// of a BERT-base checkpoint: a few hundred MB in tensors of a few MB).
func benchEntries() ([]Entry, int64) {
	rng := rand.New(rand.NewPCG(1, 0))
	var entries []Entry
	var bytes int64
	for i := range 25 {
		d := make([]float32, 1<<20)
		for j := range d {
			d[j] = rng.Float32()
		}
		entries = append(entries, Entry{Name: fmt.Sprintf("layer.%d.weight", i), Shape: []int{1024, 1024}, Data: d})
		bytes += 4 << 20
	}
	return entries, bytes
}

func BenchmarkWrite100MB(b *testing.B) {
	entries, n := benchEntries()
	path := filepath.Join(b.TempDir(), "bench.safetensors")
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(path, entries, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen100MB(b *testing.B) {
	entries, n := benchEntries()
	path := filepath.Join(b.TempDir(), "bench.safetensors")
	if err := Write(path, entries, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range f.Names() {
			if _, _, err := f.Float32(name); err != nil {
				b.Fatal(err)
			}
		}
	}
}
