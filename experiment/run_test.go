package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/train"
)

var (
	builtinOnce  sync.Once
	builtinGraph *corpus.Graph
	builtinErr   error
)

// builtin is the built-in synthetic corpus (1,500 documents), generated once
// per test binary; loads counts how often a plan asked for it.
func builtin(loads *int) Dataset {
	return Dataset{Name: "builtin", Load: func() (*corpus.Graph, *corpus.Split, error) {
		*loads++
		builtinOnce.Do(func() { builtinGraph, _, builtinErr = synth.Generate(synth.Default()) })
		if builtinErr != nil {
			return nil, nil, builtinErr
		}
		return builtinGraph, corpus.PaperSplit(builtinGraph), nil
	}}
}

// tinyPlan trains width-16 models for 2 epochs: about a second per run.
func tinyPlan(out string, loads *int, variants ...string) *Plan {
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 16, 2, 2, 32, 24
	opt := train.DefaultOptions()
	opt.Epochs = 2
	vs, err := ParseVariants(strings.Join(variants, ","))
	if err != nil {
		panic(err)
	}
	return &Plan{Out: out, Datasets: []Dataset{builtin(loads)}, Variants: vs, Seeds: []uint64{1, 2},
		Config: cfg, Options: opt, LDAIter: 5, Command: "gtformer experiment --data builtin --seeds 2 --out " + out}
}

