package train

import (
	"math"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// TestBackgroundMixAtEnd: Options.BackgroundMixAtEnd trains as the run
// without it (every weight but the decoder's rows the same bit for bit,
// the refit being the only step that reads the mixture), turns the
// mixture on once, before the similarity fit and the refit, at the fixed
// weight asked (the refit trains U alone), and the refit fits U to the
// mixture (U differs from the run without it). The saved model keeps the
// mixture and its weight.
func TestBackgroundMixAtEnd(t *testing.T) {
	g, s := tinyData(t)
	run := func(x float64, fit string) (*Trainer, string) {
		opt := tinyOptions(2, "cache", 5)
		opt.BackgroundMixAtEnd = x
		opt.FitSimilarity, opt.Select, opt.DecoderRefit = SimilarityFit(fit), "last", 5
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		return tr, runLogged(t, tr)
	}
	plain, _ := run(0, "")
	mixed, log := run(0.4, "")
	a, b := paramBits(plain.Model), paramBits(mixed.Model)
	if _, ok := b[model.MixParam]; !ok || plain.Model.Topics.Mix != nil {
		t.Fatalf("mixture weight after training: %v without the option, present %v with it", plain.Model.Topics.Mix, ok)
	}
	delete(b, model.MixParam)
	if d := diffBits(a, b); !strings.Contains(d, model.DecoderParam) {
		t.Errorf("the refit under the mixture left the decoder rows as without it (differences: %q)", d)
	}
	delete(a, model.DecoderParam)
	delete(b, model.DecoderParam)
	if d := diffBits(a, b); d != "" {
		t.Errorf("weights other than the decoder's differ from the run without the mixture: %s", d)
	}
	if l := mixed.Model.Topics.Lambda(); math.Abs(l-0.4) > 1e-6 || mixed.Model.Cfg.Tree.BackgroundMix != 0.4 {
		t.Errorf("λ %v, configured %v after training: want 0.4 held by the refit", l, mixed.Model.Cfg.Tree.BackgroundMix)
	}
	if !strings.Contains(log, "background mixture from here on, λ 0.4") {
		t.Errorf("no log line of the switch:\n%s", log)
	}

	dir := t.TempDir()
	if err := mixed.Model.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	back, _, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Topics.WordMix().On() || back.Topics.Lambda() != mixed.Model.Topics.Lambda() {
		t.Errorf("loaded model: mixture on %v, λ %v; saved λ %v", back.Topics.WordMix().On(), back.Topics.Lambda(), mixed.Model.Topics.Lambda())
	}

	_, log = run(0.4, "shared")
	sw, fit, refit := strings.Index(log, "background mixture from here on"), strings.Index(log, "similarity fit to the words"), strings.Index(log, "decoder refit:")
	if strings.Count(log, "background mixture from here on") != 1 || !(sw >= 0 && sw < fit && fit < refit) {
		t.Errorf("want one switch, then the fit, then the refit:\n%s", log)
	}
}

// TestStartMixErrors: StartMix refuses a model that has the mixture, a
// weight outside (0, 1) and a unigram distribution of another vocabulary.
func TestStartMixErrors(t *testing.T) {
	g, _ := tinyData(t)
	for _, tc := range []struct {
		name  string
		x     float64
		v     int
		twice bool
		want  string
	}{
		{"zero weight", 0, len(g.Vocab), false, "outside (0, 1)"},
		{"weight one", 1, len(g.Vocab), false, "outside (0, 1)"},
		{"NaN weight", math.NaN(), len(g.Vocab), false, "outside (0, 1)"},
		{"other vocabulary", 0.4, len(g.Vocab) + 1, false, "vocabulary of"},
		{"already on", 0.4, len(g.Vocab), true, "already on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := model.New(tinyConfig(g), 1)
			if err != nil {
				t.Fatal(err)
			}
			if tc.twice {
				if _, err := m.StartMix(0.3, make([]float32, len(g.Vocab))); err != nil {
					t.Fatal(err)
				}
			}
			_, err = m.StartMix(tc.x, make([]float32, tc.v))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestBackgroundMixAtEndUndone: the mixture belongs to the refit. Without
// a refit nothing is switched; a state saved before the switch (Select
// "best" keeping an earlier epoch) comes back without the mixture, its
// configuration and its optimiser state.
func TestBackgroundMixAtEndUndone(t *testing.T) {
	g, s := tinyData(t)
	opt := tinyOptions(2, "cache", 5)
	opt.BackgroundMixAtEnd, opt.FitSimilarity, opt.Select, opt.DecoderRefit = 0.4, "", "last", 0
	tr := newTrainer(t, g, s, tinyConfig(g), opt)
	runLogged(t, tr)
	if tr.Model.Topics.Mix != nil || tr.Model.Cfg.Tree.BackgroundMix != 0 {
		t.Errorf("without a refit the mixture was switched on (configured %v)", tr.Model.Cfg.Tree.BackgroundMix)
	}

	opt.DecoderRefit = 5
	tr = newTrainer(t, g, s, tinyConfig(g), opt)
	before := tr.snapshotParams()
	runLogged(t, tr)
	if tr.Model.Topics.Mix == nil {
		t.Fatal("the mixture is off after a run with a refit")
	}
	if _, ok := tr.adam.State()["adam.m/"+model.MixParam]; !ok {
		t.Errorf("the optimiser holds no state of %s after the switch", model.MixParam)
	}
	tr.restoreParams(before)
	if tr.Model.Topics.Mix != nil || tr.Model.Cfg.Tree.BackgroundMix != 0 || tr.Model.Topics.WordMix().On() {
		t.Errorf("a state from before the switch came back with the mixture (configured %v)", tr.Model.Cfg.Tree.BackgroundMix)
	}
	for name := range tr.adam.State() {
		if strings.Contains(name, model.MixParam) {
			t.Errorf("the optimiser still holds %s", name)
		}
	}
}
