package train

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gtformer/gtformer/evaluate"
)

// TestSameSeedSameNumbers trains the tiny model twice with the same seed, in
// both nesting modes (and with the cache's two-hop nesting) and with the tree growing after every epoch: the
// parameters end bit-identical, and so do the tree, the trainer state, the
// learning curve (losses, validation scores, topic counts) and the test
// metrics. A different seed changes the parameters and the curve.
func TestSameSeedSameNumbers(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	type run struct {
		params  map[string][]uint32
		tree    string
		state   State
		curve   string
		metrics string
	}
	train := func(t *testing.T, nesting string, hops int, seed uint64) run {
		c := cfg
		c.Hops = hops
		if hops == 2 {
			c.Layers = 3 // two layers reach one hop whatever Hops says
		}
		tr := newTrainer(t, g, s, c, tinyOptions(2, nesting, seed))
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		res := evaluate.Run(tr.Model, g, s, tr.In, evaluate.Options{EmbedBatch: 64})
		met, err := json.Marshal(struct {
			Test   evaluate.Test
			Topics evaluate.Topics
			Points []float32
		}{res.Test, res.Topics, res.Emb.Points})
		if err != nil {
			t.Fatal(err)
		}
		return run{paramBits(tr.Model), treeJSON(t, tr.Model), tr.State, curve(t, tr.History), string(met)}
	}
	for _, tc := range []struct {
		name, nesting string
		hops          int
	}{{"full", "full", 1}, {"cache", "cache", 1}, {"cache two hops", "cache", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := train(t, tc.nesting, tc.hops, 7), train(t, tc.nesting, tc.hops, 7)
			if d := diffBits(a.params, b.params); d != "" {
				t.Errorf("same seed, different parameters: %s", d)
			}
			if a.tree != b.tree {
				t.Errorf("same seed, different trees:\n%s\nvs\n%s", a.tree, b.tree)
			}
			if a.state != b.state {
				t.Errorf("same seed, different states: %+v vs %+v", a.state, b.state)
			}
			if a.curve != b.curve {
				t.Errorf("same seed, different learning curves:\n%s\nvs\n%s", a.curve, b.curve)
			}
			if a.metrics != b.metrics {
				t.Errorf("same seed, different test metrics or embeddings")
			}
			c := train(t, tc.nesting, tc.hops, 8)
			if diffBits(a.params, c.params) == "" {
				t.Error("seeds 7 and 8 ended with identical parameters")
			}
			if a.curve == c.curve {
				t.Error("seeds 7 and 8 have identical learning curves")
			}
		})
	}
}

// TestResumeEqualsUninterrupted trains 3 epochs in one session and, with the
// same seed, in three sessions of one epoch each (StopAfter 1, then Resume
// from the checkpoint twice). The tree grows or is pruned after epochs 1 and
// 2, so the resumed tree, optimiser moments, schedule position, dropout and
// neighbour streams and best state all have to come back from disk. Every
// checkpoint file ends byte-identical, and so do the final parameters (the
// best state), the trainer state and the learning curve.
func TestResumeEqualsUninterrupted(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	for _, nesting := range []string{"cache", "full"} {
		t.Run(nesting, func(t *testing.T) {
			opt := tinyOptions(3, nesting, 3)

			whole := Env{Checkpoint: filepath.Join(t.TempDir(), "whole")}
			a := newTrainer(t, g, s, cfg, opt, whole)
			if err := a.Run(); err != nil {
				t.Fatal(err)
			}

			var log bytes.Buffer
			parts := Env{Checkpoint: filepath.Join(t.TempDir(), "parts"), StopAfter: 1, Log: &log}
			b := newTrainer(t, g, s, cfg, opt, parts)
			if err := b.Run(); err != nil {
				t.Fatal(err)
			}
			if b.State.Epoch != 1 || len(b.History) != 1 {
				t.Fatalf("StopAfter 1 ran to epoch %d with %d history lines", b.State.Epoch, len(b.History))
			}
			if !bytes.Contains(log.Bytes(), []byte("stopped after epoch 1 of 3")) {
				t.Errorf("no stop message in the log:\n%s", log.String())
			}
			if tab := b.Model.Topics.Tables(); tab.T == 13 && b.Model.Topics.Tree.NextID() == 13 {
				t.Fatal("the tree did not change after epoch 1: the resume would not cover the tree state")
			}
			for session := 2; session <= 3; session++ {
				var err error
				b, err = Resume(parts.Checkpoint, g, s, parts)
				if err != nil {
					t.Fatal(err)
				}
				if b.State.Epoch != session-1 {
					t.Fatalf("session %d resumed after epoch %d", session, b.State.Epoch)
				}
				if err := b.Run(); err != nil {
					t.Fatal(err)
				}
			}
			if b.State.Epoch != 3 {
				t.Fatalf("resumed run ended after epoch %d, want 3", b.State.Epoch)
			}

			if d := diffBits(paramBits(a.Model), paramBits(b.Model)); d != "" {
				t.Errorf("final (best) parameters differ: %s", d)
			}
			// σ's r and t move during training (tracking) and are part of
			// the best state: they must come back through the checkpoint.
			if ra, rb := a.Model.Cfg.Tree, b.Model.Cfg.Tree; ra.FDRadius != rb.FDRadius || ra.FDTemp != rb.FDTemp || ra.FDTrack != rb.FDTrack {
				t.Errorf("σ differs: r, t, rate = %v, %v, %v vs %v, %v, %v", ra.FDRadius, ra.FDTemp, ra.FDTrack, rb.FDRadius, rb.FDTemp, rb.FDTrack)
			}
			if a.Model.Cfg.Tree.FDTrack == 0 || a.Model.Cfg.Tree.FDTemp == 0 {
				t.Error("the default topic start did not calibrate and track σ: the resume would not cover it")
			}
			if ta, tb := treeJSON(t, a.Model), treeJSON(t, b.Model); ta != tb {
				t.Errorf("final trees differ:\n%s\nvs\n%s", ta, tb)
			}
			if a.State != b.State {
				t.Errorf("states differ: %+v vs %+v", a.State, b.State)
			}
			if ca, cb := curve(t, a.History), curve(t, b.History); ca != cb {
				t.Errorf("learning curves differ:\n%s\nvs\n%s", ca, cb)
			}
			// The runs keep the same generations. trainer.json differs only
			// in wall-clock fields (and so the manifest, which hashes it);
			// every other file must be byte-identical.
			if ga, gb := generationNames(t, whole.Checkpoint), generationNames(t, parts.Checkpoint); !slices.Equal(ga, gb) || len(ga) != 2 {
				t.Errorf("generations %v and %v, want the same two", ga, gb)
			}
			wholeGen, partsGen := newestGeneration(t, whole.Checkpoint), newestGeneration(t, parts.Checkpoint)
			names := dirNames(t, wholeGen)
			want := []string{bestFile, bestTreeFile, "config.json", manifestFile, optimizerFile, trainerFile, "tree.json", "weights.safetensors"}
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Errorf("checkpoint holds %v, want %v", names, want)
			}
			for _, name := range names {
				if name == trainerFile || name == manifestFile {
					continue
				}
				x, err1 := os.ReadFile(filepath.Join(wholeGen, name))
				y, err2 := os.ReadFile(filepath.Join(partsGen, name))
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if !bytes.Equal(x, y) {
					t.Errorf("%s differs between the uninterrupted and the resumed run", name)
				}
			}
		})
	}
}
