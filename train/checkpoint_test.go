package train

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
)

// copyDir copies the regular files of src into a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckpointFiles: a checkpoint written after every epoch holds exactly
// the model's files, the optimiser state, the best state and trainer.json
// (no temporary files left behind), and Resume refuses a checkpoint whose
// trainer.json is missing, truncated or of another format, or whose weights
// or optimiser state are missing, with an error naming the file.
func TestCheckpointFiles(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	opt := tinyOptions(1, "cache", 2)
	opt.Checkpoint = filepath.Join(t.TempDir(), "ckpt")
	tr := newTrainer(t, g, s, cfg, opt)
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	// Saving again over an existing checkpoint must not leave temporaries
	// either.
	if err := tr.SaveCheckpoint(opt.Checkpoint); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(opt.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	want := []string{bestFile, bestTreeFile, model.ConfigFile, optimizerFile, trainerFile, model.TreeFile, model.WeightsFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("checkpoint directory holds %v, want exactly %v", names, want)
	}
	if _, err := Resume(opt.Checkpoint, g, s, Options{}); err != nil {
		t.Fatalf("intact checkpoint: %v", err)
	}

	raw, err := os.ReadFile(filepath.Join(opt.Checkpoint, trainerFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func(dir string) error
		want   []string // substrings of the error
	}{
		{"no trainer.json", func(dir string) error { return os.Remove(filepath.Join(dir, trainerFile)) },
			[]string{trainerFile, "complete checkpoint"}},
		{"truncated trainer.json", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, trainerFile), raw[:len(raw)/2], 0o644)
		}, []string{trainerFile, "unexpected EOF"}},
		{"empty trainer.json", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, trainerFile), nil, 0o644)
		}, []string{trainerFile, "EOF"}},
		{"other format", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, trainerFile), []byte(strings.Replace(string(raw), "gtformer-trainer/1", "gtformer-trainer/9", 1)), 0o644)
		}, []string{trainerFile, `unknown format "gtformer-trainer/9"`}},
		{"unknown field", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, trainerFile), []byte(strings.Replace(string(raw), `"format"`, `"formatt": 1, "format"`, 1)), 0o644)
		}, []string{trainerFile, "formatt"}},
		{"no weights", func(dir string) error { return os.Remove(filepath.Join(dir, model.WeightsFile)) },
			[]string{model.WeightsFile}},
		{"no optimiser state", func(dir string) error { return os.Remove(filepath.Join(dir, optimizerFile)) },
			[]string{optimizerFile}},
		{"no best state", func(dir string) error { return os.Remove(filepath.Join(dir, bestFile)) },
			[]string{bestFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ckpt")
			copyDir(t, opt.Checkpoint, dir)
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Resume(dir, g, s, Options{})
			if err == nil {
				t.Fatal("Resume accepted a damaged checkpoint")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

// TestOptionsValidate names each bad option.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Options)
		want   string // "" for valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"stop after", func(o *Options) { o.StopAfter = 2 }, ""},
		{"epochs", func(o *Options) { o.Epochs = 0 }, "epochs 0"},
		{"negative stop after", func(o *Options) { o.StopAfter = -1 }, "stop after -1"},
		{"batch", func(o *Options) { o.BatchLinks = 0 }, "batch of 0 links"},
		{"lr floor above peak", func(o *Options) { o.LRFloor = 1 }, "learning rates"},
		{"zero lr", func(o *Options) { o.LR = 0 }, "learning rates"},
		{"warm-up", func(o *Options) { o.Warmup = -1 }, "warm-up -1"},
		{"clip", func(o *Options) { o.Clip = -1 }, "clip"},
		{"nesting", func(o *Options) { o.Nesting = "partial" }, `nesting "partial"`},
		{"topic init", func(o *Options) { o.TopicInit = "lda" }, `topic init "lda"`},
		{"paper's topic init", func(o *Options) { o.TopicInit = "random" }, ""},
		{"no topic warm-up", func(o *Options) { o.TopicWarmup, o.TopicWarmupLR = 0, 0 }, ""},
		{"topic warm-up steps", func(o *Options) { o.TopicWarmup = -1 }, "topic warm-up of -1 steps"},
		{"topic warm-up rate", func(o *Options) { o.TopicWarmupLR = 0 }, "needs a positive learning rate"},
		{"topic warm-up rate NaN", func(o *Options) { o.TopicWarmupLR = math.NaN() }, "learning rate NaN"},
		{"topic refit", func(o *Options) { o.TopicRefit = -1 }, "topic refit epoch -1"},
		{"similarity tracking", func(o *Options) { o.SimilarityTrack = 1.5 }, "tracking rate 1.5"},
		{"valid every", func(o *Options) { o.ValidEvery = 0 }, "intervals"},
		{"embed batch", func(o *Options) { o.EmbedBatch = 0 }, "inference batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.mutate(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid options rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestOtherCorpusRejected: resuming a checkpoint on a corpus with another
// vocabulary, or training a supervised model on a corpus without its labels,
// is an error naming the mismatch (it used to index past the model's
// tables and panic).
func TestOtherCorpusRejected(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	opt := tinyOptions(1, "cache", 2)
	opt.Checkpoint = filepath.Join(t.TempDir(), "ckpt")
	if err := newTrainer(t, g, s, cfg, opt).Run(); err != nil {
		t.Fatal(err)
	}
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.Links, sc.MeanLength = 120, 200, 240, 20
	other, _, err := synth.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resume(opt.Checkpoint, other, corpus.PaperSplit(other), Options{})
	if err == nil || !strings.Contains(err.Error(), "vocabulary of 150 words and the corpus 200") {
		t.Errorf("resume on another vocabulary: got %v", err)
	}

	sup := cfg
	sup.Supervised = true
	m, err := model.New(sup, 1)
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := *g
	unlabelled.Labels, unlabelled.LabelNames = nil, nil
	_, err = New(m, &unlabelled, s, opt)
	if err == nil || !strings.Contains(err.Error(), "supervised model has 3 labels and the corpus 0") {
		t.Errorf("supervised model on an unlabelled corpus: got %v", err)
	}

	twoHops := cfg
	twoHops.Hops, twoHops.Layers = 2, 3
	if m, err = model.New(twoHops, 1); err != nil {
		t.Fatal(err)
	}
	_, err = New(m, g, s, tinyOptions(1, "full", 2))
	if err == nil || !strings.Contains(err.Error(), "2 hops need the cache nesting") {
		t.Errorf("two hops with full nesting: got %v", err)
	}
}
