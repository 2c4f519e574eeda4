package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/outputs"
)

// checkTopicsCmd runs `gtformer topics` on a directory written by
// `gtformer train`: the tree it prints is topics.txt, and --json prints
// topics.json.
func checkTopicsCmd(t *testing.T, dir string) {
	t.Helper()
	code, out, errs := runCmd("topics", "--model", dir)
	if code != 0 {
		t.Fatalf("topics: exit %d: %s", code, errs)
	}
	txt, err := os.ReadFile(filepath.Join(dir, "topics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(txt) {
		t.Errorf("topics prints\n%s\ntopics.txt holds\n%s", out, txt)
	}
	code, out, errs = runCmd("topics", "--model", dir, "--json")
	if code != 0 {
		t.Fatalf("topics --json: exit %d: %s", code, errs)
	}
	js, err := os.ReadFile(filepath.Join(dir, "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(js) {
		t.Error("topics --json does not print topics.json")
	}
}

// checkEmbedCmd runs `gtformer embed` with the model in dir on the
// built-in corpus: it writes (N, n+1) points and (N, T) topic rows, and a
// document whose links all lead to training documents gets exactly the
// point doc_embeddings.npy holds for it (train embeds through training
// links, embed through all of the corpus's links).
func checkEmbedCmd(t *testing.T, dir string) {
	t.Helper()
	g, err := builtinCorpus()
	if err != nil {
		t.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	m, _, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n, T, N := m.Cfg.Width, m.Topics.Tables().T, g.NumDocs()
	f := filepath.Join(t.TempDir(), "emb.npy")
	th := filepath.Join(t.TempDir(), "theta.npy")
	code, out, errs := runCmd("embed", "--model", dir, "--out", f, "--topics-out", th)
	if code != 0 {
		t.Fatalf("embed: exit %d: %s", code, errs)
	}
	if want := fmt.Sprintf("embedded %d documents into %s (%d × %d)", N, f, N, n+1); !strings.Contains(out, want) {
		t.Errorf("embed printed %q, want %q", out, want)
	}
	pts, shape, err := npy.ReadAs[float32](f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int{N, n + 1}) {
		t.Fatalf("embed wrote shape %v, want [%d %d]", shape, N, n+1)
	}
	theta, tshape, err := npy.ReadAs[float32](th)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tshape, []int{N, T}) {
		t.Fatalf("--topics-out has shape %v, want [%d %d]", tshape, N, T)
	}
	var rowSum float32
	for _, v := range theta[:T] {
		rowSum += v
	}
	if rowSum < 0.9999 || rowSum > 1.0001 {
		t.Errorf("θ of document 0 sums to %g", rowSum)
	}
	trained, _, err := npy.ReadAs[float32](filepath.Join(dir, "doc_embeddings.npy"))
	if err != nil {
		t.Fatal(err)
	}
	// Hop features reach FeatureHops links out, and the nested graph
	// embedding Hops: a document is comparable when no link within that
	// reach is held out.
	reach := max(m.Cfg.FeatureHops, m.Cfg.Hops, 1)
	trainOnly := func(d int) bool {
		seen := map[int]bool{d: true}
		front := []int{d}
		for h := 0; h < reach; h++ {
			var next []int
			for _, u := range front {
				if !slices.Equal(g.Neighbors(u), s.TrainNeighbors(u)) {
					return false
				}
				for _, v := range g.Neighbors(u) {
					if !seen[int(v)] {
						seen[int(v)] = true
						next = append(next, int(v))
					}
				}
			}
			front = next
		}
		return true
	}
	same := 0
	for d := 0; d < N; d++ {
		if len(g.Neighbors(d)) == 0 || !trainOnly(d) {
			continue
		}
		same++
		// Equal up to float32 rounding: OpenBLAS's sgemm rounds a row
		// differently depending on the batch it sits in, and embed batches
		// the documents differently from training's final pass.
		a, b := pts[d*(n+1):(d+1)*(n+1)], trained[d*(n+1):(d+1)*(n+1)]
		if !closeRows(a, b, 1e-5) {
			t.Fatalf("document %d: embed gives %v, training's outputs %v", d, a[:3], b[:3])
		}
	}
	// With three hops of features few documents qualify (9 of 1,500 on
	// the built-in corpus), but every document goes through the same code.
	if same < 5 {
		t.Errorf("only %d documents had only training links within %d hops: the comparison covers too little", same, reach)
	}
}

// untrainedModelDir saves a freshly built model for the built-in corpus with
// a topics.json, the files topics and embed read.
func untrainedModelDir(t *testing.T) (string, *corpus.Graph) {
	t.Helper()
	g, err := builtinCorpus()
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 8, 2, 2, 16, 16
	cfg.Vocab = len(g.Vocab)
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(g, corpus.PaperSplit(g).Train, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	T := m.Topics.Tables().T
	theta := make([]float32, T)
	theta[0] = 1
	js, err := json.Marshal(outputs.Topics(m, g, theta, []int{1}))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topics.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, g
}

// TestModelCommandErrors: usage mistakes exit 2; missing or inconsistent
// files and a corpus with another vocabulary exit 1 with one line naming
// the problem.
func TestModelCommandErrors(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tmp := t.TempDir()

	badTopics := filepath.Join(tmp, "bad-topics")
	oneTopic := filepath.Join(tmp, "one-topic")
	for _, d := range []string{badTopics, oneTopic} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{model.ConfigFile, model.TreeFile, model.WeightsFile} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(badTopics, "topics.json"), []byte(`[{"id": 0,`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oneTopic, "topics.json"), []byte(`[{"id": 0, "parent": -1, "level": 0, "children": [3], "words": [], "share": 1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A corpus of other words: its vocabulary is not the model's.
	jsonl := filepath.Join(tmp, "other.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"id": "a", "text": "alpha beta gamma", "links": ["b"]}
{"id": "b", "text": "beta gamma delta"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "e.npy")

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // substring of the last stderr line
	}{
		{"topics without --model", []string{"topics"}, 2, "--model is required"},
		{"topics extra argument", []string{"topics", "--model", dir, "extra"}, 2, `unexpected argument "extra"`},
		{"topics missing dir", []string{"topics", "--model", filepath.Join(tmp, "nope")}, 1, "topics.json"},
		{"topics damaged topics.json", []string{"topics", "--model", badTopics}, 1, filepath.Join(badTopics, "topics.json")},
		{"topics dangling child", []string{"topics", "--model", oneTopic}, 1, "topic 0 lists child 3, which is not among the topics"},
		{"embed without --out", []string{"embed", "--model", dir}, 2, "--model and --out are required"},
		{"embed without --model", []string{"embed", "--out", out}, 2, "--model and --out are required"},
		{"embed zero batch", []string{"embed", "--model", dir, "--out", out, "--batch", "0"}, 2, "--batch and --max-nbrs must be positive"},
		{"embed zero neighbours", []string{"embed", "--model", dir, "--out", out, "--max-nbrs", "0"}, 2, "--batch and --max-nbrs must be positive"},
		{"embed extra argument", []string{"embed", "--model", dir, "--out", out, "x"}, 2, `unexpected argument "x"`},
		{"embed missing model", []string{"embed", "--model", filepath.Join(tmp, "nope"), "--out", out}, 1, model.ConfigFile},
		{"embed other vocabulary", []string{"embed", "--model", dir, "--data", jsonl, "--min-df", "1", "--out", out}, 1, "the model was trained on 600"},
		{"embed missing corpus", []string{"embed", "--model", dir, "--data", filepath.Join(tmp, "none.jsonl"), "--out", out}, 1, "none.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmd(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
			lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tc.want) || !strings.HasPrefix(last, "gtformer "+tc.args[0]+": ") {
				t.Errorf("last stderr line %q does not name %q", last, tc.want)
			}
			if tc.code == 1 && len(lines) != 1 {
				t.Errorf("runtime error spans %d lines:\n%s", len(lines), errs)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed embed left an output file")
	}
}

// closeRows reports whether a and b agree within tol, relative to each
// entry's magnitude (at least 1).
func closeRows(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		if math.Abs(x-y) > tol*max(1, math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}
