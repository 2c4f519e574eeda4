package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/filehash"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// Files of a saved model directory.
const (
	ConfigFile  = "config.json"
	TreeFile    = "tree.json"
	WeightsFile = "weights.safetensors"
)

// SavedConfig is config.json: the architecture, the seed that built it,
// and the fingerprint of the corpus the model was trained on (absent in
// models saved before fingerprints, and for a model never trained).
type SavedConfig struct {
	Format string              `json:"format"` // "gtformer-model/1"
	Seed   uint64              `json:"seed"`
	Config Config              `json:"model"`
	Corpus *corpus.Fingerprint `json:"corpus,omitempty"`
	// Files is the hex SHA-256 of every other file the model needs
	// (TreeFile, WeightsFile, and edits.File when the model has an edit
	// log), checked by Load; nil in models saved before it, which Load
	// reads unchecked.
	Files map[string]string `json:"files,omitempty"`
	// Replacing maps a file that an in-place save (SaveEdits) is
	// replacing to the SHA-256 it had before ("" when it was absent),
	// which Load accepts as well as the one in Files: a save cut short
	// leaves the model as it was or as it was to become. nil: no save
	// under way.
	Replacing map[string]string `json:"replacing,omitempty"`
}

// Save writes config.json, tree.json and weights.safetensors into dir, each
// atomically, so an interrupted save leaves the previous files intact.
func (m *Model) Save(dir string, seed uint64) error {
	if m.Cfg.Tree.Background && m.Topics.Background == nil {
		// Load would refuse the files: a model is saved whole or not at all.
		return errors.New("model: save: the configuration has a decoder background but the model holds none (Model.Prepare or the trainer sets it)")
	}
	if m.Topics.Mix != nil && m.Topics.Unigram == nil {
		return errors.New("model: save: the configuration has a background mixture but the model holds no unigram distribution (Model.Prepare or the trainer sets it)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, TreeFile), m.Topics.Tree.WriteJSON); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	ts := m.Params()
	if m.IDF != nil {
		ts = append(ts, &tensor.Tensor{Name: "buffers.idf", Shape: []int{len(m.IDF)}, Data: m.IDF})
	}
	if m.LSA != nil {
		ts = append(ts, &tensor.Tensor{Name: "buffers.lsa", Shape: []int{m.LSA.V, m.LSA.Dim}, Data: m.LSA.R})
	}
	if bg := m.Topics.Background; bg != nil {
		ts = append(ts, &tensor.Tensor{Name: "buffers.background", Shape: []int{len(bg)}, Data: bg})
	}
	if u := m.Topics.Unigram; m.Topics.Mix != nil {
		ts = append(ts, &tensor.Tensor{Name: "buffers.unigram", Shape: []int{len(u)}, Data: u})
	}
	meta := map[string]string{"format": "gtformer-weights/1", "geometry": string(m.Cfg.Geometry)}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), ts, meta); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	names := []string{TreeFile, WeightsFile}
	if m.Edits.Len() > 0 {
		if err := edits.Write(dir, m.Edits); err != nil {
			return fmt.Errorf("model: save: %w", err)
		}
		names = append(names, edits.File)
	}
	// config.json last, with the hashes of the files just written: a save
	// cut short leaves a config.json whose hashes name the earlier files,
	// which Load then refuses rather than mixing two models.
	files, err := hashFiles(dir, names)
	if err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	sc := SavedConfig{Format: "gtformer-model/1", Seed: seed, Config: m.Cfg, Corpus: m.Corpus, Files: files}
	if err := atomicfile.WriteJSON(filepath.Join(dir, ConfigFile), sc); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	return nil
}

// hashFiles returns the hex SHA-256 of each named file of dir.
func hashFiles(dir string, names []string) (map[string]string, error) {
	files := map[string]string{}
	for _, name := range names {
		_, sum, err := filehash.SHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		files[name] = sum
	}
	return files, nil
}

// ParseConfig reads config.json (name is its path, for messages): one JSON
// object of the known fields, in a known format, whose configuration is
// valid.
//
// A setting that earlier builds had and this one does not (removedConfig)
// is read away when it was off; a model trained with it on is refused.
func ParseConfig(name string, raw []byte) (*SavedConfig, error) {
	raw, on, err := StripRemoved(name, raw, removedConfig)
	if err != nil {
		return nil, err
	}
	if on != "" {
		return nil, fmt.Errorf("model: %s: the model was trained with %s, which this build no longer has; use the build that wrote it", name, on)
	}
	var sc SavedConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("model: %s: more than one JSON value", name)
	}
	if sc.Format != "gtformer-model/1" {
		return nil, fmt.Errorf("model: %s: unknown format %q", name, sc.Format)
	}
	c := sc.Config
	if c.InitScale == 0 {
		c.InitScale = 1 // what New fills in; Validate wants it finite
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return &sc, nil
}

