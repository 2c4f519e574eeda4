package train

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
)

// tinyCorpus is a synthetic corpus with a planted 13-topic tree: 200
// documents of about 30 words over 150 words, 400 links (paper split: 160
// training documents of which 16 validate, 40 test documents).
var tinyCorpus = sync.OnceValues(func() (*corpus.Graph, error) {
	cfg := synth.Default()
	cfg.Docs, cfg.Vocab, cfg.Links, cfg.MeanLength = 200, 150, 400, 30
	g, _, err := synth.Generate(cfg)
	return g, err
})

func tinyData(t testing.TB) (*corpus.Graph, *corpus.Split) {
	t.Helper()
	g, err := tinyCorpus()
	if err != nil {
		t.Fatal(err)
	}
	return g, corpus.PaperSplit(g)
}

// tinyConfig is a width-16, 2-layer model with dropout on (so the dropout
// stream is part of what must reproduce) and the default growing tree.
func tinyConfig(g *corpus.Graph) model.Config {
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 16, 2, 2, 32, 24
	cfg.SupHidden = 16
	cfg.Vocab = len(g.Vocab)
	cfg.NumLabels = g.NumLabels()
	return cfg
}

// tinyOptions validates and (in grow mode) updates the tree after every
// epoch, with a short warm-up so the schedule's decay is exercised.
func tinyOptions(epochs int, nesting string, seed uint64) Options {
	opt := DefaultOptions()
	opt.Epochs = epochs
	opt.Nesting = Nesting(nesting)
	opt.Seed = seed
	opt.Warmup = 4
	opt.ValidEvery, opt.GrowEvery = 1, 1
	opt.EmbedBatch = 64
	// The best-state machinery (best.safetensors, its restore, its place in
	// checkpoints) is what most of these tests exercise; TestSelectLast
	// covers the default, the last state.
	opt.Select = "best"
	return opt
}

// newTrainer builds a fresh model (seeded like the options) and its trainer.
// env, when given, is the session's environment (none: Env{}).
func newTrainer(t testing.TB, g *corpus.Graph, s *corpus.Split, cfg model.Config, opt Options, env ...Env) *Trainer {
	t.Helper()
	m, err := model.New(cfg, opt.Seed)
	if err != nil {
		t.Fatal(err)
	}
	var e Env
	if len(env) > 0 {
		e = env[0]
	}
	tr, err := New(m, g, s, opt, e)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// runLogged trains tr to the end with its log in a buffer, and returns
// the log.
func runLogged(t testing.TB, tr *Trainer) string {
	t.Helper()
	var log strings.Builder
	tr.Env.Log, tr.log = &log, &log
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	return log.String()
}

// paramBits returns every parameter's values as raw bits by name.
func paramBits(m *model.Model) map[string][]uint32 {
	out := map[string][]uint32{}
	for _, p := range m.Params() {
		out[p.Name] = floatBits(p.Data)
	}
	return out
}

func floatBits(x []float32) []uint32 {
	b := make([]uint32, len(x))
	for i, v := range x {
		b[i] = math.Float32bits(v)
	}
	return b
}

// diffBits reports the first difference between two named bit sets ("" if
// none).
func diffBits(a, b map[string][]uint32) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d tensors vs %d", len(a), len(b))
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok {
			return fmt.Sprintf("tensor %q missing", name)
		}
		if len(x) != len(y) {
			return fmt.Sprintf("tensor %q: %d values vs %d", name, len(x), len(y))
		}
		for i := range x {
			if x[i] != y[i] {
				return fmt.Sprintf("tensor %q[%d]: %g vs %g", name, i, math.Float32frombits(x[i]), math.Float32frombits(y[i]))
			}
		}
	}
	return ""
}

// sliceDiff reports the first bitwise difference between two float32 slices.
func sliceDiff(what string, x, y []float32) string {
	return diffBits(map[string][]uint32{what: floatBits(x)}, map[string][]uint32{what: floatBits(y)})
}

// curve is the learning curve without its wall-clock fields, as JSON (so
// pointer fields compare by value).
func curve(t testing.TB, h []EpochLog) string {
	t.Helper()
	c := make([]EpochLog, len(h))
	for i, e := range h {
		e.Seconds, e.DocsPerSec, e.Elapsed = 0, 0, 0
		c[i] = e
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// treeJSON is the model's tree as written to tree.json.
func treeJSON(t testing.TB, m *model.Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Topics.Tree.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// allFinite reports the first non-finite value among named tensors.
func firstNonFinite(ts map[string][]float32) string {
	for name, x := range ts {
		for i, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Sprintf("%s[%d] = %v", name, i, v)
			}
		}
	}
	return ""
}

// newestGeneration returns the directory of the newest complete generation
// of a checkpoint directory.
func newestGeneration(t testing.TB, dir string) string {
	t.Helper()
	gens, _, _, err := listCheckpoint(dir)
	if err != nil || len(gens) == 0 {
		t.Fatalf("no checkpoint generation in %s (%v)", dir, err)
	}
	return filepath.Join(dir, gens[len(gens)-1].name)
}

// generationNames lists a checkpoint directory's complete generations.
func generationNames(t testing.TB, dir string) []string {
	t.Helper()
	gens, _, _, err := listCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range gens {
		names = append(names, g.name)
	}
	return names
}

// dirNames lists the entries of dir.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
