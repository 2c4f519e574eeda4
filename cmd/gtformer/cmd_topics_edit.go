package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topicfit"
)

// Curation of a trained model's topic tree: each command reads the model
// (and its corpus), makes one edit and writes a NEW model folder with the
// outputs train writes, the edit appended to the model's edit log.
// Structural edits end with a short decoder refit to the new tree.

// curateRefit is the decoder-only refit after a structural edit: steps
// of topicfit.Fit over batches of training documents (train's end-of-run
// refit: its default steps, and its warm-up's rate and batch).
var curateRefit = topicfit.Options{Steps: 50, LR: 0.03, Batch: 256, DecoderOnly: true}

// topicEdit is one curation command.
type topicEdit struct {
	name, summary string
	args          string // the positional arguments, for the synopsis
	nargs         int
	text          string // the help's description
	// flags registers the command's own flags (nil: none).
	flags func(fs *flag.FlagSet)
	// check turns the positional arguments into ids (a usage error for
	// anything else), before the model is read.
	check func(pos []string) ([]int, error)
	// apply makes the edit on m (an error: refused, nothing written) and
	// returns the log entries it made and whether the decoder needs a
	// refit.
	apply func(m *model.Model, ids []int, pos []string) ([]edits.Edit, bool, error)
}

func init() {
	for _, e := range []*topicEdit{labelEdit(), mergeEdit(), moveEdit(), deleteEdit(), reduceEdit()} {
		register(&command{name: "topics " + e.name, summary: e.summary, run: e.run})
	}
}

// idArgs reads every positional argument as a topic id.
func idArgs(pos []string) ([]int, error) {
	ids := make([]int, len(pos))
	for i, s := range pos {
		id, err := strconv.Atoi(s)
		if err != nil || id < 0 {
			return nil, usagef("%q is not a topic id (a number from gtformer topics)", s)
		}
		ids[i] = id
	}
	return ids, nil
}

func labelEdit() *topicEdit {
	return &topicEdit{
		name: "label", summary: "name a topic of a trained model (a new model folder)", args: "ID NAME", nargs: 2,
		text: `
Names topic ID NAME (at most 80 bytes, no control characters): the label
goes into the model's edit log and every output shows it (topics.txt,
topics.json, serve, report, CSV). The weights do not change.`,
		check: func(pos []string) ([]int, error) {
			ids, err := idArgs(pos[:1])
			if err != nil {
				return nil, err
			}
			if err := edits.CheckLabel(pos[1]); err != nil {
				return nil, usagef("%s", strings.TrimPrefix(err.Error(), "edits: "))
			}
			return ids, nil
		},
		apply: func(m *model.Model, ids []int, pos []string) ([]edits.Edit, bool, error) {
			if !m.Topics.Tree.Has(ids[0]) {
				return nil, false, fmt.Errorf("topic %d: no such topic (gtformer topics lists them)", ids[0])
			}
			return []edits.Edit{{Op: edits.OpLabel, IDs: ids, Label: pos[1]}}, false, nil
		},
	}
}

func mergeEdit() *topicEdit {
	return &topicEdit{
		name: "merge", summary: "merge topic B into topic A (a new model folder)", args: "A B", nargs: 2,
		text: `
Folds topic B into topic A: A keeps its id and label, B's subtopics become
A's, and A's input row becomes the mean of the two. Neither may be the
root, nor an ancestor of the other.`,
		check: idArgs,
		apply: func(m *model.Model, ids []int, _ []string) ([]edits.Edit, bool, error) {
			err := m.MergeTopics(ids[0], ids[1])
			return []edits.Edit{{Op: edits.OpMerge, IDs: ids}}, true, err
		},
	}
}

func moveEdit() *topicEdit {
	var under *int
	return &topicEdit{
		name: "move", summary: "move a topic and its subtree under another topic (a new model folder)", args: "--under P A", nargs: 1,
		text: `
Moves topic A, with its subtopics, to be the last subtopic of P. A may not
be the root, P may not be inside A's subtree, and the tree may not grow
past its depth limit.`,
		flags: func(fs *flag.FlagSet) { under = fs.Int("under", -1, "the new parent topic `P`") },
		check: func(pos []string) ([]int, error) {
			if *under < 0 {
				return nil, usagef("--under P is required (the new parent's id)")
			}
			ids, err := idArgs(pos)
			return append(ids, *under), err
		},
		apply: func(m *model.Model, ids []int, _ []string) ([]edits.Edit, bool, error) {
			err := m.MoveTopic(ids[0], ids[1])
			return []edits.Edit{{Op: edits.OpMove, IDs: ids}}, true, err
		},
	}
}

func deleteEdit() *topicEdit {
	return &topicEdit{
		name: "delete", summary: "delete a topic; its subtopics and documents go to its parent (a new model folder)", args: "A", nargs: 1,
		text: `
Removes topic A alone: its subtopics move up to A's parent, and the
documents' mass A held goes to its parent's subtree. The root cannot be
deleted.`,
		check: idArgs,
		apply: func(m *model.Model, ids []int, _ []string) ([]edits.Edit, bool, error) {
			err := m.DeleteTopic(ids[0])
			return []edits.Edit{{Op: edits.OpDelete, IDs: ids}}, true, err
		},
	}
}

