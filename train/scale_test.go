package train

import (
	"math"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/internal/phases"
	"github.com/gtformer/gtformer/model"
)

// TestEpochLinks: without StepsPerEpoch an epoch is every training link
// once; with it, consecutive epochs walk one stream of passes, each link
// once per pass, and an epoch of exactly one pass is the default epoch.
func TestEpochLinks(t *testing.T) {
	g, s := tinyData(t)
	tr := newTrainer(t, g, s, tinyConfig(g), tinyOptions(1, "cache", 3))
	n := len(tr.H.TrainLinks)
	key := func(l [2]int32) int64 { return int64(l[0])<<32 | int64(l[1]) }
	count := func(links [][2]int32) map[int64]int {
		c := map[int64]int{}
		for _, l := range links {
			c[key(l)]++
		}
		return c
	}
	all := count(tr.H.TrainLinks)
	if got := count(tr.epochLinks(0)); !mapsEqual(got, all) {
		t.Fatal("a default epoch is not every training link once")
	}
	tests := []struct{ steps, batch int }{{3, 32}, {1, 7}, {5, 50}}
	for _, tc := range tests {
		tr.Opt.StepsPerEpoch, tr.Opt.BatchLinks = tc.steps, tc.batch
		per := tc.steps * tc.batch
		var stream [][2]int32
		for e := 0; len(stream) < 2*n+per; e++ {
			links := tr.epochLinks(e)
			if len(links) != per {
				t.Fatalf("steps %d × batch %d: epoch %d has %d links", tc.steps, tc.batch, e, len(links))
			}
			if !slices.Equal(links, tr.epochLinks(e)) {
				t.Fatalf("epoch %d's links differ between two calls", e)
			}
			stream = append(stream, links...)
		}
		for p := 0; p < 2; p++ {
			if got := count(stream[p*n : (p+1)*n]); !mapsEqual(got, all) {
				t.Fatalf("steps %d × batch %d: pass %d of the stream is not every link once", tc.steps, tc.batch, p)
			}
		}
	}
	tr.Opt.StepsPerEpoch, tr.Opt.BatchLinks = 1, n
	for e := range 3 {
		want := shuffledLinks(tr.H.TrainLinks, tr.Opt.Seed, int64(e))
		if !slices.Equal(tr.epochLinks(e), want) {
			t.Fatalf("epoch %d of exactly one pass differs from the default epoch", e)
		}
	}
}

func mapsEqual(a, b map[int64]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBoundedRefreshCoversBatches: with StepsPerEpoch the epoch refreshes
// only the cache rows its batches read. The cache starts poisoned (NaN), so
// a batch reading a row the refresh skipped would see NaN; every row any
// batch reads must be finite, with and without target masking (which reads
// further neighbours), and most rows must stay unrefreshed.
func TestBoundedRefreshCoversBatches(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.Layers = 3 // two hops: the nested refresh
	for _, mask := range []bool{false, true} {
		opt := tinyOptions(1, "cache", 5)
		opt.StepsPerEpoch, opt.BatchLinks = 2, 4
		opt.MaskTargets = mask
		opt.TopicInit = "random"
		tr := newTrainer(t, g, s, cfg, opt)
		for i := range tr.cache.Data {
			tr.cache.Data[i] = float32(math.NaN())
		}
		read := map[int32]bool{}
		tr.onBatch = func(b *model.Batch) {
			for _, d := range b.Nbrs.Docs {
				read[d] = true
				for l := range tr.cache.Layers {
					base := (l*tr.cache.N + int(d)) * tr.cache.Width
					for _, v := range tr.cache.Data[base : base+tr.cache.Width] {
						if math.IsNaN(float64(v)) {
							t.Fatalf("mask %v: a batch reads document %d's cache row, which the epoch did not refresh", mask, d)
						}
					}
				}
			}
		}
		if _, err := tr.epoch(); err != nil {
			t.Fatal(err)
		}
		stale := 0
		for d := range g.NumDocs() {
			if math.IsNaN(float64(tr.cache.Data[d*tr.cache.Width])) {
				stale++
			}
		}
		if len(read) == 0 || stale < g.NumDocs()/2 {
			t.Errorf("mask %v: batches read %d documents and %d of %d cache rows stayed unrefreshed: the refresh is not bounded", mask, len(read), stale, g.NumDocs())
		}
	}
}

// TestSampleSplit: the validation split is H itself unless a list is longer
// than the cap; then both lists are evenly spaced samples and the held-out
// links are those among the kept validation documents.
func TestSampleSplit(t *testing.T) {
	g, s := tinyData(t)
	h := s.Holdout(g)
	for _, max := range []int{0, len(h.Train), DefaultSampleDocs} {
		if sampleSplit(h, max) != h {
			t.Errorf("cap %d: the split was resampled although no list exceeds it", max)
		}
	}
	r := sampleSplit(h, 10)
	if len(r.Train) != 10 || len(r.Test) != min(10, len(h.Test)) {
		t.Fatalf("cap 10: %d training and %d validation documents", len(r.Train), len(r.Test))
	}
	if r.Train[0] != h.Train[0] || !slices.IsSorted(r.Train) {
		t.Errorf("training sample %v is not evenly spaced from the first document", r.Train)
	}
	kept := map[int32]bool{}
	for _, d := range r.Test {
		kept[d] = true
	}
	want := 0
	for _, l := range h.TestLinks {
		if kept[l[0]] && kept[l[1]] {
			want++
		}
	}
	if len(r.TestLinks) != want {
		t.Errorf("%d held-out links kept, want %d", len(r.TestLinks), want)
	}
	if len(h.Train) == 10 {
		t.Fatal("the holdout changed")
	}
}

// TestSampledStepsReproduce: a run with StepsPerEpoch and a sampled
// validation takes exactly Epochs × StepsPerEpoch steps, validates, times
// its phases, and gives the same numbers for the same seed; the default
// sample cap leaves a small corpus's validation split as H itself (so the
// small-corpus path is unchanged).
func TestSampledStepsReproduce(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.Layers = 3
	if tr := newTrainer(t, g, s, cfg, tinyOptions(1, "cache", 1)); tr.vs != tr.H {
		t.Fatal("the default sample cap resampled a 200-document corpus")
	}
	run := func() (*Trainer, *phases.Record) {
		opt := tinyOptions(2, "cache", 9)
		var env Env
		opt.StepsPerEpoch, opt.BatchLinks, opt.SampleDocs = 3, 8, 40
		env.Phases = phases.New()
		tr := newTrainer(t, g, s, cfg, opt, env)
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		return tr, env.Phases
	}
	a, ph := run()
	if a.State.Step != 6 {
		t.Errorf("%d steps, want 2 epochs × 3", a.State.Step)
	}
	if len(a.vs.Train) != 40 {
		t.Errorf("validation read %d training documents, want the cap 40", len(a.vs.Train))
	}
	if len(a.History) != 2 || a.History[1].ValidF1 == nil || a.History[1].LevelShare == nil {
		t.Fatalf("validation history %+v", a.History)
	}
	for _, p := range []string{"split and sampler", "tf-idf", "features", "topic start", "cache refresh", "steps", "validation", "growth", "final prune", "similarity fit", "decoder refit"} {
		if _, ok := ph.Seconds()[p]; !ok {
			t.Errorf("phase %q not timed (have %v)", p, ph.Names())
		}
	}
	b, _ := run()
	if d := diffBits(paramBits(a.Model), paramBits(b.Model)); d != "" {
		t.Errorf("same seed, different parameters: %s", d)
	}
	if curve(t, a.History) != curve(t, b.History) {
		t.Error("same seed, different learning curves")
	}
}