func lines(s, substr string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestPlanRunSkipResume runs 2 seeds × 2 variants on the built-in corpus:
// every run writes its outputs and the results are aggregated; a second
// invocation skips everything without loading the data; after deleting one
// run's metrics.json only that run is redone, resuming from its checkpoint
// to the same scores; changed settings are refused.
func TestPlanRunSkipResume(t *testing.T) {
	out := t.TempDir()
	var loads int
	var log bytes.Buffer
	p := tinyPlan(out, &loads, "tree-fixed")
	p.Progress = &log
	res, err := p.Run()
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got := len(lines(log.String(), " done ")); got != 7 || loads != 1 {
		t.Fatalf("first invocation: %d done lines (want 4 runs + baselines + 2 LDA fits), %d loads:\n%s", got, loads, log.String())
	}
	for _, seed := range []uint64{1, 2} {
		rec, err := readLDAFile(LDAPath(out, "builtin", seed))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Seed != seed || rec.Topics != 13 || rec.Iter != 5 || rec.MicroF1 == nil || rec.LinkAUC == nil || rec.NPMI == nil ||
			rec.Diversity == nil || rec.LogPerplexity == nil || rec.LogPerplexityCompletion == nil || len(rec.TopWords) != 13 || rec.Seconds <= 0 {
			t.Errorf("LDA seed %d: %+v", seed, rec)
		}
	}
	for _, v := range []string{"default", "tree-fixed"} {
		for _, seed := range []uint64{1, 2} {
			dir := RunDir(out, "builtin", v, false, seed)
			// The learning curves come with every run; the document map
			// (t-SNE) is left to gtformer train.
			for _, f := range []string{MetricsFile, RunFile, TrainLogFile, "topics.json", "topics.txt", "doc_embeddings.npy", "doc_topics.npy", "weights.safetensors", "curves.png", "curves.svg"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			if !train.HasCheckpoint(filepath.Join(dir, "checkpoint")) {
				t.Errorf("%s: no checkpoint", dir)
			}
			met, err := readMetrics(filepath.Join(dir, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			if met.Variant != v || met.Seed != seed || met.Dataset != "builtin" || met.Test.KNNMicroF1 == nil || met.Epochs != 2 {
				t.Errorf("%s: metrics %+v", dir, met)
			}
		}
	}
	if len(res.Groups) != 1 || len(res.Groups[0].Variants) != 2 || len(res.Groups[0].Baselines) != 3 { // tfidf, tfidf-graph, tfidf-sign (no word vectors)
		t.Fatalf("results %+v", res.Groups)
	}
	for _, v := range res.Groups[0].Variants {
		if s := v.Values["knn_micro_f1"]; s.N != 2 || len(v.Seeds) != 2 {
			t.Errorf("%s: kNN Micro-F1 %+v over seeds %v", v.Name, s, v.Seeds)
		}
	}
	// LDA: a row over both seeds, paired with each variant on both.
	grp := res.Groups[0]
	if grp.LDA == nil || len(grp.LDA.Seeds) != 2 || grp.LDA.Values["npmi"].N != 2 || grp.LDA.Values["knn_micro_f1"].N != 2 || grp.LDATopics != 13 {
		t.Fatalf("LDA row %+v", grp.LDA)
	}
	if len(grp.Paired) != 2 {
		t.Fatalf("paired %+v", grp.Paired)
	}
	for _, pv := range grp.Paired {
		if len(pv.Diffs) != len(PairedMetrics) {
			t.Errorf("%s: paired on %d metrics, want %d: %+v", pv.Variant, len(pv.Diffs), len(PairedMetrics), pv.Diffs)
		}
		for _, d := range pv.Diffs {
			if d.Diff.N != 2 || len(d.Seeds) != 2 || d.Seeds[0] != 1 || d.Seeds[1] != 2 {
				t.Errorf("%s %s: %+v", pv.Variant, d.Metric, d)
			}
		}
	}
	// The tree-fixed variant keeps the initial 1+3+9 topics.
	if s := res.Groups[0].Variants[1].Values["topics"]; s.Mean != 13 || s.Std != 0 {
		t.Errorf("tree-fixed topics %+v, want 13 ± 0", s)
	}
	for _, f := range []string{"results.json", "results.md", "ablation_builtin.png", "ablation_builtin.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	for _, want := range []string{"    " + p.Command, "| gtformer default | ", "| gtformer tree-fixed | ", "| baseline tfidf-graph | ",
		"| LDA (T = 13) | ", "### builtin (unsupervised): topics beside LDA", "Paired by seed, gtformer − LDA (T = 13)", "| tree-fixed | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}

	// Second invocation: everything finished, nothing loaded or trained.
	metPath := filepath.Join(RunDir(out, "builtin", "tree-fixed", false, 2), MetricsFile)
	before, _ := os.ReadFile(metPath)
	log.Reset()
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if got := len(lines(log.String(), " skipped ")); got != 4 || strings.Contains(log.String(), " done") || loads != 1 {
		t.Errorf("second invocation: %d skipped, %d loads:\n%s", got, loads, log.String())
	}

	// A folder from before LDA was part of the experiment (no lda folder)
	// still collects, without LDA rows; a plain rerun fits only LDA.
	ldaBefore, _ := os.ReadFile(LDAPath(out, "builtin", 2))
	if err := os.RemoveAll(filepath.Join(out, "runs", "builtin", LDADir)); err != nil {
		t.Fatal(err)
	}
	old, err := Collect(out)
	if err != nil || old.Groups[0].LDA != nil || old.Groups[0].Paired != nil || len(old.Groups[0].Variants) != 2 {
		t.Fatalf("collecting without LDA: %v %+v", err, old)
	}
	var oldMD bytes.Buffer
	if err := old.WriteMarkdown(&oldMD); err != nil || !strings.Contains(oldMD.String(), "No LDA fits in this folder") || strings.Contains(oldMD.String(), "| LDA") {
		t.Errorf("results.md without LDA (%v):\n%s", err, oldMD.String())
	}
	log.Reset()
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if done := lines(log.String(), " done "); len(done) != 2 || !strings.Contains(done[0], "lda") || len(lines(log.String(), " skipped ")) != 4 || loads != 2 {
		t.Errorf("rerun without LDA: %d loads:\n%s", loads, log.String())
	}
	ldaAfter, _ := os.ReadFile(LDAPath(out, "builtin", 2))
	var b1, b2 LDARecord
	_ = json.Unmarshal(ldaBefore, &b1)
	_ = json.Unmarshal(ldaAfter, &b2)
	b1.Seconds, b2.Seconds = 0, 0
	if j1, j2 := mustJSON(t, b1), mustJSON(t, b2); j1 != j2 {
		t.Errorf("LDA refit differs (same seed, same numbers):\n%s\n%s", j1, j2)
	}

	// Deleting one metrics.json redoes that run only, from its (finished)
	// checkpoint: the same scores.
	if err := os.Remove(metPath); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	done := lines(log.String(), " done")
	if len(done) != 1 || !strings.Contains(done[0], "tree-fixed") || !strings.Contains(done[0], "seed 2") || !strings.Contains(done[0], "resumed after epoch 2") {
		t.Errorf("after deleting one metrics.json:\n%s", log.String())
	}
	if got := len(lines(log.String(), " skipped ")); got != 3 {
		t.Errorf("%d skipped, want 3:\n%s", got, log.String())
	}
	after, _ := os.ReadFile(metPath)
	if scores(t, before) != scores(t, after) {
		t.Errorf("resumed run scores differ:\n%s\n%s", before, after)
	}

	// Other settings in the same folder are refused, naming the change.
	q := tinyPlan(out, &loads, "tree-fixed")
	q.Options.Epochs = 3
	if _, err := q.Run(); err == nil || !strings.Contains(err.Error(), "options.epochs 2, now 3") {
		t.Errorf("changed epochs: %v", err)
	}
	q = tinyPlan(out, &loads, "tree-fixed")
	q.LDAIter = 6
	if _, err := q.Run(); err == nil || !strings.Contains(err.Error(), "fitted with 5 iterations, now 6") {
		t.Errorf("changed LDA iterations: %v", err)
	}
}

// scores is the test block of a metrics.json (train_seconds differ between
// sessions).
func scores(t *testing.T, raw []byte) string {
	var met outputs.Metrics
	if err := json.Unmarshal(raw, &met); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(met.Test)
	return string(b)
}

// TestPlanSupervisedAndFailures trains one supervised run into its own
// folder (and not the same settings again as lambda-topic-1); a supervised
// run on a corpus without labels fails at once, and a dataset does not
// load: the failures are reported, the other run goes on, the results are
// written, and Run returns an error naming each failure.
func TestPlanSupervisedAndFailures(t *testing.T) {
	out := t.TempDir()
	var loads int
	var log bytes.Buffer
	p := tinyPlan(out, &loads, "lambda-topic-1")
	p.Seeds = []uint64{1}
	p.Config.Supervised = true
	p.Progress = &log
	ok := p.Datasets[0]
	p.Datasets = append(p.Datasets, Dataset{Name: "unlabelled", Load: func() (*corpus.Graph, *corpus.Split, error) {
		g, s, err := ok.Load()
		if err != nil {
			return nil, nil, err
		}
		h := *g
		h.Labels = nil
		return &h, s, nil
	}})
	p.Datasets = append(p.Datasets, Dataset{Name: "broken", Load: func() (*corpus.Graph, *corpus.Split, error) {
		return nil, nil, errors.New("contents.txt:3: bad line")
	}})
	res, err := p.Run()
	if err == nil || !strings.Contains(err.Error(), "2 failure(s)") || !strings.Contains(err.Error(), "dataset broken: contents.txt:3: bad line") || !strings.Contains(err.Error(), "unlabelled default seed 1: pipeline: supervised training needs labels") {
		t.Fatalf("error %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "unlabelled default              seed 1  failed") {
		t.Errorf("no failure line:\n%s", log.String())
	}
	// λ_topic is already 1: lambda-topic-1 would repeat default's runs.
	if !strings.Contains(log.String(), "builtin  lambda-topic-1               skipped  same settings as default") {
		t.Errorf("lambda-topic-1 not recognised as default:\n%s", log.String())
	}
	if _, err := os.Stat(RunDir(out, "builtin", "lambda-topic-1", true, 1)); err == nil {
		t.Error("lambda-topic-1 trained")
	}
	dir := RunDir(out, "builtin", "default", true, 1)
	if !strings.HasSuffix(dir, filepath.Join("default-supervised", "seed1")) {
		t.Errorf("supervised run folder %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, MetricsFile)); err != nil {
		t.Fatal(err)
	}
	if res == nil || len(res.Groups) != 1 || !res.Groups[0].Supervised || res.Groups[0].Variants[0].Values["sup_micro_f1"].N != 1 {
		t.Fatalf("results %+v", res)
	}
	if _, err := os.Stat(filepath.Join(out, "results.md")); err != nil {
		t.Error(err)
	}
}

func TestPlanValidate(t *testing.T) {
	var loads int
	for _, c := range []struct {
		name string
		edit func(p *Plan)
		msg  string
	}{
		{"no out", func(p *Plan) { p.Out = "" }, "no output folder"},
		{"no seeds", func(p *Plan) { p.Seeds = nil }, "no seeds"},
		{"repeated seeds", func(p *Plan) { p.Seeds = []uint64{2, 1, 2} }, "seeds [2 1 2] repeat"},
		{"dataset path as name", func(p *Plan) { p.Datasets[0].Name = "a/b" }, `dataset name "a/b"`},
		{"no datasets", func(p *Plan) { p.Datasets = nil }, "no datasets"},
		{"bad width", func(p *Plan) { p.Config.Width = 15 }, "variant default: model: config: heads 2 must divide width 15"},
		{"bad options", func(p *Plan) { p.Options.BatchLinks = 0 }, "batch of 0 links"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := tinyPlan("out", &loads)
			c.edit(p)
			if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Validate: %v, want %q", err, c.msg)
			}
			if _, err := p.Run(); err == nil {
				t.Error("Run ran an invalid plan")
			}
		})
	}
	if err := tinyPlan("out", &loads, "all").Validate(); err != nil {
		t.Errorf("every variant of a valid plan: %v", err)
	}
	if loads != 0 {
		t.Errorf("validation loaded data %d times", loads)
	}
}

// TestCheckSpec: a run folder's run.json must agree with the plan on every
// setting both know; a setting it predates counts as its zero value (so it
// agrees with a plan that leaves it at zero), one removed since does not
// count, nor does the command line.
func TestCheckSpec(t *testing.T) {
	var loads int
	p := tinyPlan("out", &loads)
	v, _ := LookupVariant(DefaultVariant)
	want := p.spec("builtin", v, 1)
	write := func(edit func(m map[string]any)) string {
		dir := t.TempDir()
		raw, _ := json.Marshal(want)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if err := writeJSON(filepath.Join(dir, RunFile), m); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		err  string
	}{
		{"same", func(map[string]any) {}, ""},
		{"other command", func(m map[string]any) { m["command"] = "gtformer experiment --data builtin" }, ""},
		{"predates a setting left at zero", func(m map[string]any) { delete(m["config"].(map[string]any)["tree"].(map[string]any), "fd_radius") }, ""},
		{"predates a setting whose default is not zero", func(m map[string]any) { delete(m["options"].(map[string]any), "warmup") }, "options.warmup absent (made before it, so its zero value), now 100"},
		{"a setting since removed", func(m map[string]any) { m["config"].(map[string]any)["old_knob"] = 3 }, ""},
		{"other width", func(m map[string]any) { m["config"].(map[string]any)["width"] = 32 }, "config.width 32, now 16"},
		{"other tree", func(m map[string]any) { m["config"].(map[string]any)["tree"].(map[string]any)["mode"] = "flat" }, `config.tree.mode "flat", now "grow"`},
		{"unsupervised run", func(m map[string]any) { m["supervised"] = true }, "supervised true, now false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkSpec(write(c.edit), want)
			if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("checkSpec: %v, want %q", err, c.err)
			}
		})
	}
	if err := checkSpec(t.TempDir(), want); err != nil {
		t.Errorf("folder without run.json: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