// Load rebuilds a model saved by Save: the configuration, the tree and every
// parameter by name. A missing or misshapen tensor, or one that holds a NaN
// or an infinity, is an error naming it.
func Load(dir string) (*Model, uint64, error) {
	path := filepath.Join(dir, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("model: load: %w", err)
	}
	sc, err := ParseConfig(path, raw)
	if err != nil {
		return nil, 0, err
	}
	if _, err := verifyFiles(dir, sc); err != nil {
		return nil, 0, err
	}
	m, err := newModel(sc.Config, sc.Seed)
	if err != nil {
		return nil, 0, fmt.Errorf("model: load %s: %w", path, err)
	}
	m.Corpus = sc.Corpus
	tree, err := topictree.ReadFile(filepath.Join(dir, TreeFile))
	if err != nil {
		return nil, 0, fmt.Errorf("model: load: %w", err)
	}
	m.SetTree(tree)
	if err := m.LoadWeights(filepath.Join(dir, WeightsFile)); err != nil {
		return nil, 0, err
	}
	// The log is the model's only when config.json names it: a file of
	// its name left beside a model saved without one is not read.
	if _, ok := sc.Files[edits.File]; ok {
		if m.Edits, err = edits.Read(dir); err != nil {
			return nil, 0, fmt.Errorf("model: load: %w", err)
		}
	}
	return m, sc.Seed, nil
}

// LoadWeights reads every parameter (and the idf buffer) from a safetensors
// file written by Save. Every tensor must be finite: a NaN in the weights
// would otherwise come out as NaN embeddings with no error.
func (m *Model) LoadWeights(path string) error {
	ts, _, err := safetensors.ReadFile(path)
	if err != nil {
		return fmt.Errorf("model: load: %w", err)
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(ts)) {
		if err := nonFinite(ts[name]); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range m.Params() {
		t, ok := ts[p.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("tensor %q missing", p.Name))
		case !tensor.SameShape(t, p):
			errs = append(errs, fmt.Errorf("tensor %q has shape %v, want %v", p.Name, t.Shape, p.Shape))
		default:
			copy(p.Data, t.Data)
		}
	}
	if t, ok := ts["buffers.idf"]; ok {
		m.IDF = append([]float32(nil), t.Data...)
	}
	if m.Cfg.Tree.Background {
		t, ok := ts["buffers.background"]
		switch {
		case !ok:
			errs = append(errs, errors.New(`tensor "buffers.background" (the decoder's background) missing`))
		case len(t.Data) != m.Cfg.Vocab:
			errs = append(errs, fmt.Errorf(`tensor "buffers.background" has %d values, want %d`, len(t.Data), m.Cfg.Vocab))
		default:
			m.Topics.Background = append([]float32(nil), t.Data...)
		}
	}
	if m.Topics.Mix != nil {
		t, ok := ts["buffers.unigram"]
		switch {
		case !ok:
			errs = append(errs, errors.New(`tensor "buffers.unigram" (the background mixture's unigram distribution) missing`))
		case len(t.Data) != m.Cfg.Vocab:
			errs = append(errs, fmt.Errorf(`tensor "buffers.unigram" has %d values, want %d`, len(t.Data), m.Cfg.Vocab))
		default:
			m.Topics.Unigram = append([]float32(nil), t.Data...)
		}
	}
	if m.Cfg.FeatureHops > 0 {
		t, ok := ts["buffers.lsa"]
		switch {
		case !ok:
			errs = append(errs, errors.New(`tensor "buffers.lsa" (the hop features' basis) missing`))
		case len(t.Shape) != 2 || t.Shape[0] != m.Cfg.Vocab || t.Shape[1] != m.Cfg.HopDim():
			errs = append(errs, fmt.Errorf(`tensor "buffers.lsa" has shape %v, want [%d %d]`, t.Shape, m.Cfg.Vocab, m.Cfg.HopDim()))
		default:
			m.LSA = &features.Basis{V: t.Shape[0], Dim: t.Shape[1], R: append([]float32(nil), t.Data...)}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("model: load %s: %w", path, err)
	}
	return nil
}

// CheckFinite reports the first NaN or infinity in t, naming the tensor and
// the element.
func CheckFinite(t *tensor.Tensor) error {
	if err := nonFinite(t); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// nonFinite is CheckFinite without the package's prefix, for this
// package's own messages.
func nonFinite(t *tensor.Tensor) error {
	for i, v := range t.Data {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("tensor %q holds %v at element %d of %d (shape %v): not a usable model", t.Name, v, i, len(t.Data), t.Shape)
		}
	}
	return nil
}

// SetTree replaces the topic tree (after loading, or when resuming).
func (m *Model) SetTree(t *topictree.Tree) {
	m.Topics.Tree = t
	m.Topics.refresh()
}

// WeightsSHA256 returns the hex SHA-256 of weights read from r (a
// WeightsFile's content): what ties files derived from a model, such as
// its corpus states or an explorer index, to the weights they came from.
func WeightsSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("model: weights: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SavedWeightsSHA256 returns WeightsSHA256 of the weights saved in dir.
func SavedWeightsSHA256(dir string) (string, error) {
	_, sum, err := filehash.SHA256(filepath.Join(dir, WeightsFile))
	if err != nil {
		return "", fmt.Errorf("model: weights: %w", err)
	}
	return sum, nil
}
