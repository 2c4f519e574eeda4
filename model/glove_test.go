package model

import (
	"math"
	"testing"
)

// InitWordVectors: words with equal vectors get equal rows, a word without a
// vector keeps its random rows, token rows get BERT's scale (norm 0.02·√n)
// and feature rows unit norm, and a wrong size is an error.
func TestInitWordVectors(t *testing.T) {
	cfg := Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab = 16, 2, 32, 4
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, dim := cfg.Width, 5
	vecs := []float32{
		1, 2, 3, 4, 5,
		1, 2, 3, 4, 5,
		-1, 0, 2, 0, 1,
		0, 0, 0, 0, 0, // no vector
	}
	before := append([]float32(nil), m.Tok.Table.Data[3*n:4*n]...)
	if err := m.InitWordVectors(vecs, dim, 7); err != nil {
		t.Fatal(err)
	}
	row := func(data []float32, w int) []float32 { return data[w*n : (w+1)*n] }
	norm := func(x []float32) float64 {
		var s float64
		for _, v := range x {
			s += float64(v) * float64(v)
		}
		return math.Sqrt(s)
	}
	for j := 0; j < n; j++ {
		if row(m.Tok.Table.Data, 0)[j] != row(m.Tok.Table.Data, 1)[j] || row(m.Feat.Data, 0)[j] != row(m.Feat.Data, 1)[j] {
			t.Fatalf("equal vectors gave different rows at %d", j)
		}
		if row(m.Tok.Table.Data, 3)[j] != before[j] {
			t.Fatalf("a word without a vector lost its random row")
		}
	}
	if got, want := norm(row(m.Tok.Table.Data, 2)), 0.02*math.Sqrt(float64(n)); math.Abs(got-want) > 1e-5 {
		t.Errorf("token row norm %g, want %g", got, want)
	}
	if got := norm(row(m.Feat.Data, 2)); math.Abs(got-1) > 1e-5 {
		t.Errorf("feature row norm %g, want 1", got)
	}
	if err := m.InitWordVectors(vecs[:7], dim, 7); err == nil {
		t.Error("a wrong number of values was accepted")
	}
}
