package pipeline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/train"
)

// tinySpec is a run on the built-in corpus at width 16 for 2 epochs:
// about a second.
func tinySpec(t *testing.T, dir string) Spec {
	t.Helper()
	g, truth, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 16, 2, 2, 32, 24
	opt := train.DefaultOptions()
	opt.Epochs = 2
	return Spec{Dir: dir, Dataset: "builtin", Graph: g, Split: corpus.PaperSplit(g), Planted: truth.Leaf,
		Config: cfg, Options: opt, Map: true}
}

// metricsBlocks reads metrics.json's test and topics blocks, the figures
// a run must reproduce.
func metricsBlocks(t *testing.T, dir string) (test, topics json.RawMessage) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, outputs.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["test"] == nil || m["topics"] == nil {
		t.Fatalf("metrics.json without test or topics: %s", raw)
	}
	return m["test"], m["topics"]
}

func TestRunWritesOutputsAndRepeats(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		r, err := Run(tinySpec(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if r.Resumed != 0 || r.Eval == nil || r.Valid != nil || len(r.Topics) == 0 || r.Metrics.Test.KNNMicroF1 == nil {
			t.Fatalf("result %+v", r)
		}
		want := append(append([]string{}, outputs.WriteFiles...), outputs.MetaFile, "curves.png", "curves.svg", "map.png", "map.svg")
		for _, f := range want {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
		if !train.HasCheckpoint(filepath.Join(dir, "checkpoint")) {
			t.Errorf("%s: no checkpoint", dir)
		}
	}
	test0, topics0 := metricsBlocks(t, dirs[0])
	test1, topics1 := metricsBlocks(t, dirs[1])
	if string(test0) != string(test1) || string(topics0) != string(topics1) {
		t.Errorf("one seed, two runs, other figures:\n%s\n%s\n%s\n%s", test0, test1, topics0, topics1)
	}
	a, _ := os.ReadFile(filepath.Join(dirs[0], outputs.TopicsTextFile))
	b, _ := os.ReadFile(filepath.Join(dirs[1], outputs.TopicsTextFile))
	if string(a) != string(b) || len(a) == 0 {
		t.Errorf("topics.txt differs:\n%s\n%s", a, b)
	}
}

// TestRunValidOnly: a validation-only run writes valid.json and topics.txt
// and removes an earlier run's test outputs; resuming its checkpoint
// gives the same report.
func TestRunValidOnly(t *testing.T) {
	dir := t.TempDir()
	sp := tinySpec(t, dir)
	if _, err := Run(sp); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, outputs.MetricsFile)
	sp.ValidOnly = true
	r, err := Run(sp)
	if err != nil {
		t.Fatal(err)
	}
	if r.Eval != nil || r.Valid == nil || r.Valid.Valid == nil || r.Valid.Epochs != 2 || len(r.Topics) == 0 {
		t.Fatalf("result %+v", r)
	}
	for _, f := range ValidFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an earlier run's metrics.json stayed beside valid.json: %v", err)
	}
	sp.Resume = ResumeIfPresent
	again, err := Run(sp)
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != 2 || !reflect.DeepEqual(again.Valid.Valid, r.Valid.Valid) {
		t.Errorf("resumed after epoch %d: valid %+v, first run %+v", again.Resumed, again.Valid.Valid, r.Valid.Valid)
	}
}

func TestRunSettingsErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Spec)
	}{
		{"supervised without labels", func(sp *Spec) {
			g := *sp.Graph
			g.Labels = nil
			sp.Graph, sp.Config.Supervised = &g, true
		}},
		{"heads not dividing the width", func(sp *Spec) { sp.Config.Width = 15 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			sp := tinySpec(t, t.TempDir())
			c.change(&sp)
			_, err := Run(sp)
			var bad *SettingsError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v: want a SettingsError", err)
			}
		})
	}
	if _, err := Run(Spec{}); err == nil {
		t.Error("a run without a folder ran")
	}
}
