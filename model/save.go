package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/internal/atomicfile"
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

// savedConfig is config.json: the architecture and the seed that built it.
type savedConfig struct {
	Format string `json:"format"` // "gtformer-model/1"
	Seed   uint64 `json:"seed"`
	Config Config `json:"model"`
}

// Save writes config.json, tree.json and weights.safetensors into dir, each
// atomically, so an interrupted save leaves the previous files intact.
func (m *Model) Save(dir string, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, ConfigFile), savedConfig{Format: "gtformer-model/1", Seed: seed, Config: m.Cfg}); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, TreeFile), m.Topics.Tree.WriteJSON); err != nil {
		return fmt.Errorf("save model: %w", err)
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
	meta := map[string]string{"format": "gtformer-weights/1", "geometry": m.Cfg.Geometry}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), ts, meta); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load rebuilds a model saved by Save: the configuration, the tree and every
// parameter by name. A missing or misshapen tensor is an error naming it.
func Load(dir string) (*Model, uint64, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, 0, fmt.Errorf("load model: %w", err)
	}
	var sc savedConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, 0, fmt.Errorf("load model: %s: %w", filepath.Join(dir, ConfigFile), err)
	}
	if sc.Format != "gtformer-model/1" {
		return nil, 0, fmt.Errorf("load model: %s: unknown format %q", filepath.Join(dir, ConfigFile), sc.Format)
	}
	m, err := New(sc.Config, sc.Seed)
	if err != nil {
		return nil, 0, fmt.Errorf("load model: %s: %w", filepath.Join(dir, ConfigFile), err)
	}
	tree, err := topictree.ReadFile(filepath.Join(dir, TreeFile))
	if err != nil {
		return nil, 0, fmt.Errorf("load model: %w", err)
	}
	m.SetTree(tree)
	if err := m.LoadWeights(filepath.Join(dir, WeightsFile)); err != nil {
		return nil, 0, err
	}
	return m, sc.Seed, nil
}

// LoadWeights reads every parameter (and the idf buffer) from a safetensors
// file written by Save.
func (m *Model) LoadWeights(path string) error {
	ts, _, err := safetensors.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	var errs []error
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
		return fmt.Errorf("load model: %s: %w", path, err)
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
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SavedWeightsSHA256 returns WeightsSHA256 of the weights saved in dir.
func SavedWeightsSHA256(dir string) (string, error) {
	path := filepath.Join(dir, WeightsFile)
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, err := WeightsSHA256(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return sum, nil
}
