package evaluate

import (
	"testing"

	"github.com/gtformer/gtformer/model"
)

// LearnedLeaves picks the leaf with the largest θ even when an inner topic
// holds more; Recovery is 1 for the same partition under other names.
func TestLearnedLeavesAndRecovery(t *testing.T) {
	cfg := model.Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab = 8, 2, 16, 10
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	T := m.Topics.Tables().T // 13: root 0, level 1 rows 1-3, leaves 4-12
	theta := make([]float32, 3*T)
	theta[0*T+7] = 0.6
	theta[1*T+0], theta[1*T+5], theta[1*T+11] = 0.7, 0.1, 0.2 // root largest; leaf 11 wins
	theta[2*T+4] = 1
	got := LearnedLeaves(m, &model.Embeddings{Topics: T, Theta: theta})
	want := []int32{7, 11, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("document %d: learned leaf %d, want %d", i, got[i], want[i])
		}
	}
	if r := Recovery([]int32{2, 0, 1}, got); r != 1 {
		t.Errorf("recovery of a renamed partition = %v, want 1", r)
	}
}
