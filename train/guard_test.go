package train

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

// poison sets the first entry of the named parameter to NaN before the
// given step, the first `times` times that step is reached (roll-backs
// reach it again), and counts how often the step ran.
func poison(t *testing.T, tr *Trainer, name string, step int64, times int) *int {
	t.Helper()
	var p *tensor.Tensor
	for _, q := range tr.Model.Params() {
		if q.Name == name {
			p = q
		}
	}
	if p == nil {
		t.Fatalf("no parameter %q", name)
	}
	hits := 0
	tr.beforeStep = func(s int64) {
		if s != step {
			return
		}
		hits++
		if hits <= times {
			p.Data[0] = float32(math.NaN())
		}
	}
	return &hits
}

// checkpointFinite reads every tensor file of a checkpoint directory and
// reports the first non-finite value.
func checkpointFinite(t *testing.T, dir string) {
	t.Helper()
	dir = newestGeneration(t, dir)
	for _, f := range []string{model.WeightsFile, optimizerFile, bestFile} {
		ts, _, err := safetensors.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("reading the checkpoint: %v", err)
		}
		vals := map[string][]float32{}
		for name, x := range ts {
			vals[name] = x.Data
		}
		if bad := firstNonFinite(vals); bad != "" {
			t.Errorf("%s holds %s", f, bad)
		}
	}
}

// TestNaNGuard poisons the topic decoder U with a NaN at a step of epoch 2:
// only the topic loss depends on U, so the guard must name that part (or the
// gradient norm) and the step. A one-off NaN is rolled back to the start of the epoch and the
// learning rate halved; training then finishes with finite parameters. A
// NaN that comes back at every attempt stops training after three
// roll-backs with an error naming the step and part, and the checkpoint on
// disk stays the finite one of epoch 1.
func TestNaNGuard(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	for _, tc := range []struct {
		name      string
		times     int
		wantErr   bool
		wantHits  int
		rollbacks int
	}{
		{"transient", 1, false, 2, 1},
		{"persistent", 1 << 30, true, 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tinyOptions(2, "cache", 5)
			var env Env
			env.Checkpoint = t.TempDir()
			var log bytes.Buffer
			env.Log = &log
			tr := newTrainer(t, g, s, cfg, opt, env)
			step := tr.stepsPerEpoch() + 2
			hits := poison(t, tr, "tree.decoder.u", step, tc.times)
			err := tr.Run()

			// U feeds only β and so only the topic loss: the NaN shows
			// there, or in the gradient norm if an op of the forward pass
			// swallows it (tensor's vectorised softmax maps a NaN logit
			// to probability 1). Never in the graph loss.
			var wantMsg string
			for _, part := range []string{"topic loss", "gradient norm"} {
				if m := fmt.Sprintf("step %d: %s is NaN", step, part); strings.Contains(log.String(), m) {
					wantMsg = m
				}
			}
			if wantMsg == "" {
				t.Fatalf("log names neither the topic loss nor the gradient norm at step %d:\n%s", step, log.String())
			}
			if *hits != tc.wantHits {
				t.Errorf("step %d ran %d times, want %d", step, *hits, tc.wantHits)
			}
			if tr.State.Rollbacks != tc.rollbacks || tr.State.LRScale != math.Pow(0.5, float64(tc.rollbacks)) {
				t.Errorf("%d roll-backs, learning rate ×%g; want %d, ×%g", tr.State.Rollbacks, tr.State.LRScale, tc.rollbacks, math.Pow(0.5, float64(tc.rollbacks)))
			}
			rolled := wantMsg + ": rolled back to the start of epoch 2, learning rate ×0.5"
			if !strings.Contains(log.String(), rolled) {
				t.Errorf("log lacks %q:\n%s", rolled, log.String())
			}
			if tc.wantErr {
				if err == nil {
					t.Fatal("training with a NaN at every attempt succeeded")
				}
				if !strings.Contains(err.Error(), wantMsg) || !strings.Contains(err.Error(), "roll-backs") {
					t.Errorf("error %q does not name the step, the part and the roll-backs", err)
				}
				// The checkpoint is the one of epoch 1.
				back, rerr := Resume(env.Checkpoint, g, s, Env{})
				if rerr != nil {
					t.Fatal(rerr)
				}
				if back.State.Epoch != 1 || back.State.Rollbacks != 0 {
					t.Errorf("checkpoint after the failure is at epoch %d with %d roll-backs, want epoch 1, none", back.State.Epoch, back.State.Rollbacks)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if tr.State.Epoch != 2 {
					t.Errorf("ended after epoch %d, want 2", tr.State.Epoch)
				}
				vals := map[string][]float32{}
				for _, p := range tr.Model.Params() {
					vals[p.Name] = p.Data
				}
				if bad := firstNonFinite(vals); bad != "" {
					t.Errorf("trained model holds %s", bad)
				}
			}
			checkpointFinite(t, env.Checkpoint)
		})
	}
}
