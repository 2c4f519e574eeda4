package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/faultpoint"
	"github.com/gtformer/gtformer/internal/filehash"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

// A checkpoint is one unit. The checkpoint directory (Env.Checkpoint)
// holds generations, each a directory written in full under a temporary
// name and switched in by one rename:
//
//	DIR/000007.epoch-3/            written after epoch 3
//	DIR/000008.epoch-4.step-412/   written inside epoch 4, after step 412 (an interrupt)
//	DIR/.000009.tmp-123456/        being written; never read, removed by the next write
//
// A generation holds the model (config.json, tree.json,
// weights.safetensors), optimizer.safetensors, the best state so far
// (best.safetensors, best_tree.json), inside an epoch the state at the
// epoch's start (start.safetensors, start_tree.json), trainer.json, and
// last manifest.json: every other file's size and SHA-256, checked before a
// generation is used. The previous generation is removed only after the new
// one is complete, and one earlier generation is kept as a fallback: a
// resume that finds the newest damaged uses the one before and says so.
const (
	optimizerFile = "optimizer.safetensors"
	bestFile      = "best.safetensors"
	bestTreeFile  = "best_tree.json"
	startFile     = "start.safetensors"
	startTreeFile = "start_tree.json"
	trainerFile   = "trainer.json"
	manifestFile  = "manifest.json"

	// Metadata keys of a saved snapshot: σ's radius and temperature, and
	// (the epoch start) the optimiser's step count and the trainer's.
	metaRadius  = "fd_radius"
	metaTemp    = "fd_temp"
	metaOptStep = "optim_step"
	metaStep    = "trainer_step"

	trainerFormat    = "gtformer-trainer/2"
	checkpointFormat = "gtformer-checkpoint/2"
)

type trainerJSON struct {
	Format  string  `json:"format"` // trainerFormat
	Options Options `json:"options"`
	// Start is Trainer.Start; nil in checkpoints of builds before it
	// (the model's configuration then stands for it).
	Start   *model.Config `json:"start,omitempty"`
	State   State         `json:"state"`
	History []EpochLog    `json:"history"`
	// InEpoch is where a checkpoint written inside an epoch stands in it.
	InEpoch *inEpochJSON `json:"in_epoch,omitempty"`
}

// inEpochJSON is partialEpoch as saved (its start snapshot is saved in
// start.safetensors and start_tree.json).
type inEpochJSON struct {
	Batches int     `json:"batches"` // steps of the epoch done
	Graph   float64 `json:"graph_loss_sum"`
	Topic   float64 `json:"topic_loss_sum"`
	Level   float64 `json:"level_loss_sum"`
	Branch  float64 `json:"branch_loss_sum,omitempty"`
	Div     float64 `json:"div_loss_sum,omitempty"`
	Sup     float64 `json:"sup_loss_sum"`
	Total   float64 `json:"total_loss_sum"`
	Docs    int     `json:"docs"`
	Seconds float64 `json:"seconds"`
	Dropout []byte  `json:"dropout"` // the dropout source's state
}

// manifest is manifest.json.
type manifest struct {
	Format  string      `json:"format"` // checkpointFormat
	Epoch   int         `json:"epoch"`  // epochs completed
	Step    int64       `json:"step"`   // optimiser steps taken
	InEpoch bool        `json:"in_epoch,omitempty"`
	Files   []fileEntry `json:"files"`
}

type fileEntry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// partialEpoch is an epoch stopped after some of its steps: the loss sums
// so far, the dropout source's position, and the state at the epoch's start
// (for the neighbour cache, which the epoch built from it, and for a
// roll-back).
type partialEpoch struct {
	batches                                      int
	graph, topic, level, branch, div, sup, total float64
	docs                                         int
	seconds                                      float64
	dropout                                      []byte
	start                                        *snapshot
}

// session is what one trainer knows about its checkpoints and about being
// stopped.
type session struct {
	stop    atomic.Bool   // set by Interrupt
	part    *partialEpoch // set by Resume (resumed inside an epoch) or an interrupt
	resumed bool          // the topics were placed in an earlier session
	saved   bool          // the current state is the newest generation's
	// generation is the newest generation this trainer wrote or resumed
	// from; the next write keeps it as the fallback.
	generation string
}

// generation is a complete generation's directory name and sequence number.
type generation struct {
	name string
	seq  int
}

// genName names generation seq written after epoch (inEpoch: inside epoch
// epoch+1, after the given step).
func genName(seq, epoch int, step int64, inEpoch bool) string {
	if inEpoch {
		return fmt.Sprintf("%06d.epoch-%d.step-%d", seq, epoch+1, step)
	}
	return fmt.Sprintf("%06d.epoch-%d", seq, epoch)
}

