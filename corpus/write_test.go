package corpus_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/internal/shared"
)

// small builds a hand-made graph: 4 documents (one empty), 3 words.
func small(t *testing.T) *corpus.Graph {
	t.Helper()
	g := &corpus.Graph{
		Name:       "small",
		Vocab:      []string{"alpha", "beta", "gamma"},
		DocPtr:     []int64{0, 2, 2, 5, 6},
		Tokens:     []int32{0, 1, 2, 2, 0, 1},
		Labels:     []int32{1, 0, 1, 0},
		LabelNames: []string{"first label", "second"},
	}
	g.SetLinks([][2]int32{{0, 1}, {3, 0}, {2, 3}})
	return g
}

func sameGraph(t *testing.T, got, want *corpus.Graph) {
	t.Helper()
	switch {
	case !slices.Equal(got.Vocab, want.Vocab):
		t.Error("vocabulary differs")
	case !slices.Equal(got.DocPtr, want.DocPtr) || !slices.Equal(got.Tokens, want.Tokens):
		t.Error("documents differ")
	case !slices.Equal(got.Links, want.Links) || !slices.Equal(got.AdjPtr, want.AdjPtr) || !slices.Equal(got.AdjIdx, want.AdjIdx):
		t.Error("links differ")
	case !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.LabelNames, want.LabelNames):
		t.Errorf("labels differ: %v %v vs %v %v", got.Labels, got.LabelNames, want.Labels, want.LabelNames)
	case got.WordDim != want.WordDim || !slices.Equal(got.WordVectors, want.WordVectors):
		t.Error("word vectors differ")
	}
}

func TestWriteFolderExactFiles(t *testing.T) {
	dir := t.TempDir()
	if err := corpus.WriteFolder(small(t), dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"voc.txt":         "alpha\nbeta\ngamma\n",
		"contents.txt":    "0 1\n\n2 2 0\n1\n",
		"links.txt":       "0 1\n0 3\n2 3\n",
		"labels.txt":      "1\n0\n1\n0\n",
		"label_names.txt": "first label\nsecond\n",
	}
	es, _ := os.ReadDir(dir)
	if len(es) != len(want) {
		t.Errorf("folder holds %d files, want %d", len(es), len(want))
	}
	for name, content := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != content {
			t.Errorf("%s = %q, want %q", name, b, content)
		}
	}
}

func TestWriteFolderRoundTrip(t *testing.T) {
	withVectors := small(t)
	withVectors.WordDim = corpus.EmbeddingsDim
	withVectors.WordVectors = make([]float32, 3*corpus.EmbeddingsDim)
	for k := range withVectors.WordVectors {
		withVectors.WordVectors[k] = float32(math.Sin(float64(k))) * 1e-3 * float32(k%7)
	}
	builtin, _, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := small(t)
	unlabelled.Labels, unlabelled.LabelNames = nil, nil

	tests := []struct {
		name string
		g    *corpus.Graph
	}{
		{"small", small(t)},
		{"word vectors", withVectors},
		{"unlabelled", unlabelled},
		{"builtin", builtin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := corpus.WriteFolder(tc.g, dir); err != nil {
				t.Fatal(err)
			}
			got, err := corpus.LoadFolder(dir, corpus.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, got, tc.g)
		})
	}
}

func TestWriteFolderSharedML(t *testing.T) {
	src := shared.Dataset(t, "ml")
	g, err := corpus.LoadFolder(src, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := corpus.WriteFolder(g, dir); err != nil {
		t.Fatal(err)
	}
	back, err := corpus.LoadFolder(dir, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, back, g)
}

func TestWriteFolderRemovesStaleOptionalFiles(t *testing.T) {
	dir := t.TempDir()
	if err := corpus.WriteFolder(small(t), dir); err != nil {
		t.Fatal(err)
	}
	g := small(t)
	g.Labels, g.LabelNames = nil, nil
	if err := corpus.WriteFolder(g, dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"labels.txt", "label_names.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("stale %s left behind", name)
		}
	}
}

func TestWriteFolderErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(g *corpus.Graph)
		want string
	}{
		{"word with space", func(g *corpus.Graph) { g.Vocab[1] = " beta" }, "surrounding spaces"},
		{"word with newline", func(g *corpus.Graph) { g.Vocab[1] = "be\nta" }, "line break"},
		{"empty word", func(g *corpus.Graph) { g.Vocab[2] = "" }, "empty"},
		{"token out of range", func(g *corpus.Graph) { g.Tokens[3] = 3 }, "outside the vocabulary"},
		{"label without name", func(g *corpus.Graph) { g.Labels[2] = 2 }, "without a name"},
		{"label count", func(g *corpus.Graph) { g.Labels = g.Labels[:3] }, "3 labels for 4 documents"},
		{"link out of range", func(g *corpus.Graph) { g.Links = append(g.Links, [2]int32{1, 9}) }, "outside [0,4)"},
		{"vector width", func(g *corpus.Graph) { g.WordDim, g.WordVectors = 2, make([]float32, 6) }, "2 dimensions"},
		{"NaN vector", func(g *corpus.Graph) {
			g.WordDim, g.WordVectors = corpus.EmbeddingsDim, make([]float32, 3*corpus.EmbeddingsDim)
			g.WordVectors[400] = float32(math.NaN())
		}, "word 1 holds NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := small(t)
			tc.edit(g)
			dir := filepath.Join(t.TempDir(), "out")
			err := corpus.WriteFolder(g, dir)
			if err == nil || !strings.HasPrefix(err.Error(), "corpus: write "+dir+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming the folder and containing %q", err, tc.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Error("a rejected graph created the folder")
			}
		})
	}
}

func ExampleWriteFolder() {
	dir, _ := os.MkdirTemp("", "builtin")
	defer os.RemoveAll(dir)
	g, _, _ := synth.Generate(synth.Default())
	if err := corpus.WriteFolder(g, dir); err != nil {
		panic(err)
	}
	back, err := corpus.LoadFolder(dir, corpus.LoadOptions{})
	fmt.Println(back.NumDocs(), len(back.Links), len(back.Vocab), err)
	// Output: 1500 3000 600 <nil>
}

func BenchmarkWriteFolder(b *testing.B) {
	cfg := synth.Default()
	cfg.Docs, cfg.Links = 50000, 100000
	g, _, err := synth.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.SetBytes(int64(len(g.Tokens)) * 4) // roughly the bytes of contents.txt
	for b.Loop() {
		if err := corpus.WriteFolder(g, dir); err != nil {
			b.Fatal(err)
		}
	}
}
