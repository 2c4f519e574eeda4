package train

import (
	"fmt"
	"testing"
)

// TestOneCacheBuildPerEpoch counts the neighbour cache's builds over a
// whole run: validation's refresh is what the next epoch trains on, so an
// epoch adds one build, except where the topic side changes under a cache
// that reads it (two hops): the topic start before the first epoch, and its
// redo after epoch 1 (TopicRefit), each need one more. The tree is fixed
// here so that the count does not depend on whether it grew; a growing
// tree's update costs one more build with two hops for the same reason.
func TestOneCacheBuildPerEpoch(t *testing.T) {
	g, s := tinyData(t)
	const epochs = 2
	for _, tc := range []struct {
		layers, refit int
		want          int
	}{
		// One hop (two layers read their neighbours' own text): the
		// topic start's build serves epoch 1, each validation the next
		// epoch, the refit's build the validation after it.
		{layers: 2, refit: 0, want: 1 + epochs},
		{layers: 2, refit: 1, want: 1 + epochs},
		// Two hops: placing the topics stales the topic start's build,
		// and the refit's too.
		{layers: 3, refit: 0, want: 2 + epochs},
		{layers: 3, refit: 1, want: 3 + epochs},
	} {
		t.Run(fmt.Sprintf("layers=%d/refit=%d", tc.layers, tc.refit), func(t *testing.T) {
			cfg := tinyConfig(g)
			cfg.Layers = tc.layers
			cfg.Tree.Mode = "fixed"
			opt := tinyOptions(epochs, "cache", 5)
			opt.TopicRefit = tc.refit
			opt.TopicWarmup = 5
			opt.Select = "best" // Run then restores a snapshot (checked below)
			// The similarity fit of a restored state embeds the training
			// documents once more (a build of its own, after the epochs).
			opt.FitSimilarity = ""
			tr := newTrainer(t, g, s, cfg, opt)
			if err := tr.Run(); err != nil {
				t.Fatal(err)
			}
			if got := tr.cache.Builds; got != tc.want {
				t.Errorf("%d cache builds in %d epochs, want %d", got, epochs, tc.want)
			}
			// Run ends on the best state's weights, which the cache was not
			// refreshed from: a later validation must rebuild it.
			if tr.best == nil {
				t.Fatal("no best state kept under Select best")
			}
			if tr.cacheFresh {
				t.Error("the cache is marked fresh after the best state was restored")
			}
		})
	}
}
