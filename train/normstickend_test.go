package train

import (
	"strings"
	"testing"
)

// TestNormStickAtEnd: Options.NormStickAtEnd leaves the joint steps on the
// paper's stick (the weights are those of the run without it, bit for bit,
// when nothing is fitted at the end) and switches the model to the
// normalised stick when training ends, so θ of the same documents
// changes; with the default similarity fit and decoder refit the switch is
// made once, before them.
func TestNormStickAtEnd(t *testing.T) {
	g, s := tinyData(t)
	run := func(atEnd bool, fit string, refit int) (*Trainer, string) {
		opt := tinyOptions(2, "cache", 5)
		opt.NormStickAtEnd = atEnd
		opt.FitSimilarity, opt.Select, opt.DecoderRefit = fit, "last", refit
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		return tr, runLogged(t, tr)
	}
	paper, _ := run(false, "none", 0)
	norm, log := run(true, "none", 0)
	if d := diffBits(paramBits(paper.Model), paramBits(norm.Model)); d != "" {
		t.Errorf("weights differ from the run on the paper's stick: %s", d)
	}
	if paper.Model.Cfg.Tree.NormStick || !norm.Model.Cfg.Tree.NormStick {
		t.Errorf("NormStick after training: %v without the option, %v with it", paper.Model.Cfg.Tree.NormStick, norm.Model.Cfg.Tree.NormStick)
	}
	if !strings.Contains(log, "normalised stick") {
		t.Errorf("no log line of the switch:\n%s", log)
	}
	docs := paper.vs.Train
	a, b := paper.embedCurrent(docs), norm.embedCurrent(docs)
	if len(a.Theta) != len(b.Theta) {
		t.Fatalf("θ of %d and %d values", len(a.Theta), len(b.Theta))
	}
	moved := 0
	for i := range a.Theta {
		if a.Theta[i] != b.Theta[i] {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("θ of the %d training documents unchanged by the switch", len(docs))
	}
	_, log = run(true, "shared", 5)
	sw, fit, refit := strings.Index(log, "normalised stick"), strings.Index(log, "similarity fit to the words"), strings.Index(log, "decoder refit:")
	if strings.Count(log, "normalised stick") != 1 || !(sw >= 0 && sw < fit && fit < refit) {
		t.Errorf("want one switch, then the fit, then the refit:\n%s", log)
	}
}
