package model

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

// savedTiny saves a small untrained model with a corpus fingerprint and
// returns its directory.
func savedTiny(t testing.TB) (string, *Model) {
	t.Helper()
	g := tinyGraph(12, 20, 3, 9, true, 4)
	m, err := New(tinyConfig(g), 1)
	if err != nil {
		t.Fatal(err)
	}
	m.IDF = IDF(g, corpus.PaperSplit(g).Train)
	m.Corpus = corpus.NewFingerprint(g, corpus.PaperSplit(g), map[string]string{"split": "paper"}, "tiny")
	dir := t.TempDir()
	if err := m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// TestSaveLoadCorpusFingerprint: the corpus fingerprint goes into
// config.json and comes back with the model.
func TestSaveLoadCorpusFingerprint(t *testing.T) {
	dir, m := savedTiny(t)
	back, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Corpus == nil || back.Corpus.Hash != m.Corpus.Hash || back.Corpus.Check(m.Corpus) != nil || back.Corpus.Source != "tiny" {
		t.Errorf("fingerprint after load: %+v, want %+v", back.Corpus, m.Corpus)
	}
}

// TestLoadRejectsNonFinite: a model whose weights hold a NaN or an infinity
// in any tensor, a parameter or a buffer, does not load, and the error names
// the tensor and the element (such a model used to load and embed NaN rows
// with exit 0).
func TestLoadRejectsNonFinite(t *testing.T) {
	dir, m := savedTiny(t)
	ts, meta, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tensor string
		value  float32
	}{
		{m.Params()[0].Name, float32(math.NaN())},
		{m.Proj.Name, float32(math.Inf(1))},
		{"buffers.idf", float32(math.Inf(-1))},
	} {
		t.Run(tc.tensor, func(t *testing.T) {
			bad := t.TempDir()
			for _, f := range []string{ConfigFile, TreeFile} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(bad, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			x := ts[tc.tensor]
			if x == nil {
				t.Fatalf("no tensor %q", tc.tensor)
			}
			keep := x.Data[len(x.Data)-1]
			x.Data[len(x.Data)-1] = tc.value
			var list []*tensor.Tensor
			for _, v := range ts {
				list = append(list, v)
			}
			err := safetensors.WriteFile(filepath.Join(bad, WeightsFile), list, meta)
			x.Data[len(x.Data)-1] = keep
			if err != nil {
				t.Fatal(err)
			}
			rehashWeights(t, bad) // a model saved so: the hashes agree, the values do not

			_, _, err = Load(bad)
			want := `tensor "` + tc.tensor + `" holds`
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), WeightsFile) {
				t.Errorf("Load: %v, want an error naming %s and %q", err, WeightsFile, want)
			}
		})
	}
}

// TestDropoutStateRoundTrip: the dropout source's position survives a
// DropoutState/SetDropoutState round trip: the masks drawn after it are the
// ones drawn without it.
func TestDropoutStateRoundTrip(t *testing.T) {
	_, m := savedTiny(t)
	m.SeedDropout(3, 2)
	m.rng.Uint64()
	st, err := m.DropoutState()
	if err != nil {
		t.Fatal(err)
	}
	want := m.rng.Uint64()
	m.SeedDropout(9, 9)
	if err := m.SetDropoutState(st); err != nil {
		t.Fatal(err)
	}
	if got := m.rng.Uint64(); got != want {
		t.Errorf("after restoring the state: %d, want %d", got, want)
	}
	if err := m.SetDropoutState([]byte("junk")); err == nil {
		t.Error("junk dropout state accepted")
	}
}

// FuzzParseConfig: config.json of any content is either a valid
// configuration (one a model can be built from) or an error naming the
// file; never a panic.
func FuzzParseConfig(f *testing.F) {
	dir, _ := savedTiny(f)
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"format": "gtformer-model/1", "seed": 1, "model": {"width": 4}}`))
	f.Add([]byte(`{"format": "gtformer-model/9"}`))
	f.Add([]byte(`{"format": "gtformer-model/1", "model": {}, "corpus": {"hash": 3}}`))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`{"format": "gtformer-model/1", "model": {}, "files": {"edits.json": "ab"}, "replacing": {"edits.json": ""}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := ParseConfig("config.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "model: config.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		c := sc.Config
		// A small enough valid configuration must build.
		if c.Width <= 64 && c.Layers <= 4 && c.MLPHidden <= 256 && c.MaxLen <= 256 && c.Vocab <= 1000 &&
			c.NumLabels <= 100 && c.SupHidden <= 256 && c.FeatureDim <= 64 && c.Tree.InitDepth <= 4 && c.Tree.Branching <= 4 {
			if _, err := New(c, sc.Seed); err != nil {
				t.Fatalf("a configuration ParseConfig accepted does not build: %v", err)
			}
		}
	})
}

// rehashWeights records the current weights' SHA-256 in dir's config.json,
// as Save would have for those weights.
func rehashWeights(t testing.TB, dir string) {
	t.Helper()
	path := filepath.Join(dir, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc SavedConfig
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	sum, err := SavedWeightsSHA256(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc.Files[WeightsFile] = sum
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