// listCheckpoint reads dir: its complete generations in order, its
// temporary directories, and whether it holds files of the flat layout
// written before checkpoints were one unit.
func listCheckpoint(dir string) (gens []generation, tmps []string, legacy bool, err error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, false, err
	}
	for _, e := range es {
		name := e.Name()
		switch {
		case e.IsDir() && strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"):
			tmps = append(tmps, name)
		case e.IsDir():
			num, _, ok := strings.Cut(name, ".")
			if seq, err := strconv.Atoi(num); ok && err == nil && seq > 0 && strings.HasPrefix(name[len(num):], ".epoch-") {
				gens = append(gens, generation{name, seq})
			}
		case name == trainerFile:
			legacy = true
		}
	}
	slices.SortFunc(gens, func(a, b generation) int { return a.seq - b.seq })
	return gens, tmps, legacy, nil
}

// legacyFiles are the files the flat layout kept directly in the
// checkpoint directory.
var legacyFiles = []string{model.ConfigFile, model.TreeFile, model.WeightsFile, optimizerFile, bestFile, bestTreeFile, trainerFile}

// HasCheckpoint reports whether dir holds a complete checkpoint generation
// (one Resume may use; it is still verified then).
func HasCheckpoint(dir string) bool {
	gens, _, _, err := listCheckpoint(dir)
	return err == nil && len(gens) > 0
}

// SaveCheckpoint writes everything Resume needs as a new generation of the
// checkpoint directory dir (see the comment on the file names): into a
// temporary directory, with manifest.json last, then renamed into place in
// one step; then every older generation but the previous one is removed,
// with any temporary directory an earlier, stopped write left. On error
// the new generation is removed and the older ones stay.
func (t *Trainer) SaveCheckpoint(dir string) error {
	if err := t.saveGeneration(dir); err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return nil
}

func (t *Trainer) saveGeneration(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gens, tmps, _, err := listCheckpoint(dir)
	if err != nil {
		return err
	}
	seq := 1
	if len(gens) > 0 {
		seq = gens[len(gens)-1].seq + 1
	}
	tmp, err := os.MkdirTemp(dir, fmt.Sprintf(".%06d.tmp-", seq))
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	part := t.sess.part
	if err := t.writeFiles(tmp, part); err != nil {
		return err
	}
	m := manifest{Format: checkpointFormat, Epoch: t.State.Epoch, Step: t.State.Step, InEpoch: part != nil}
	if m.Files, err = hashFiles(tmp); err != nil {
		return err
	}
	if err := atomicfile.WriteJSON(filepath.Join(tmp, manifestFile), m); err != nil {
		return err
	}
	name := genName(seq, t.State.Epoch, t.State.Step, part != nil)
	final := filepath.Join(dir, name)
	faultpoint.Reached("checkpoint rename " + final)
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	ok = true
	atomicfile.SyncDir(dir)
	faultpoint.Reached("checkpoint renamed " + final)

	// The new generation is complete: older ones may go, but for the
	// previous one, kept as a fallback.
	for _, g := range gens {
		if g.name != t.sess.generation {
			if err := os.RemoveAll(filepath.Join(dir, g.name)); err != nil {
				return err
			}
		}
	}
	for _, d := range tmps {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return err
		}
	}
	for _, f := range legacyFiles {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	atomicfile.SyncDir(dir)
	faultpoint.Reached("checkpoint pruned " + dir)
	t.sess.generation = name
	return nil
}

// writeFiles writes a generation's files (all but the manifest) into dir.
func (t *Trainer) writeFiles(dir string, part *partialEpoch) error {
	if err := t.Model.Save(dir, t.Opt.Seed); err != nil {
		return err
	}
	if err := t.adam.SaveState(filepath.Join(dir, optimizerFile), nil); err != nil {
		return err
	}
	if t.best != nil {
		if err := t.writeSnapshot(dir, bestFile, bestTreeFile, t.best); err != nil {
			return err
		}
	}
	start := t.Start
	tj := trainerJSON{Format: trainerFormat, Options: t.Opt, Start: &start, State: t.State, History: t.History}
	if part != nil {
		if err := t.writeSnapshot(dir, startFile, startTreeFile, part.start); err != nil {
			return err
		}
		tj.InEpoch = &inEpochJSON{Batches: part.batches, Graph: part.graph, Topic: part.topic, Level: part.level, Branch: part.branch, Div: part.div,
			Sup: part.sup, Total: part.total, Docs: part.docs, Seconds: part.seconds, Dropout: part.dropout}
	}
	return atomicfile.WriteJSON(filepath.Join(dir, trainerFile), tj)
}

