package corpus

import (
	"fmt"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

func BenchmarkLoadFolderML(b *testing.B) {
	dir := shared.Dataset(b, "ml")
	for _, vectors := range []bool{false, true} {
		b.Run(fmt.Sprintf("wordvectors=%v", vectors), func(b *testing.B) {
			for b.Loop() {
				if _, err := LoadFolder(dir, LoadOptions{NoWordVectors: !vectors}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkKNNGraph(b *testing.B) {
	for _, n := range []int{1500, 20000} {
		g := randomGraph(n, 5000, 100, 1)
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			for b.Loop() {
				KNNGraph(g, KNNOptions{})
			}
		})
	}
}

func BenchmarkKNNGraphCOVID(b *testing.B) {
	g, err := LoadFolder(shared.Dataset(b, "covid"), LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		KNNGraph(g, KNNOptions{})
	}
}

func BenchmarkResample(b *testing.B) {
	g, err := LoadFolder(shared.Dataset(b, "ml"), LoadOptions{NoWordVectors: true})
	if err != nil {
		b.Fatal(err)
	}
	s := NewSampler(PaperSplit(g), DefaultNeighbors, 1)
	epoch := 0
	for b.Loop() {
		s.Resample(epoch)
		epoch++
	}
}
