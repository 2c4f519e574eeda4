package train

import (
	"bytes"
	"encoding/json"
	"errors"
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

// copyDir copies the regular files and directories of src into a new
// directory dst.
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
		if f.IsDir() {
			copyDir(t, filepath.Join(src, f.Name()), filepath.Join(dst, f.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rehash rewrites a generation's manifest for the files it now holds, as
// if the damage had been written by the trainer itself.
func rehash(t *testing.T, gen string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(gen, manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseManifest("manifest", raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.Files, err = hashFiles(gen); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gen, manifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointFiles: every checkpoint is a generation directory holding
// exactly the model's files, the optimiser state, the best state,
// trainer.json and manifest.json; a new one keeps the previous one and
// removes the rest (no temporary directory is left). Resume refuses a
// generation that does not match its manifest (a file missing, changed or
// added), naming the file, and falls back to the previous generation,
// saying so in the log; with no usable generation it lists each and why.
// A generation that matches its manifest but holds bad content is an error
// naming the file, with no fallback.
func TestCheckpointFiles(t *testing.T) {
	g, s := tinyData(t)
	cfg := tinyConfig(g)
	opt := tinyOptions(1, "cache", 2)
	var env Env
	env.Checkpoint = filepath.Join(t.TempDir(), "ckpt")
	tr := newTrainer(t, g, s, cfg, opt, env)
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	// A leftover of a stopped write is removed by the next write.
	if err := os.Mkdir(filepath.Join(env.Checkpoint, ".000009.tmp-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := tr.SaveCheckpoint(env.Checkpoint); err != nil {
			t.Fatal(err)
		}
	}
	if names, want := dirNames(t, env.Checkpoint), []string{"000002.epoch-1", "000003.epoch-1"}; !slices.Equal(names, want) {
		t.Errorf("checkpoint directory holds %v, want %v", names, want)
	}
	newest := newestGeneration(t, env.Checkpoint)
	want := []string{bestFile, bestTreeFile, model.ConfigFile, manifestFile, optimizerFile, trainerFile, model.TreeFile, model.WeightsFile}
	slices.Sort(want)
	if names := dirNames(t, newest); !slices.Equal(names, want) {
		t.Errorf("generation holds %v, want exactly %v", names, want)
	}
	if _, err := Resume(env.Checkpoint, g, s, Env{}); err != nil {
		t.Fatalf("intact checkpoint: %v", err)
	}

	raw, err := os.ReadFile(filepath.Join(newest, trainerFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func(gen string) error
		rehash bool     // damage written as the trainer would (the manifest matches)
		want   []string // substrings of the error
	}{
		{"no trainer.json", func(gen string) error { return os.Remove(filepath.Join(gen, trainerFile)) }, false,
			[]string{trainerFile, "no such file"}},
		{"truncated trainer.json", func(gen string) error {
			return os.WriteFile(filepath.Join(gen, trainerFile), raw[:len(raw)/2], 0o644)
		}, false, []string{trainerFile, "the manifest says"}},
		{"no manifest", func(gen string) error { return os.Remove(filepath.Join(gen, manifestFile)) }, false,
			[]string{manifestFile}},
		{"truncated manifest", func(gen string) error {
			return os.WriteFile(filepath.Join(gen, manifestFile), []byte(`{"format": "gtformer-che`), 0o644)
		}, false,
			[]string{manifestFile, "unexpected EOF"}},
		{"no weights", func(gen string) error { return os.Remove(filepath.Join(gen, model.WeightsFile)) }, false,
			[]string{model.WeightsFile}},
		{"no optimiser state", func(gen string) error { return os.Remove(filepath.Join(gen, optimizerFile)) }, false,
			[]string{optimizerFile}},
		{"no best state", func(gen string) error { return os.Remove(filepath.Join(gen, bestFile)) }, false,
			[]string{bestFile}},
		{"a file added", func(gen string) error { return os.WriteFile(filepath.Join(gen, "extra.json"), nil, 0o644) }, false,
			[]string{"extra.json", "not in the manifest"}},
		{"other trainer format", func(gen string) error {
			return os.WriteFile(filepath.Join(gen, trainerFile), []byte(strings.Replace(string(raw), trainerFormat, "gtformer-trainer/9", 1)), 0o644)
		}, true, []string{trainerFile, `unknown format "gtformer-trainer/9"`}},
		{"unknown field", func(gen string) error {
			return os.WriteFile(filepath.Join(gen, trainerFile), []byte(strings.Replace(string(raw), `"format"`, `"formatt": 1, "format"`, 1)), 0o644)
		}, true, []string{trainerFile, "formatt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Alone, the damaged generation cannot be used.
			dir := filepath.Join(t.TempDir(), "ckpt")
			gen := filepath.Join(dir, filepath.Base(newest))
			copyDir(t, newest, gen)
			if err := tc.damage(gen); err != nil {
				t.Fatal(err)
			}
			if tc.rehash {
				rehash(t, gen)
			}
			_, err := Resume(dir, g, s, Env{})
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
			// Beside the previous generation, a damaged newest one is passed
			// over with a line in the log; damage written as the trainer
			// would is not, since the previous generation is no remedy.
			both := filepath.Join(t.TempDir(), "ckpt")
			copyDir(t, env.Checkpoint, both)
			if err := tc.damage(filepath.Join(both, filepath.Base(newest))); err != nil {
				t.Fatal(err)
			}
			if tc.rehash {
				rehash(t, filepath.Join(both, filepath.Base(newest)))
			}
			var log bytes.Buffer
			back, err := Resume(both, g, s, Env{Log: &log})
			if tc.rehash {
				if err == nil {
					t.Error("Resume fell back past a generation that matches its manifest")
				}
				return
			}
			if err != nil {
				t.Fatalf("no fallback to the previous generation: %v", err)
			}
			if back.sess.generation != "000002.epoch-1" || !strings.Contains(log.String(), "000003.epoch-1") || !strings.Contains(log.String(), "is damaged and not used") {
				t.Errorf("resumed from %s; log:\n%s", back.sess.generation, log.String())
			}
		})
	}
}

// TestResumeWithoutCheckpoint: a directory with nothing to resume says
// exactly why: none at all, only the first generation's interrupted write,
// or the flat layout of older versions.
func TestResumeWithoutCheckpoint(t *testing.T) {
	g, s := tinyData(t)
	for _, tc := range []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"missing directory", func(dir string) error { return os.Remove(dir) }, "does not exist: no run wrote a checkpoint there"},
		{"empty directory", func(string) error { return nil }, "holds no checkpoint: one is written after every epoch"},
		{"only an interrupted write", func(dir string) error { return os.Mkdir(filepath.Join(dir, ".000001.tmp-42"), 0o755) },
			"the run stopped while writing its first checkpoint (.000001.tmp-42 is incomplete and never used)"},
		{"older layout", func(dir string) error { return os.WriteFile(filepath.Join(dir, trainerFile), []byte("{}"), 0o644) },
			"in the layout of older versions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Resume(dir, g, s, Env{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrNoCheckpoint) {
				t.Errorf("Resume: %v, want ErrNoCheckpoint saying %q", err, tc.want)
			}
			if HasCheckpoint(dir) {
				t.Error("HasCheckpoint is true")
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
		{"epochs", func(o *Options) { o.Epochs = 0 }, "epochs 0"},
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
		// Infinite rates used to pass and panic in the optimiser.
		{"infinite lr", func(o *Options) { o.LR = math.Inf(1) }, "learning rate +Inf is not a finite number"},
		{"infinite weight decay", func(o *Options) { o.WeightDecay = math.Inf(1) }, "weight decay +Inf is not a finite number"},
		{"NaN lr floor", func(o *Options) { o.LRFloor = math.NaN() }, "final learning rate NaN is not a finite number"},
		{"infinite clip", func(o *Options) { o.Clip = math.Inf(1) }, "clip +Inf is not a finite number"},
		{"NaN decoder scale", func(o *Options) { o.DecoderLRScale = math.NaN() }, "decoder learning-rate scale NaN is not a finite number"},
		{"background mixture at the end", func(o *Options) { o.BackgroundMixAtEnd = 0.4 }, ""},
		{"background mixture at the end of 1", func(o *Options) { o.BackgroundMixAtEnd = 1 }, "background mixture at the end 1 outside [0, 1)"},
		{"background mixture at the end without a refit", func(o *Options) { o.BackgroundMixAtEnd, o.DecoderRefit = 0.4, 0 }, ""},
		{"background mixture at the end of the best state", func(o *Options) { o.BackgroundMixAtEnd, o.Select = 0.4, "best" }, ""},
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
	var env Env
	env.Checkpoint = filepath.Join(t.TempDir(), "ckpt")
	if err := newTrainer(t, g, s, cfg, opt, env).Run(); err != nil {
		t.Fatal(err)
	}
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.Links, sc.MeanLength = 120, 200, 240, 20
	other, _, err := synth.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resume(env.Checkpoint, other, corpus.PaperSplit(other), Env{})
	var mismatch *corpus.MismatchError
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "vocabulary: 150 words, here 200") || !strings.Contains(err.Error(), "documents: 200 documents, here 120") {
		t.Errorf("resume on another corpus: got %v", err)
	}
	// The same documents split otherwise are another corpus too (the
	// split is part of what the model was trained on).
	_, err = Resume(env.Checkpoint, g, corpus.RandomSplit(g, 5), Env{})
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "split: as many training/validation/test documents (160/16/40), but other ones") {
		t.Errorf("resume with another split: got %v", err)
	}
	// A model trains only on the vocabulary it was built for.
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(m, other, corpus.PaperSplit(other), opt, env); err == nil || !strings.Contains(err.Error(), "vocabulary of 150 words and the corpus 200") {
		t.Errorf("new trainer on another vocabulary: got %v", err)
	}

	sup := cfg
	sup.Supervised = true
	m, err = model.New(sup, 1)
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := *g
	unlabelled.Labels, unlabelled.LabelNames = nil, nil
	_, err = New(m, &unlabelled, s, opt, env)
	if err == nil || !strings.Contains(err.Error(), "supervised model has 3 labels and the corpus 0") {
		t.Errorf("supervised model on an unlabelled corpus: got %v", err)
	}

	twoHops := cfg
	twoHops.Hops, twoHops.Layers = 2, 3
	if m, err = model.New(twoHops, 1); err != nil {
		t.Fatal(err)
	}
	_, err = New(m, g, s, tinyOptions(1, "full", 2), Env{})
	if err == nil || !strings.Contains(err.Error(), "2 hops need the cache nesting") {
		t.Errorf("two hops with full nesting: got %v", err)
	}
}

// TestGrowsAfter: the epochs after which a growing tree is updated.
func TestGrowsAfter(t *testing.T) {
	for _, c := range []struct {
		every, epochs int
		want          []int
	}{
		{2, 6, []int{2, 4}},
		{1, 4, []int{1, 2, 3}},
		{3, 6, []int{3}},
		{2, 2, nil},
	} {
		o := Options{GrowEvery: c.every, Epochs: c.epochs}
		var got []int
		for e := 1; e <= c.epochs; e++ {
			if o.growsAfter(e) {
				got = append(got, e)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("every %d of %d epochs: grows after %v, want %v", c.every, c.epochs, got, c.want)
		}
	}
}