func reduceEdit() *topicEdit {
	var to *int
	return &topicEdit{
		name: "reduce", summary: "merge the most similar sibling topics until N remain (a new model folder)", args: "--to N", nargs: 0,
		text: `
Merges the most similar sibling topics (cosine of their word distributions;
pairs of leaves first) two at a time until the tree has N topics. Merging
siblings keeps every level, so N is at least the number of levels. Each
merge is an entry of the edit log.`,
		flags: func(fs *flag.FlagSet) { to = fs.Int("to", 0, "the number of topics `N` to keep") },
		check: func([]string) ([]int, error) {
			if *to < 1 {
				return nil, usagef("--to N is required (a positive number of topics)")
			}
			return nil, nil
		},
		apply: func(m *model.Model, _ []int, _ []string) ([]edits.Edit, bool, error) {
			merges, err := m.ReduceTopics(*to)
			var out []edits.Edit
			for _, p := range merges {
				out = append(out, edits.Edit{Op: edits.OpMerge, IDs: []int{p[0], p[1]}, Note: fmt.Sprintf("topics reduce --to %d", *to)})
			}
			return out, true, err
		},
	}
}

// parseInterleaved parses flags and positional arguments in any order
// ("--" ends the flags).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

func (e *topicEdit) run(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	synopsis := "--model DIR --out DIR2 [--data PATH] " + e.args
	fs := newFlagSet("topics "+e.name, synopsis, stderr)
	d.register(fs)
	dir := fs.String("model", "", "model `DIR` to edit (written by gtformer train --out); it is not changed")
	out := fs.String("out", "", "new model folder `DIR2` for the edited model (not DIR; a folder of other files is refused)")
	allow := allowCorpusFlag(fs, "use")
	if e.flags != nil {
		e.flags(fs)
	}
	text := e.text + `

Reads the model and the corpus it was trained on (same --data and corpus
flags as train), and writes the edited model into DIR2 with the outputs
train writes (θ and the metrics computed again), its edit log (edits.json)
holding every earlier edit, this one and the SHA-256 of DIR's weights.`
	if e.name != "label" {
		text += fmt.Sprintf("\nThe decoder is refitted to the new tree (%d decoder-only steps).", curateRefit.Steps)
	}
	text += "\nA refused edit (exit 1) writes nothing."
	describe(fs, stderr, synopsis, text)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != e.nargs {
		return usagef("want %s after the flags, got %d argument(s): %s", e.args, len(pos), strings.Join(pos, " "))
	}
	if *dir == "" || *out == "" {
		return usagef("--model and --out are required")
	}
	if same(*dir, *out) {
		return usagef("--out %s is the model's own folder: an edit writes a new model folder", *out)
	}
	ids, err := e.check(pos)
	if err != nil {
		return err
	}
	parent, err := model.SavedWeightsSHA256(*dir)
	if err != nil {
		return err
	}
	m, seed, g, s, err := loadModelAndCorpus(*dir, &d, *allow, stderr)
	if err != nil {
		return err
	}
	made, refit, err := e.apply(m, ids, pos)
	if err != nil {
		return fmt.Errorf("refused, nothing written: %s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "model: "), "topictree: "))
	}
	now := time.Now().UTC().Truncate(time.Second)
	for _, x := range made {
		x.Time, x.Parent = now, parent
		m.Edits = m.Edits.With(x)
	}
	in := m.Inputs(g, s.TrainNeighbors32)
	if refit {
		emb := m.Embed(in, s.Train, s.TrainNeighbors32, 64, 128)
		opt := curateRefit
		opt.Seed = seed + 1
		if _, err := topicfit.Fit(m, emb.Tangent, in, s.Train, opt); err != nil {
			return err
		}
	}
	planted, err := d.planted(g.NumDocs())
	if err != nil {
		return err
	}
	res := evaluate.Run(m, g, s, in, evaluate.Options{Planted: planted, Seed: seed})
	met := outputs.Metrics{Dataset: datasetName(g.Name, d.path), Seed: seed, Supervised: m.Cfg.Supervised, BLAS: tensor.BLASName(),
		Notes: []string{fmt.Sprintf("edited from the model with weights SHA-256 %s (gtformer topics %s); the metrics are measured again", parent, e.name)}}
	var tree bytes.Buffer
	err = pipeline.WriteFolder(*out, func() ([]string, error) {
		if err := outputs.Write(*out, m, seed, g, in, res, met); err != nil {
			return nil, err
		}
		return outputs.Written(m, g), nil
	}, stderr)
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(*out, outputs.TopicsTextFile)); err == nil {
		tree.Write(b)
	}
	fmt.Fprintf(stdout, "%swrote the edited model (%d topics, %d edits in its log) into %s\n", tree.String(), m.Topics.Tree.Len(), m.Edits.Len(), *out)
	return nil
}

// same reports whether two paths name the same folder (either may not
// exist yet).
func same(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	if errors.Is(errA, os.ErrNotExist) || errors.Is(errB, os.ErrNotExist) {
		x, _ := filepath.Abs(a)
		y, _ := filepath.Abs(b)
		return x == y
	}
	return false
}
