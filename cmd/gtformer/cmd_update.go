package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/preset"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/train"
)

func init() {
	register(&command{
		name:    "update",
		summary: "add new documents and links to a trained model's corpus and train on (a new model folder)",
		run:     runUpdate,
	})
	flagGroups["gtformer update"] = []flagGroup{
		{title: "inputs and output", flags: []string{"model", "data", "out", "corpus", "split"}},
		{title: "budget", flags: []string{"steps", "seed", "valid-only", "quiet"}},
		{title: "base corpus, further settings", hidden: true, flags: []string{"knn-links", "knn-k", "knn-budget", "min-df", "max-df", "max-vocab",
			"split-seed", "drop-links", "cut-words"}},
	}
}

const updateSynopsis = "--model DIR --data NEW --out DIR2 [--corpus PATH] [--steps N] [--seed N] [--valid-only]"

// Update's training: updateRounds epochs of equal steps, the tree growing
// after each but the last and pruned after that; at least minUpdateSteps
// steps by default (train.ContinueSteps).
const (
	updateRounds   = 3
	minUpdateSteps = 60
)

// UpdateCorpusDir is the union corpus's dataset folder inside an updated
// model folder (with its split file): the base corpus of the next update,
// and the --data of eval, embed and serve.
const UpdateCorpusDir = "corpus"

// updateFile is the update's report in the new model folder.
const updateFile = "update.json"

type updateFlags struct {
	d         dataFlags
	dir, out  string
	newPath   string
	steps     int
	seed      uint64
	validOnly bool
	quiet     bool
}

func (u *updateFlags) flagSet(stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("update", updateSynopsis, stderr)
	u.d.registerLoadAs(fs, "corpus", "`PATH` of the corpus the model was trained on, read with the same corpus flags as train "+
		"(default: DIR/corpus when DIR was written by update, else the built-in corpus)")
	u.d.registerSplit(fs)
	fs.StringVar(&u.dir, "model", "", "model `DIR` to update (written by train --out or update --out); it is not changed")
	fs.StringVar(&u.newPath, "data", "", "the new documents, `NEW`: JSON Lines as embed --new reads them (a \"label\" when the corpus is labelled), or a folder")
	fs.StringVar(&u.out, "out", "", "new model folder `DIR2` (new or empty; never DIR)")
	fs.IntVar(&u.steps, "steps", 0, "training steps (0: as many as a first run spends on the new part's training links, at least 60)")
	fs.Uint64Var(&u.seed, "seed", 0, "random seed of the continued training (0: the model's)")
	fs.BoolVar(&u.validOnly, "valid-only", false, "never read the test split: write the model, valid.json and topics.txt")
	fs.BoolVar(&u.quiet, "quiet", false, "no progress bar, only the result")
	describe(fs, stderr, updateSynopsis, `
Adds the documents and links of NEW to the corpus of the model in DIR and
continues training on the union: the encoder, the topics and the decoder go
on from where they were, new documents join the training documents, old
ones keep their roles (training, validation, test), and the tree grows new
branches and prunes. A topic that survives keeps its id and its label; new
topics get new ids. Writes a new model folder DIR2 with the outputs train
writes, the union corpus as a dataset folder DIR2/corpus (with its split,
split.txt, and ids.txt), update.json (per kept topic its top-10 words before
and after and their overlap; the topics removed and added) and the edit log
with this update and DIR's weights SHA-256. DIR2 is the --model of the next
update (its corpus is found there) and, with --data DIR2/corpus, of eval,
embed and serve. DIR may be a --valid-only run folder (its model is read
from its finished checkpoint). A refused update writes nothing.`)
	return fs
}

