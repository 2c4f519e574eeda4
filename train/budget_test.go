package train

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gtformer/gtformer/corpus/synth"
)

// TestCapSteps: with StepsPerEpoch 0 an epoch is one pass (0) unless
// ⌈StepsRoot·T^(1/3)⌉ is fewer steps; a StepsPerEpoch the user gave stays.
func TestCapSteps(t *testing.T) {
	tests := []struct {
		name       string
		root       float64
		given      int
		trainLinks int
		want       int
	}{
		{"no root: one pass", 0, 0, 518333, 0},
		{"small graph: the pass is fewer", 12, 0, 4255, 0},        // pass 133, cap ⌈12·16.2⌉ = 195
		{"large graph: the cap", 12, 0, 518333, 964},              // ⌈12·80.33⌉
		{"cube root exactly", 10, 0, 1000000, 1000},               // 10·100
		{"the cap equal to the pass is a pass", 4, 0, 512, 0},     // pass 16, ⌈4·8⌉ = 32
		{"given steps stay", 12, 300, 518333, 300},                //
		{"given steps stay on a small graph", 12, 500, 4255, 500}, //
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.StepsRoot, o.StepsPerEpoch = tc.root, tc.given
			if got := o.capSteps(tc.trainLinks); got != tc.want {
				t.Fatalf("capSteps(%d) = %d, want %d", tc.trainLinks, got, tc.want)
			}
		})
	}
}

// TestStepsRootSetsEpoch: a trainer built with a StepsRoot that bites runs
// epochs of that many steps (its options record them).
func TestStepsRootSetsEpoch(t *testing.T) {
	g, s := tinyData(t)
	opt := tinyOptions(1, "cache", 1)
	opt.StepsRoot = 0.5
	tr := newTrainer(t, g, s, tinyConfig(g), opt)
	T := len(tr.H.TrainLinks)
	pass := (T + opt.BatchLinks - 1) / opt.BatchLinks
	want := opt.capSteps(T)
	if want == 0 || want >= pass || tr.Opt.StepsPerEpoch != want {
		t.Fatalf("%d training links (a pass of %d steps): StepsPerEpoch %d, want the cap %d", T, pass, tr.Opt.StepsPerEpoch, want)
	}
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	if tr.State.Step != int64(want) {
		t.Fatalf("ran %d steps, want %d", tr.State.Step, want)
	}
}

// TestBudget: a budget sets the steps per epoch from the timed probe and
// says so (the test checks the plan, not the clock, which a loaded machine
// would make flaky; docs/benchmarks.md measures the clock); a budget too
// short for anything is an error before any step; a budget beside a given
// StepsPerEpoch is refused.
func TestBudget(t *testing.T) {
	g, s := tinyData(t)
	var log bytes.Buffer
	opt := tinyOptions(2, "cache", 1)
	opt.Budget = 12 * time.Second
	tr := newTrainer(t, g, s, tinyConfig(g), opt, Env{Log: &log})
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	if tr.Opt.StepsPerEpoch < 1 || tr.State.Step != int64(2*tr.Opt.StepsPerEpoch) {
		t.Fatalf("StepsPerEpoch %d, %d steps run", tr.Opt.StepsPerEpoch, tr.State.Step)
	}
	if !strings.Contains(log.String(), "budget 12s: ") {
		t.Errorf("the log does not give the plan:\n%s", log.String())
	}

	opt.Budget = time.Millisecond
	tr = newTrainer(t, g, s, tinyConfig(g), opt)
	err := tr.Run()
	if err == nil || !strings.Contains(err.Error(), "leaves no time to train") || tr.State.Step != 0 {
		t.Fatalf("a 1 ms budget: err %v after %d steps", err, tr.State.Step)
	}

	opt.Budget, opt.StepsPerEpoch = time.Minute, 10
	if err := opt.Validate(); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Fatalf("budget with steps per epoch: %v", err)
	}
}

// TestValidRecoveryPerEpoch: with the planted leaves in Env, every
// validation records the recovery NMI and the elapsed time grows.
func TestValidRecoveryPerEpoch(t *testing.T) {
	g, s := tinyData(t)
	cfg := synth.Default()
	cfg.Docs, cfg.Vocab, cfg.Links, cfg.MeanLength = 200, 150, 400, 30
	_, truth, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTrainer(t, g, s, tinyConfig(g), tinyOptions(2, "cache", 1), Env{Planted: truth.Leaf})
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	prev := 0.0
	for _, h := range tr.History {
		if h.ValidRecovery == nil || *h.ValidRecovery < 0 || *h.ValidRecovery > 1 {
			t.Fatalf("epoch %d: recovery %v", h.Epoch, h.ValidRecovery)
		}
		if h.Elapsed <= prev {
			t.Fatalf("epoch %d: elapsed %v after %v", h.Epoch, h.Elapsed, prev)
		}
		prev = h.Elapsed
	}
	tr = newTrainer(t, g, s, tinyConfig(g), tinyOptions(1, "cache", 1))
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	if tr.History[0].ValidRecovery != nil {
		t.Fatal("recovery without a planted tree")
	}
}
