package serve

import (
	"os"
	"sync"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/model"
)

// The fixture is an untrained model (width 8, three layers: the nested
// two-hop path) on a small planted-tree corpus, saved to a folder, with
// its index. Tests share it: the index and the model are read-only.
var fix struct {
	once sync.Once
	dir  string
	g    *corpus.Graph
	ix   *explore.Index
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.dir != "" {
		os.RemoveAll(fix.dir)
	}
	os.Exit(code)
}

func fixture(t testing.TB) (*explore.Index, string) {
	t.Helper()
	fix.once.Do(func() {
		cfg := synth.Default()
		cfg.Docs, cfg.Links, cfg.Seed = 300, 600, 7
		g, truth, err := synth.Generate(cfg)
		if err != nil {
			fix.err = err
			return
		}
		// A year field besides the labels, for the facets.
		years, err := synth.Years(truth, 2000, 2010, 7)
		if err != nil {
			fix.err = err
			return
		}
		g.Fields = []corpus.Field{years}
		mc := model.Default()
		mc.Width, mc.Layers, mc.Heads, mc.MLPHidden, mc.MaxLen = 8, 3, 2, 16, 16
		mc.Vocab = len(g.Vocab)
		m, err := model.New(mc, 1)
		if err != nil {
			fix.err = err
			return
		}
		if fix.err = m.Prepare(g, corpus.PaperSplit(g).Train, 1); fix.err != nil {
			return
		}
		if fix.dir, fix.err = os.MkdirTemp("", "gtformer-serve-test-"); fix.err != nil {
			return
		}
		if fix.err = m.Save(fix.dir, 1); fix.err != nil {
			return
		}
		fix.g = g
		fix.ix, fix.err = explore.Open(fix.dir, m, g)
	})
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return fix.ix, fix.dir
}
