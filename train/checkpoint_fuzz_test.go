package train

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
)

// fuzzGeneration writes, without training, a checkpoint generation holding
// every kind of file: the best state and, inside an epoch, the epoch's
// start. It returns the checkpoint directory and the generation's path.
func fuzzGeneration(f *testing.F) (string, string, *corpus.Graph, *corpus.Split) {
	g, s := tinyData(f)
	cfg := tinyConfig(g)
	opt := tinyOptions(2, "cache", 1)
	m, err := model.New(cfg, opt.Seed)
	if err != nil {
		f.Fatal(err)
	}
	tr, err := New(m, g, s, opt, Env{})
	if err != nil {
		f.Fatal(err)
	}
	tr.State.Epoch, tr.State.BestEpoch, tr.State.BestScore = 1, 1, 50
	tr.History = []EpochLog{{Epoch: 1, Graph: 1, Total: 1}}
	tr.best = tr.snapshotParams()
	tr.Model.SeedDropout(opt.Seed, 1)
	st, err := tr.Model.DropoutState()
	if err != nil {
		f.Fatal(err)
	}
	tr.sess.part = &partialEpoch{batches: 2, dropout: st, start: tr.snapshot()}
	dir := filepath.Join(f.TempDir(), "ckpt")
	if err := tr.SaveCheckpoint(dir); err != nil {
		f.Fatal(err)
	}
	return dir, newestGeneration(f, dir), g, s
}

// FuzzParseManifest: manifest.json of any content is a manifest whose file
// names are plain names in the generation, listing the model, optimiser
// and trainer files, or an error naming manifest.json.
func FuzzParseManifest(f *testing.F) {
	_, gen, _, _ := fuzzGeneration(f)
	raw, err := os.ReadFile(filepath.Join(gen, manifestFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:len(raw)/2])
	f.Add(bytes.Replace(raw, []byte(`"config.json"`), []byte(`"../config.json"`), 1))
	f.Add([]byte(`{"format": "gtformer-checkpoint/2", "files": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest("manifest.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "manifest.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, e := range m.Files {
			if e.Name != filepath.Base(e.Name) || e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/') || e.Name == manifestFile {
				t.Fatalf("file name %q leaves the generation", e.Name)
			}
		}
	})
}

// FuzzParseTrainerJSON: trainer.json of any content is a consistent state
// with valid options, or an error naming trainer.json.
func FuzzParseTrainerJSON(f *testing.F) {
	_, gen, _, _ := fuzzGeneration(f)
	raw, err := os.ReadFile(filepath.Join(gen, trainerFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:len(raw)/3])
	f.Add(bytes.Replace(raw, []byte(`"lr_scale": 1`), []byte(`"lr_scale": 0`), 1))
	f.Add(bytes.Replace(raw, []byte(`"batches": 2`), []byte(`"batches": -2`), 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		tj, err := parseTrainerJSON("trainer.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "trainer.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := tj.Options.Validate(); err != nil {
			t.Fatalf("invalid options accepted: %v", err)
		}
		if s := tj.State; s.Epoch < 0 || s.Step < 0 || s.BestEpoch > s.Epoch || !(s.LRScale > 0) {
			t.Fatalf("inconsistent state accepted: %+v", s)
		}
	})
}

// FuzzResumeGeneration replaces one file of a checkpoint generation with
// arbitrary content and rewrites the manifest to match, as if the trainer
// had written it: Resume then returns a trainer or an error naming the
// file, never panics, and never leaves the generation in a state another
// Resume reads differently.
func FuzzResumeGeneration(f *testing.F) {
	dir, gen, g, s := fuzzGeneration(f)
	names := dirNames(f, gen)
	names = slices.DeleteFunc(names, func(n string) bool { return n == manifestFile })
	for i, name := range names {
		raw, err := os.ReadFile(filepath.Join(gen, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), raw)
		f.Add(uint8(i), raw[:len(raw)*2/3])
	}
	f.Fuzz(func(t *testing.T, which uint8, content []byte) {
		name := names[int(which)%len(names)]
		work := filepath.Join(t.TempDir(), "ckpt")
		copyDir(t, dir, work)
		w := filepath.Join(work, filepath.Base(gen))
		if err := os.WriteFile(filepath.Join(w, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		rehash(t, w)
		_, err := Resume(work, g, s, Env{})
		if err == nil {
			return
		}
		if errors.Is(err, ErrNoCheckpoint) {
			t.Fatalf("a generation matching its manifest was treated as damaged: %v", err)
		}
		if !strings.Contains(err.Error(), filepath.Base(gen)) {
			t.Fatalf("error does not name the generation: %v", err)
		}
	})
}
