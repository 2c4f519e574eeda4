package train

import (
	"slices"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// TestBatchesHoldValidationOut trains a few epochs and checks every batch:
// its centres, their sampled neighbours and its positive links involve only
// training documents outside validation, and every positive pair is a link
// among those. So no validation-to-validation, validation-to-training or
// validation-to-test link is ever trained on, and validation documents
// reach the model only through validation, as test documents reach it only
// through the final evaluation.
func TestBatchesHoldValidationOut(t *testing.T) {
	g, s := tinyData(t)
	if len(s.Valid) == 0 {
		t.Fatal("the tiny corpus has no validation documents")
	}
	held := make([]bool, g.NumDocs()) // validation or test
	for _, d := range s.Valid {
		held[d] = true
	}
	for _, d := range s.Test {
		held[d] = true
	}
	linked := map[[2]int32]bool{}
	for _, l := range g.Links {
		linked[l] = true
	}
	// A link from a validation document to a training document exists, so
	// the check below has something to catch.
	var cross int
	for _, l := range g.Links {
		if held[l[0]] != held[l[1]] {
			cross++
		}
	}
	if cross == 0 {
		t.Fatal("no link crosses between held-out and training documents: the test proves nothing")
	}
	for _, nesting := range []string{"cache", "full"} {
		cfg := tinyConfig(g)
		opt := tinyOptions(2, nesting, 3)
		if nesting == "full" {
			cfg.Hops = 1
		}
		tr := newTrainer(t, g, s, cfg, opt)
		var batches int
		tr.onBatch = func(b *model.Batch) {
			batches++
			for _, d := range slices.Concat(b.Centres, b.Nbrs.Docs) {
				if held[d] {
					t.Fatalf("%s: document %d (validation or test) is in a training batch", nesting, d)
				}
			}
			for i, a := range b.Anchors {
				u, v := b.Centres[a], b.Centres[b.Positives[i]]
				if !linked[[2]int32{min(u, v), max(u, v)}] {
					t.Fatalf("%s: positive pair (%d, %d) is not a link", nesting, u, v)
				}
			}
		}
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		if batches == 0 {
			t.Fatalf("%s: no batch seen", nesting)
		}
		for _, h := range tr.History {
			if h.ValidF1 == nil || h.ValidAUC == nil {
				t.Fatalf("%s: epoch %d has no validation kNN or held-out link AUC: %+v", nesting, h.Epoch, h)
			}
		}
	}
}

// TestValidationCacheIsTheRefresh checks the reuse that saves the epoch
// start its refresh: the cache that validation leaves behind equals, bit
// for bit, the refresh the next epoch would compute from the same weights.
func TestValidationCacheIsTheRefresh(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.Layers = 3 // two hops: the nested refresh
	opt := tinyOptions(1, "cache", 4)
	tr := newTrainer(t, g, s, cfg, opt)
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	// Run ended on the best state, the last validated one (one epoch).
	tr.scoreValidation(&EpochLog{})
	if !tr.cacheFresh {
		t.Fatal("validation did not mark the cache fresh")
	}
	want := tr.Model.NewCache(g.NumDocs())
	tr.Model.RefreshNeighbors(want, tr.In, tr.H.Train, tr.trainNeighbors, opt.MaxNbrs, opt.EmbedBatch)
	if !slices.Equal(floatBits(tr.cache.Data), floatBits(want.Data)) {
		t.Fatal("the cache validation left differs from a fresh refresh")
	}
}

// TestMaskTargets: with MaskTargets no centre's neighbour slots hold one of
// its partners in the batch, and its hop features are those without the
// batch's links (here compared against features.Without directly would
// repeat the code; instead: a centre whose only neighbour is its partner
// aggregates nothing, so its hop rows all equal its own hop-0 row).
func TestMaskTargets(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	cfg.FeatureHops, cfg.FeatureDim = 2, 8
	opt := tinyOptions(1, "cache", 3)
	opt.MaskTargets = true
	tr := newTrainer(t, g, s, cfg, opt)
	var checked, lonely int
	tr.onBatch = func(b *model.Batch) {
		partners := map[int32][]int32{}
		for i, a := range b.Anchors {
			u, v := b.Centres[a], b.Centres[b.Positives[i]]
			partners[u] = append(partners[u], v)
		}
		k, w, m := b.Nbrs.K, tr.In.HopWidth, 8
		for i, d := range b.Centres {
			for _, n := range b.Nbrs.Docs[i*k : (i+1)*k] {
				if slices.Contains(partners[d], n) {
					t.Fatalf("centre %d has its batch partner %d among its neighbour slots", d, n)
				}
				checked++
			}
			nb := tr.H.TrainNeighbors(int(d))
			if len(nb) == 1 && slices.Contains(partners[d], nb[0]) {
				lonely++
				row := b.Hop[i*w : (i+1)*w]
				for h := 1; h <= 2; h++ {
					if !slices.Equal(row[h*m:(h+1)*m], row[:m]) {
						t.Fatalf("centre %d, linked only to its partner: hop %d %v, want its own row %v", d, h, row[h*m:(h+1)*m], row[:m])
					}
				}
			}
		}
	}
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 || lonely == 0 {
		t.Fatalf("checked %d slots and %d centres linked only to their partner: the test proves nothing", checked, lonely)
	}
}
