package train

import (
	"strings"
	"testing"
)

// TestFitSimilarityEndsTraining: the similarity fit runs after the last
// epoch and changes σ alone: the weights are those of the same run without
// it, bit for bit; σ's r and t moved, with the level σ its own under
// "levels"; an unknown setting is refused.
func TestFitSimilarityEndsTraining(t *testing.T) {
	g, s := tinyData(t)
	run := func(fit string) *Trainer {
		opt := tinyOptions(2, "cache", 5)
		opt.FitSimilarity = SimilarityFit(fit)
		opt.Select = "last"
		opt.DecoderRefit = 0 // the fit alone: the refit would move U differently under another σ
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		var log strings.Builder
		tr.Env.Log = &log
		tr.log = &log
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(log.String(), "similarity fit to the words"); has != (fit != "") {
			t.Errorf("fit %q: log line present = %v:\n%s", fit, has, log.String())
		}
		return tr
	}
	none, shared, levels := run(""), run("shared"), run("levels")
	// With the default decoder refit: fit, refit, fit again.
	opt := tinyOptions(2, "cache", 5)
	opt.FitSimilarity, opt.Select, opt.DecoderRefit = "shared", "last", 20
	log := runLogged(t, newTrainer(t, g, s, tinyConfig(g), opt))
	if got, refits := strings.Count(log, "similarity fit to the words"), strings.Count(log, "decoder refit:"); got != 2 || refits != 1 {
		t.Errorf("fit with a decoder refit: %d fits and %d refits, want 2 and 1:\n%s", got, refits, log)
	}
	for name, tr := range map[string]*Trainer{"shared": shared, "levels": levels} {
		if d := diffBits(paramBits(none.Model), paramBits(tr.Model)); d != "" {
			t.Errorf("%s: weights differ from the run without the fit: %s", name, d)
		}
	}
	r0, t0 := none.Model.Topics.Similarity()
	r1, t1 := shared.Model.Topics.Similarity()
	if r0 == r1 && t0 == t1 {
		t.Errorf("shared fit left r, t = %v, %v where they were:\n%s", r1, t1, shared.Env.Log)
	}
	if shared.Model.Cfg.Tree.FDLevelTemp != 0 {
		t.Errorf("shared fit gave the level σ its own temperature %v", shared.Model.Cfg.Tree.FDLevelTemp)
	}
	if levels.Model.Cfg.Tree.FDLevelTemp <= 0 {
		t.Errorf("levels fit left the level σ without its own r and t")
	}
	if err := levels.Model.Cfg.Validate(); err != nil {
		t.Errorf("fitted config does not validate: %v", err)
	}
	bad := tinyOptions(1, "cache", 5)
	bad.FitSimilarity = "sometimes"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "similarity fit") {
		t.Errorf("FitSimilarity %q: error %v", bad.FitSimilarity, err)
	}

	// Select best: a kept state other than the last is fitted again after
	// it is restored.
	for _, seed := range []uint64{5, 6, 7} {
		opt := tinyOptions(3, "cache", seed)
		opt.FitSimilarity, opt.Select = "shared", "best"
		opt.DecoderRefit = 0
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		var log strings.Builder
		tr.Env.Log = &log
		tr.log = &log
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		want := 1
		if tr.State.BestEpoch != tr.State.Epoch {
			want = 2
		}
		if got := strings.Count(log.String(), "similarity fit to the words"); got != want {
			t.Errorf("seed %d, kept epoch %d of %d: %d similarity fits, want %d:\n%s", seed, tr.State.BestEpoch, tr.State.Epoch, got, want, log.String())
		}
	}
}
