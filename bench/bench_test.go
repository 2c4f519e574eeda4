package bench

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gtformer/gtformer/model"
)

// TestStepFLOPs checks the stated count for the reference layer against the
// sum written out term by term: projections 4·2·N·C², attention 2·2·B·T²·C,
// MLP 2·2·N·C·4C, times 3 for forward + backward.
func TestStepFLOPs(t *testing.T) {
	const want = 3 * (4*2*8192*256*256 + 2*2*64*128*128*256 + 2*2*8192*256*1024) // 41 875 931 136
	if got := StepFLOPs(DefaultLayer); got != want {
		t.Errorf("StepFLOPs = %v, want %v", got, float64(want))
	}
}

// TestSmallStep runs the measured step on a tiny layer: the gradients it
// produces are finite and not all zero, and the timing helpers return
// positive rates.
func TestSmallStep(t *testing.T) {
	c := LayerConfig{Batch: 2, Tokens: 8, Width: 16, Heads: 2, Hidden: 32}
	l := NewLayer(c, 3)
	l.Step()
	nonzero := 0
	for _, p := range l.Layer.Params() {
		for _, g := range p.Grad {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				t.Fatalf("%s: non-finite gradient", p.Name)
			}
			if g != 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("step produced no gradient")
	}
	if g := Step(c, 1, 0); !(g > 0) {
		t.Errorf("Step rate %v", g)
	}
	if g := Sgemm(32, 1, time.Duration(0)); !(g > 0) {
		t.Errorf("Sgemm rate %v", g)
	}
}

// TestModelStepFLOPs checks the model's count against a hand count on a
// tiny shape: width 2, two layers (the second reads [CLS] only), MLP 3,
// two centres of 1 and 2 words (r = 2 and 3 rows with [CLS]),
// one neighbour slot, tree and graph tokens, 2 anchors, 3 topics, 2 level
// points, 4 words, 3 bag non-zeros.
func TestModelStepFLOPs(t *testing.T) {
	s := StepShape{Width: 2, Layers: 2, MLPHidden: 3, Lens: []int{1, 2}, K: 1, Extras: 2, Graph: true, Tree: true,
		Anchors: 2, Topics: 3, Levels: 2, Vocab: 4, BagNNZ: 3, TopicLoss: true}
	terms := []struct {
		what string
		n    float64
	}{
		{"bag 2·nnz·n", 2 * 3 * 2},
		{"layer 1 Q,O 2·2·R·n² (R = 5)", 2 * 2 * 5 * 4},
		{"layer 1 K,V", 2 * 2 * 5 * 4},
		{"layer 1 attention 2·2·(2·2+3·3)·n", 2 * 2 * 13 * 2},
		{"layer 1 MLP 2·2·R·n·F", 2 * 2 * 5 * 2 * 3},
		{"[CLS] to tangent", 2 * 2 * 4},
		{"θ distances 2·B·(T+H)·(n+1)", 2 * 2 * 5 * 3},
		{"e = θ·log z", 2 * 2 * 3 * 2},
		{"neighbours to tangent", 2 * 2 * 1 * 4},
		{"graph W", 2 * 2 * 2 * 4},
		{"graph query", 2 * 2 * 4},
		{"graph keys", 2 * 2 * 1 * 4},
		{"graph scores and sum", 2 * 2 * 2 * 1 * 2},
		{"layer 2 Q,O on [CLS] 2·2·B·n²", 2 * 2 * 2 * 4},
		{"layer 2 K,V on R+B·P = 9 rows", 2 * 2 * 9 * 4},
		{"layer 2 attention 2·2·((2+2)+(3+2))·n", 2 * 2 * 9 * 2},
		{"layer 2 MLP on [CLS]", 2 * 2 * 2 * 2 * 3},
		{"final tangent", 2 * 2 * 4},
		{"final θ", 2 * 2 * 5 * 3},
		{"contrastive 2·A·B·(n+1)", 2 * 2 * 2 * 3},
		{"β 2·T·n·V", 2 * 3 * 2 * 4},
		{"θβ 2·B·T·V", 2 * 2 * 3 * 4},
	}
	var fwd float64
	for _, tt := range terms {
		fwd += tt.n
	}
	if fwd != 1084 {
		t.Fatalf("hand count of the forward pass is %v, the written sum 1084", fwd)
	}
	if got := ModelStepFLOPs(s); got != 3*fwd {
		t.Errorf("ModelStepFLOPs = %v, want 3 × %v = %v", got, fwd, 3*fwd)
	}
	// Every switch changes the count as its terms say.
	cases := []struct {
		name  string
		mut   func(*StepShape)
		delta float64 // change of the forward count
	}{
		{"no topic loss", func(s *StepShape) { s.TopicLoss = false }, -(48 + 48)},
		{"supervised 4 hidden, 3 labels", func(s *StepShape) { s.SupHidden, s.Labels = 4, 3 }, 2*2*2*4 + 2*2*4*3},
		{"hop features of width 6 with skip", func(s *StepShape) { s.HopWidth, s.HopSkip = 6, true }, 2 * (2 * 2 * 6 * 2)},
		{"no graph token", func(s *StepShape) { s.Graph, s.Extras = false, 1 },
			-(16 + 32 + 16 + 16 + 16) - 2*2*2*4 - 2*2*2*2},
	}
	for _, c := range cases {
		s2 := s
		c.mut(&s2)
		if got, want := ModelStepFLOPs(s2), 3*(fwd+c.delta); got != want {
			t.Errorf("%s: ModelStepFLOPs = %v, want %v", c.name, got, want)
		}
	}
}

