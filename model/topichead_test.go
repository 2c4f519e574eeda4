package model

import (
	"math"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/tensor"
)

// TestTopicHead: Config.TopicHead adds H (scale.topic), the identity at
// the start, so the topics see the documents' own points there; once H
// moves, TopicTangents is log_o d·H (against a float64 product), θ reads
// the mapped points (TopicSpace's are the forward pass's), and H
// survives Save and Load. Without the head TopicTangents and TopicSpace
// hand back their inputs.
func TestTopicHead(t *testing.T) {
	g := tinyGraph(12, 20, 3, 9, true, 4)
	cfg := tinyConfig(g)
	plain, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{0.1, -0.2, 0.3}
	if plain.TopicHead != nil || &plain.TopicTangents(x)[0] != &x[0] {
		t.Error("without the head: a head parameter, or TopicTangents copied its input")
	}
	if tan, pts := plain.TopicSpace(&Embeddings{Tangent: x, Points: x}); &tan[0] != &x[0] || &pts[0] != &x[0] {
		t.Error("without the head: TopicSpace did not hand back the embeddings' own tangents and points")
	}
	cfg.TopicHead = true
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.TopicHead == nil || m.TopicHead.Name != "scale.topic" || !slices.Contains(m.Params(), m.TopicHead) {
		t.Fatal("the head is missing from the model's parameters")
	}
	in := preparedInputs(t, m, g)
	docs := allDocs(in.N)
	out := func() *Output {
		tp := tensor.NewTape()
		tp.NoGrad = true
		return m.forwardWith(tp, in, docs, nil, Neighbors{K: 1, Docs: docs}, nil, nil, nil)
	}
	o := out()
	if !slices.Equal(o.TopicPoints.Data, o.Points.Data) {
		t.Error("the identity head moved the documents' topic points")
	}
	thetaBefore := slices.Clone(o.Theta.Data)
	n := cfg.Width
	for i := range m.TopicHead.Data {
		m.TopicHead.Data[i] += float32(0.1 * math.Sin(float64(i)))
	}
	tan := slices.Clone(o.Tangent.Data)
	got := m.TopicTangents(tan)
	for r := 0; r < len(tan)/n; r++ {
		for j := 0; j < n; j++ {
			var want float64
			for k := 0; k < n; k++ {
				want += float64(tan[r*n+k]) * float64(m.TopicHead.Data[k*n+j])
			}
			if d := math.Abs(float64(got[r*n+j]) - want); d > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("TopicTangents row %d col %d: %g, want %g", r, j, got[r*n+j], want)
			}
		}
	}
	o = out()
	if slices.Equal(o.Theta.Data, thetaBefore) {
		t.Error("θ unchanged when the head moved")
	}
	// The tree embedding reads θ too, so the tangents moved with H.
	if _, pts := m.TopicSpace(&Embeddings{Tangent: o.Tangent.Data}); !slices.Equal(pts, o.TopicPoints.Data) {
		var worst float64
		for i := range pts {
			worst = math.Max(worst, math.Abs(float64(pts[i]-o.TopicPoints.Data[i])))
		}
		t.Errorf("TopicSpace differs from the forward pass's topic points by up to %g (%d vs %d values)", worst, len(pts), len(o.TopicPoints.Data))
	}
	m.IDF = IDF(g, corpus.PaperSplit(g).Train)
	dir := t.TempDir()
	if err := m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.TopicHead == nil || !slices.Equal(back.TopicHead.Data, m.TopicHead.Data) {
		t.Error("the head did not survive Save and Load")
	}
}
