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
