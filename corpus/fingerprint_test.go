package corpus

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFingerprint: the fingerprint of a corpus is the same however often
// it is read, and every kind of change is caught and named: one more
// document (which also moves the split, the fault of issue 16: training
// documents scored as test documents), a renamed word, a dropped link,
// another label, another split, other tokenizer settings. Check leaves out
// what it is told to ignore.
func TestFingerprint(t *testing.T) {
	load := func(t *testing.T) *Graph {
		g, err := LoadFolder(filepath.Join("testdata", "tiny"), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	settings := map[string]string{"split": "paper"}
	base := NewFingerprint(load(t), PaperSplit(load(t)), settings, "testdata/tiny")
	if again := NewFingerprint(load(t), PaperSplit(load(t)), settings, "elsewhere"); again.Hash != base.Hash || base.Check(again) != nil {
		t.Fatalf("the same corpus read twice: %s vs %s, %v", base.Hash, again.Hash, base.Check(again))
	}
	if len(base.Hash) != 64 || base.Documents.Count != 10 || base.Vocab.Count != 8 || base.Labels.Count != 2 || base.Split.Test != 2 {
		t.Errorf("fingerprint %+v", base)
	}
	for _, tc := range []struct {
		name     string
		change   func(g *Graph) (*Split, map[string]string)
		want     []string // the components named, in order
		contains string   // a detail of the first difference
	}{
		{"one more document", func(g *Graph) (*Split, map[string]string) {
			g.Tokens = append(g.Tokens, 1, 2)
			g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
			g.Labels = append(g.Labels, 0)
			g.SetLinks(g.Links)
			return PaperSplit(g), settings
		}, []string{"documents", "labels", "split"}, "10 documents, here 11"},
		{"a renamed word", func(g *Graph) (*Split, map[string]string) {
			g.Vocab[3] = "renamed"
			return PaperSplit(g), settings
		}, []string{"vocabulary"}, "8 words as here, but other content"},
		{"a dropped link", func(g *Graph) (*Split, map[string]string) {
			g.SetLinks(g.Links[1:])
			return PaperSplit(g), settings
		}, []string{"links"}, "8 links, here 7"},
		{"another label", func(g *Graph) (*Split, map[string]string) {
			g.Labels[0] = 1 - g.Labels[0]
			return PaperSplit(g), settings
		}, []string{"labels"}, "2 labels as here, but other content"},
		{"another split", func(g *Graph) (*Split, map[string]string) {
			return RandomSplit(g, 3), map[string]string{"split": "random", "split-seed": "3"}
		}, []string{"split", "settings"}, "as many training/validation/test documents"},
		{"other settings", func(g *Graph) (*Split, map[string]string) {
			return PaperSplit(g), map[string]string{"split": "paper", "min-df": "1"}
		}, []string{"settings"}, "--min-df not used, here 1"},
		{"no settings given", func(g *Graph) (*Split, map[string]string) {
			return PaperSplit(g), nil
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := load(t)
			s, set := tc.change(g)
			got := NewFingerprint(g, s, set, "")
			var names []string
			for _, d := range base.Diff(got) {
				names = append(names, d.What)
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("differences %v, want %v (%v)", names, tc.want, base.Diff(got))
			}
			err := base.Check(got)
			if tc.want == nil {
				if err != nil {
					t.Errorf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.contains) || !strings.Contains(err.Error(), "testdata/tiny") {
				t.Errorf("Check: %v, want a message naming %q and the model's corpus", err, tc.contains)
			}
			if got.Hash == base.Hash {
				t.Error("a different corpus has the same hash")
			}
			if base.Check(got, tc.want...) != nil {
				t.Errorf("Check ignoring %v still fails: %v", tc.want, base.Check(got, tc.want...))
			}
		})
	}
}

// TestFingerprintGolden pins the hash of the tiny corpus: a change to how
// fingerprints are computed makes every saved model's fingerprint differ
// from its own corpus's, and must be deliberate.
func TestFingerprintGolden(t *testing.T) {
	g, err := LoadFolder(filepath.Join("testdata", "tiny"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFingerprint(g, PaperSplit(g), map[string]string{"split": "paper"}, "")
	const want = "8a1d7464ec611ed391d75051c2173f0e9404772266f6b01da7d490ac893f8cfa"
	if f.Hash != want {
		t.Errorf("hash %s, want %s", f.Hash, want)
	}
}
