package corpus

import (
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

// The expected figures come from the issue and were checked independently
// with a short Python script over the raw files (set of sorted pairs with
// self-links removed; split at floor(0.8 N)).
func TestLoadSharedDatasets(t *testing.T) {
	for _, tc := range []struct {
		name                                       string
		docs, links, vocab                         int
		tokens                                     int64
		labels, train, test, trainLinks, testLinks int
		wordDim                                    int
	}{
		{"ml", 3087, 8573, 2885, 196109, 7, 2469, 618, 5219, 430, 300},
		{"pl", 2597, 7754, 2814, 163924, 9, 2077, 520, 4984, 298, 300},
		{"covid", 1500, 5706, 5083, 282896, 5, 1200, 300, 3596, 232, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := LoadFolder(shared.Dataset(t, tc.name), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("loaded graph invalid: %v", err)
			}
			s := PaperSplit(g)
			st := ComputeStats(g, s, "paper")
			got := []int64{int64(st.Docs), int64(st.Links), int64(st.Vocab), st.Tokens, int64(st.Labels),
				int64(st.TrainDocs), int64(st.TestDocs), int64(st.TrainLinks), int64(st.TestLinks), int64(st.WordDim)}
			want := []int64{int64(tc.docs), int64(tc.links), int64(tc.vocab), tc.tokens, int64(tc.labels),
				int64(tc.train), int64(tc.test), int64(tc.trainLinks), int64(tc.testLinks), int64(tc.wordDim)}
			names := []string{"docs", "links", "vocab", "tokens", "labels", "train_docs", "test_docs", "train_links", "test_links", "word_dim"}
			for k := range got {
				if got[k] != want[k] {
					t.Errorf("%s = %d, want %d", names[k], got[k], want[k])
				}
			}
			if st.ValidDocs != tc.train/10 {
				t.Errorf("valid_docs = %d, want %d", st.ValidDocs, tc.train/10)
			}
		})
	}
}