func runUpdate(args []string, stdout, stderr io.Writer) error {
	u := &updateFlags{}
	fs := u.flagSet(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if u.dir == "" || u.out == "" || u.newPath == "" {
		return usagef("--model, --data and --out are required")
	}
	if same(u.dir, u.out) {
		return usagef("--out %s is the model's own folder: update writes a new model folder", u.out)
	}
	if u.steps < 0 {
		return usagef("--steps must not be negative, got %d", u.steps)
	}
	if err := checkNewFolder(u.out); err != nil {
		return err
	}
	if u.d.path == "" {
		if p := filepath.Join(u.dir, UpdateCorpusDir); isDir(p) {
			u.d.path = p
		}
	}
	base, err := loadUpdateBase(u, stderr)
	if err != nil {
		return err
	}
	nd, err := corpus.ReadUpdate(u.newPath, base.g)
	if err != nil {
		return err
	}
	return update(u, base, nd, stdout, stderr)
}

// updateBase is the model to update and its corpus.
type updateBase struct {
	m      *model.Model
	seed   uint64
	opt    train.Options
	parent string // hex SHA-256 of the model's weights
	g      *corpus.Graph
	s      *corpus.Split
}

// loadUpdateBase reads the model of --model, a model folder or a finished
// --valid-only run's checkpoint, and the corpus it was trained on.
func loadUpdateBase(u *updateFlags, stderr io.Writer) (*updateBase, error) {
	b := &updateBase{opt: preset.DefaultSettings().Options}
	if isFile(filepath.Join(u.dir, model.ConfigFile)) {
		parent, err := model.SavedWeightsSHA256(u.dir)
		if err != nil {
			return nil, err
		}
		m, seed, g, s, err := loadModelAndCorpus(u.dir, &u.d, false, stderr)
		var ue usageError
		if errors.As(err, &ue) {
			// update has no --allow-different-corpus: the union must hold
			// the model's corpus.
			return nil, usagef("%s", strings.TrimSuffix(ue.msg, ", or --allow-different-corpus"))
		}
		if err != nil {
			return nil, err
		}
		b.m, b.seed, b.g, b.s, b.parent = m, seed, g, s, parent
		b.opt.Seed = seed
		return b, nil
	}
	ckpt := filepath.Join(u.dir, "checkpoint")
	if !train.HasCheckpoint(ckpt) {
		return nil, fmt.Errorf("%s holds no model (%s) and no checkpoint: give a folder written by train --out or update --out", u.dir, model.ConfigFile)
	}
	g, err := u.d.load()
	if err != nil {
		return nil, err
	}
	s := u.d.makeSplit(g)
	tr, err := train.Resume(ckpt, g, s, train.Env{Log: io.Discard, Corpus: u.d.fingerprint(g, s)})
	var mis *corpus.MismatchError
	if errors.As(err, &mis) {
		return nil, usagef("%v; give the corpus and corpus flags the model was trained with", err)
	}
	if err != nil {
		return nil, err
	}
	if !tr.Finished() {
		return nil, fmt.Errorf("%s: the run stopped after epoch %d of %d: finish it (train --resume) before updating its model", u.dir, tr.State.Epoch, tr.Opt.Epochs)
	}
	gen := tr.Generation(ckpt)
	parent, err := model.SavedWeightsSHA256(gen)
	if err != nil {
		return nil, err
	}
	return &updateBase{m: tr.Model, seed: tr.Opt.Seed, opt: tr.Opt, parent: parent, g: g, s: s}, nil
}

// update trains the union and writes the new model folder: into a
// temporary folder beside --out, renamed to it when complete.
func update(u *updateFlags, b *updateBase, nd *corpus.NewDocs, stdout, stderr io.Writer) (err error) {
	abs, err := filepath.Abs(u.out)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".update-")
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	var res *updateResult
	err = pipeline.WriteFolder(tmp, func() (written []string, err error) {
		res, err = updateInto(tmp, u, b, nd, stderr)
		if err != nil {
			return nil, err
		}
		return res.written, nil
	}, stderr)
	if err != nil {
		return err
	}
	if isDir(u.out) {
		if err := os.Remove(u.out); err != nil { // empty: checkNewFolder
			return fmt.Errorf("update: %w", err)
		}
	}
	if err := os.Rename(tmp, u.out); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	res.report.print(stdout)
	m := res.model
	fmt.Fprintf(stdout, "wrote the updated model (%d topics, %d documents, %d edits in its log) into %s\n", m.Topics.Tree.Len(), res.docs, m.Edits.Len(), u.out)
	return nil
}

// updateResult is what updateInto wrote.
type updateResult struct {
	model   *model.Model
	report  *updateReport
	docs    int      // documents of the union
	written []string // the files, for the folder's manifest
}