// TestModelBenchSmall steps and embeds a small model on a small corpus:
// the step's shape describes its batch, the loss is finite, and the rates
// come out positive.
func TestModelBenchSmall(t *testing.T) {
	cfg := model.Default()
	cfg.Width, cfg.MLPHidden, cfg.MaxLen = 16, 32, 24
	s := ModelSetup{Docs: 64, Vocab: 200, MeanLength: 20, Degree: 4, BatchLinks: 8, MaxNbrs: 8, EmbedBatch: 16, NewDocs: 8, Seed: 2}
	b, err := NewModelBench(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Shape.Lens) != len(b.Batch.Centres) || b.Shape.K != cfg.Neighbors || b.Shape.Anchors != 2*s.BatchLinks {
		t.Fatalf("shape %+v does not describe the batch (%d centres)", b.Shape, len(b.Batch.Centres))
	}
	for i, d := range b.Batch.Centres {
		if l := len(b.In.Tokens(int(d))); b.Shape.Lens[i] != l || l > cfg.MaxLen {
			t.Fatalf("centre %d: shape length %d, kept tokens %d (max %d)", i, b.Shape.Lens[i], l, cfg.MaxLen)
		}
	}
	if err := b.Step(); err != nil {
		t.Fatal(err)
	}
	e := b.Embed()
	if len(e.Points) != s.NewDocs*(cfg.Width+1) {
		t.Fatalf("%d point coordinates, want %d new documents'", len(e.Points), s.NewDocs)
	}
	for _, v := range e.Points {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatal("non-finite embedding")
		}
	}
	r, err := Model(cfg, s, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.StepDocsPerSec > 0 && r.StepGFLOPS > 0 && r.EmbedDocsPerS > 0) || r.StepFLOPs != ModelStepFLOPs(b.Shape) {
		t.Errorf("result %+v", r)
	}
}

// BenchmarkModelStep is the default model's training step on
// DefaultModelSetup's batch (the measurement of `gtformer bench`), for
// profiling: go test -tags openblas -run XXX -bench ModelStep -cpuprofile.
func BenchmarkModelStep(b *testing.B) {
	mb, err := NewModelBench(model.Default(), DefaultModelSetup)
	if err != nil {
		b.Fatal(err)
	}
	if err := mb.Step(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := mb.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(mb.Batch.Centres)*b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(ModelStepFLOPs(mb.Shape)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkModelEmbed embeds DefaultModelSetup's 128 new documents into
// corpora of 1,024 (bench's embed_docs_per_s) and 16,384 documents, as
// embed --new does (two hops, hop features); the corpus is prepared
// outside the timer. The rate should hardly depend on the corpus's size.
func BenchmarkModelEmbed(b *testing.B) {
	for _, docs := range []int{1024, 16384} {
		b.Run(fmt.Sprintf("corpus=%d", docs), func(b *testing.B) {
			s := DefaultModelSetup
			s.Docs = docs
			mb, err := NewModelBench(model.Default(), s)
			if err != nil {
				b.Fatal(err)
			}
			mb.Embed()
			b.ResetTimer()
			for range b.N {
				mb.Embed()
			}
			b.ReportMetric(float64(s.NewDocs*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// TestSetupErrors: a setup the model benchmark cannot build is refused by
// NewModelBench and, before anything is measured, by Run, with one
// "bench: " prefix either way.
func TestSetupErrors(t *testing.T) {
	s := ModelSetup{Docs: 64, Vocab: 200, MeanLength: 20, Degree: 4, BatchLinks: 8, MaxNbrs: 8, EmbedBatch: 16, NewDocs: 0, Seed: 2}
	const want = "bench: 0 new documents to embed, want at least 1"
	if _, err := NewModelBench(model.Default(), s); err == nil || err.Error() != want {
		t.Errorf("NewModelBench: err = %v, want %q", err, want)
	}
	if _, err := Run(Options{Model: &s}); err == nil || err.Error() != want {
		t.Errorf("Run: err = %v, want %q", err, want)
	}
}