// writeSnapshot writes s's parameters (with the optimiser state, when s
// has it) and σ into file, and its tree into treeFile.
func (t *Trainer) writeSnapshot(dir, file, treeFile string, s *snapshot) error {
	var ts []*tensor.Tensor
	for _, p := range t.Model.Params() {
		if s.params[p.Name] == nil {
			// A state from before the background mixture was switched
			// on (Options.BackgroundMixAtEnd) has no weight for it.
			continue
		}
		// The best state may predate a change of the tree: its per-topic
		// tensors keep their own shapes.
		ts = append(ts, &tensor.Tensor{Name: p.Name, Shape: s.shapes[p.Name], Data: s.params[p.Name]})
	}
	meta := map[string]string{
		metaRadius: strconv.FormatFloat(s.radius, 'g', -1, 64),
		metaTemp:   strconv.FormatFloat(s.temp, 'g', -1, 64),
	}
	if s.opt != nil {
		for _, k := range slices.Sorted(maps.Keys(s.opt)) {
			ts = append(ts, s.opt[k])
		}
		meta[metaOptStep] = strconv.FormatInt(s.optStep, 10)
		meta[metaStep] = strconv.FormatInt(s.step, 10)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, file), ts, meta); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, treeFile), s.tree.WriteJSON)
}

// hashFiles lists the regular files of dir with their sizes and SHA-256.
func hashFiles(dir string) ([]fileEntry, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []fileEntry
	for _, e := range es {
		if e.Name() == manifestFile {
			continue
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", filepath.Join(dir, e.Name()))
		}
		size, sum, err := filehash.SHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, fileEntry{Name: e.Name(), Size: size, SHA256: sum})
	}
	return out, nil
}

// parseManifest reads manifest.json (name for messages).
func parseManifest(name string, raw []byte) (*manifest, error) {
	var m manifest
	if err := decodeStrict(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m.Format != checkpointFormat {
		return nil, fmt.Errorf("%s: unknown format %q", name, m.Format)
	}
	if m.Epoch < 0 || m.Step < 0 {
		return nil, fmt.Errorf("%s: negative epoch %d or step %d", name, m.Epoch, m.Step)
	}
	seen := map[string]bool{}
	for _, f := range m.Files {
		if f.Name == "" || f.Name == manifestFile || f.Name != filepath.Base(f.Name) || strings.HasPrefix(f.Name, ".") || seen[f.Name] {
			return nil, fmt.Errorf("%s: bad or repeated file name %q", name, f.Name)
		}
		if _, err := hex.DecodeString(f.SHA256); err != nil || len(f.SHA256) != 2*sha256.Size || f.Size < 0 {
			return nil, fmt.Errorf("%s: %s: bad size %d or sha256 %q", name, f.Name, f.Size, f.SHA256)
		}
		seen[f.Name] = true
	}
	for _, need := range []string{model.ConfigFile, model.TreeFile, model.WeightsFile, optimizerFile, trainerFile} {
		if !seen[need] {
			return nil, fmt.Errorf("%s: lists no %s", name, need)
		}
	}
	return &m, nil
}

// decodeStrict decodes exactly one JSON value with only known fields.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// damagedError says why a generation cannot be used as it is on disk.
type damagedError struct{ err error }

func (e *damagedError) Error() string { return e.err.Error() }

func (e *damagedError) Unwrap() error { return e.err }

// verify checks a generation against its manifest: every file listed, of
// its size and hash, and no other.
func verify(dir string) (*manifest, error) {
	damaged := func(format string, a ...any) (*manifest, error) {
		return nil, &damagedError{fmt.Errorf(format, a...)}
	}
	path := filepath.Join(dir, manifestFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return damaged("%w", err)
	}
	m, err := parseManifest(path, raw)
	if err != nil {
		return damaged("%w", err)
	}
	listed := map[string]bool{manifestFile: true}
	for _, f := range m.Files {
		listed[f.Name] = true
		size, sum, err := filehash.SHA256(filepath.Join(dir, f.Name))
		switch {
		case err != nil:
			return damaged("%w", err)
		case size != f.Size || sum != f.SHA256:
			return damaged("%s: %d bytes with sha256 %.12s…, the manifest says %d bytes with %.12s…", filepath.Join(dir, f.Name), size, sum, f.Size, f.SHA256)
		}
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return damaged("%w", err)
	}
	for _, e := range es {
		if !listed[e.Name()] {
			return damaged("%s: not in the manifest", filepath.Join(dir, e.Name()))
		}
	}
	return m, nil
}