// updateInto writes the union corpus into dir, trains on it and writes the
// model and its outputs there.
func updateInto(dir string, u *updateFlags, b *updateBase, nd *corpus.NewDocs, stderr io.Writer) (*updateResult, error) {
	n := b.g.NumDocs()
	union := b.g.Extend(nd)
	roles := b.s.Roles(n)
	for range nd.IDs {
		roles = append(roles, corpus.RoleTrain)
	}
	cdir := filepath.Join(dir, UpdateCorpusDir)
	if err := corpus.WriteFolder(union, cdir); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(cdir, corpus.SplitFile), func(w io.Writer) error { return corpus.WriteSplit(w, roles) }); err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	// Trained on the folder as it reads back: the corpus the next
	// command will read, fingerprint and all.
	d2 := dataFlags{path: cdir, knnK: corpus.DefaultKNN, knnBudget: corpus.DefaultKNNBudget}
	g2, err := d2.load()
	if err != nil {
		return nil, err
	}
	s2 := d2.makeSplit(g2)
	fp := d2.fingerprint(g2, s2)
	fp.Source = filepath.Join(u.out, UpdateCorpusDir)
	newLinks, newTrain := countNewLinks(g2, s2, n)

	opt := b.opt
	steps := u.steps
	if steps == 0 {
		steps = train.ContinueSteps(opt, newTrain, minUpdateSteps)
	}
	if u.seed != 0 {
		opt.Seed = u.seed
	}
	opt.Epochs = min(updateRounds, steps)
	opt.StepsPerEpoch = (steps + opt.Epochs - 1) / opt.Epochs
	opt.GrowEvery, opt.ValidEvery, opt.ValidateStart = 1, 1, false

	before := topicWords(b.m, b.g.Vocab)
	env := train.Env{Log: stderr, Progress: stderr, Corpus: fp}
	if u.quiet {
		env.Log, env.Progress = io.Discard, nil
	}
	tr, err := train.Continue(b.m, g2, s2, opt, env)
	if err != nil {
		return nil, err
	}
	added := make([]int32, 0, len(nd.IDs))
	for d := n; d < g2.NumDocs(); d++ {
		added = append(added, int32(d))
	}
	tr.SetGrowFrom(added)
	fmt.Fprintf(env.Log, "updating %s: %d new documents (%d unknown words dropped), %d new links (%d among training documents), %d steps in %d rounds\n",
		u.dir, len(nd.IDs), nd.Unknown, newLinks, newTrain, opt.StepsPerEpoch*opt.Epochs, opt.Epochs)
	began := time.Now()
	if err := tr.Run(); err != nil {
		return nil, err
	}
	seconds := time.Since(began).Seconds()
	m := tr.Model
	m.Edits = m.Edits.With(edits.Edit{Op: edits.OpUpdate, IDs: []int{}, Time: time.Now().UTC().Truncate(time.Second), Parent: b.parent,
		Note: fmt.Sprintf("%d new documents, %d new links, %d steps", len(nd.IDs), newLinks, opt.StepsPerEpoch*opt.Epochs)})
	rep := &updateReport{Format: "gtformer-update/1", Parent: b.parent, NewDocuments: len(nd.IDs), NewLinks: newLinks, NewTrainingLinks: newTrain,
		UnknownWords: nd.Unknown, Steps: opt.StepsPerEpoch * opt.Epochs}
	rep.compareTopics(before, topicWords(m, g2.Vocab))
	written := []string{updateFile}
	for _, name := range []string{corpus.VocabFile, corpus.ContentsFile, corpus.LinksFile, corpus.LabelsFile, corpus.LabelNamesFile,
		corpus.MetaFile, corpus.IDsFile, corpus.EmbeddingsFile, corpus.SplitFile} {
		if isFile(filepath.Join(cdir, name)) {
			written = append(written, filepath.Join(UpdateCorpusDir, name))
		}
	}
	dataset := datasetName(b.g.Name, u.d.path)
	if err := outputs.WriteJSON(filepath.Join(dir, updateFile), rep); err != nil {
		return nil, err
	}
	r := &updateResult{model: m, report: rep, docs: g2.NumDocs()}
	if u.validOnly {
		if err := m.Save(dir, tr.Opt.Seed); err != nil {
			return nil, err
		}
		if _, _, err := pipeline.WriteValid(dir, dataset, tr, nil, seconds); err != nil {
			return nil, err
		}
		r.written = append(append(written, model.ConfigFile, model.TreeFile, model.WeightsFile, edits.File), pipeline.ValidFiles...)
		return r, nil
	}
	res := evaluate.Run(m, g2, s2, tr.In, evaluate.Options{MaxNbrs: opt.MaxNbrs, EmbedBatch: opt.EmbedBatch, Seed: opt.Seed})
	met := outputs.Metrics{Dataset: dataset, Seed: opt.Seed, Supervised: m.Cfg.Supervised, TrainSeconds: seconds, Epochs: tr.State.Epoch,
		BLAS: tensor.BLASName(), Notes: []string{fmt.Sprintf("updated from the model with weights SHA-256 %s (gtformer update)", b.parent)}}
	met.KeptEpoch, met.Valid = tr.Kept()
	if err := outputs.Write(dir, m, tr.Opt.Seed, g2, tr.In, res, met); err != nil {
		return nil, err
	}
	r.written = append(written, outputs.Written(m, g2)...)
	return r, nil
}

// countNewLinks counts the links of g (whose documents from n on are new)
// with a new end, and those of them that training reads (both ends
// training documents outside validation).
func countNewLinks(g *corpus.Graph, s *corpus.Split, n int) (all, trained int) {
	for _, l := range g.Links {
		if int(l[1]) >= n {
			all++
		}
	}
	for _, l := range s.Holdout(g).TrainLinks {
		if int(l[1]) >= n {
			trained++
		}
	}
	return all, trained
}

// checkNewFolder refuses an --out that exists and is not an empty folder.
func checkNewFolder(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if !fi.IsDir() {
		return usagef("--out %s exists and is not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if len(entries) > 0 {
		return usagef("--out %s holds files (%s, ...): update writes a new model folder; give a new or empty one", dir, entries[0].Name())
	}
	return nil
}

// isDir reports whether path names a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
