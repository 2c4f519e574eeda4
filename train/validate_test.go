package train

import (
	"math"
	"testing"
)

// A supervised run validates its head too: every validated epoch records
// the head's validation Micro-F1, and the best score is the mean of the
// three validation metrics (kNN Micro-F1, link AUC, head Micro-F1).
func TestSupervisedValidation(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.Supervised = true
	tr := newTrainer(t, g, s, cfg, tinyOptions(2, "cache", 5))
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	best := math.Inf(-1)
	for _, h := range tr.History {
		if h.ValidSupF1 == nil || h.ValidF1 == nil || h.ValidAUC == nil {
			t.Fatalf("epoch %d: validation metrics missing: %+v", h.Epoch, h)
		}
		best = math.Max(best, (*h.ValidF1+*h.ValidAUC+*h.ValidSupF1)/3)
	}
	if math.Abs(tr.State.BestScore-best) > 1e-12 {
		t.Errorf("best score %v, want the best mean of the three metrics %v", tr.State.BestScore, best)
	}
}

// Select "last" leaves the model in its final state and reports the last
// epoch as kept, while "best" restores the best-scored epoch; both runs see
// the same training, so their final states differ only by that choice.
func TestSelectLast(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.Tree.Mode = "fixed"
	run := func(sel string) *Trainer {
		opt := tinyOptions(3, "cache", 6)
		opt.Select = Select(sel)
		tr := newTrainer(t, g, s, cfg, opt)
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	best, last := run("best"), run("last")
	if ep, v := last.Kept(); ep != 3 || v == nil || *v.KNNMicroF1 != *last.History[len(last.History)-1].ValidF1 {
		t.Fatalf("select last: kept epoch %d with %+v, want the last epoch 3 and its validation", ep, v)
	}
	if last.State.BestEpoch != 0 {
		t.Errorf("select last recorded a best epoch %d", last.State.BestEpoch)
	}
	ep, _ := best.Kept()
	same := func(a, b *Trainer) bool {
		pa, pb := a.Model.Params(), b.Model.Params()
		for i := range pa {
			for j := range pa[i].Data {
				if pa[i].Data[j] != pb[i].Data[j] {
					return false
				}
			}
		}
		return true
	}
	if (ep == 3) != same(best, last) {
		t.Errorf("best kept epoch %d; final states equal: %v (they should be equal exactly when the best is the last)", ep, same(best, last))
	}
	for i := range best.History {
		if *best.History[i].ValidF1 != *last.History[i].ValidF1 {
			t.Fatalf("epoch %d: the two runs trained differently", i+1)
		}
	}
}
