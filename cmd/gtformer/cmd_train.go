package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/phases"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/preset"
	"github.com/gtformer/gtformer/train"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train GTFormer on a corpus (default: the built-in corpus) and print the topic tree",
		run:     runTrain,
	})
}

// trainGroups are train's help: the flags -h shows, then the hidden
// groups of the finer settings.
var trainGroups = modelGroups([]flagGroup{
	{title: "data", flags: []string{"data", "split", "knn-links", "min-df", "max-vocab"}},
	{title: "outputs", flags: []string{"out", "resume", "quiet"}},
	{title: "budget", flags: []string{"preset", "seed", "epochs", "budget", "batch", "steps-per-epoch"}},
	{title: "model size", flags: []string{"width", "layers", "heads", "mlp", "max-len", "max-depth", "max-children"}},
	{title: "evaluation", flags: []string{"supervised", "valid-only", "eval-queries"}},
	{title: "machine", flags: []string{"threads"}},
	{title: "profiling", hidden: true, flags: []string{"memprofile", "memprofile-phase"}},
})

func init() { flagGroups["gtformer train"] = trainGroups }

const trainSynopsis = "[--data PATH] [--out DIR] [--preset paper] [--seed N] [--supervised] [flags]"

// trainFlags are gtformer train's flags.
type trainFlags struct {
	d         dataFlags
	mf        modelFlags
	preset    string
	out       string
	resume    bool
	quiet     bool
	validOnly bool
	queries   *int
	threads   *int
	mem       memProfile
}

// flagSet registers the flags with the values of the settings s.
func (t *trainFlags) flagSet(stderr io.Writer, s preset.Settings) *flag.FlagSet {
	fs := newFlagSet("train", trainSynopsis, stderr)
	t.d.register(fs)
	t.mf.registerFrom(fs, s)
	presetFlag(fs, &t.preset)
	fs.StringVar(&t.out, "out", "gtformer-out", "output `DIR` (new, empty, or one a run wrote): topics, embeddings, metrics.json, the model, plots, checkpoint/")
	fs.BoolVar(&t.resume, "resume", false, "continue from DIR/checkpoint with the same --data and corpus flags (other flags: as the run had them, or --epochs)")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar, only the result")
	t.queries = evalQueriesFlag(fs, "--seed")
	t.threads = threadsFlag(fs)
	fs.StringVar(&t.mem.path, "memprofile", "", "write a Go heap profile (pprof) to `FILE` when the phase --memprofile-phase ends")
	fs.StringVar(&t.mem.phase, "memprofile-phase", "features", "the `PHASE` at whose end --memprofile is written (a name from the phases line: load, features, steps, ...)")
	fs.BoolVar(&t.validOnly, "valid-only", false, "never read the test split: write valid.json (learning curve, validation metrics, topic quality) and topics.txt")
	describe(fs, stderr, trainSynopsis, `
Trains GTFormer: a topic tree embedded by a hyperbolic doubly-recurrent
network, hyperbolic graph attention, and a transformer that sees both in
every layer. With no --data it trains on the built-in synthetic corpus, at a
smaller size (width 64, 2 layers, 2 heads, MLP width 128, maximum length 64,
each unless given). Prints the learned topic tree and the test metrics;
writes the outputs to --out, and a checkpoint after every epoch to
--out/checkpoint. Ctrl-C (SIGINT) or SIGTERM finishes the current step,
writes a checkpoint, prints the command that continues the run, and exits
130 (143 for SIGTERM).`)
	return fs
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	began := time.Now()
	var t *trainFlags
	fs, err := parseWithPreset(args, func(s preset.Settings) (*flag.FlagSet, *string) {
		t = &trainFlags{}
		return t.flagSet(stderr, s), &t.preset
	})
	if err != nil {
		return err
	}
	d, mf, out, mem := &t.d, &t.mf, &t.out, &t.mem
	resume, quiet, validOnly, queries := &t.resume, &t.quiet, &t.validOnly, t.queries
	if *resume && visited(fs, "preset") {
		return usagef("--preset with --resume: the run continues with the checkpoint's settings")
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if d.path == "" {
		mf.builtinProfile(fs)
	}
	nq, err := evalQueries(*queries)
	if err != nil {
		return err
	}
	restore, err := useThreads(*t.threads)
	if err != nil {
		return err
	}
	defer restore()
	if err := mem.check(); err != nil {
		return err
	}
	if err := mf.opt.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := mf.opt.CheckModel(&mf.cfg); err != nil {
		return usagef("%v", err)
	}
	ph := phases.New()
	ph.TrackPeakRSS()
	if !*quiet {
		// Name the phases that draw no bar, before the evaluation's bars
		// (which wait 3 s) would begin; the steps have the epoch's bar.
		ph.Announce(stderr, 2*time.Second, "steps")
	}
	mem.watch(ph)
	g, s, fp, err := loadSplit(d, ph)
	if err != nil {
		return err
	}
	if mf.cfg.Supervised && g.Labels == nil {
		return usagef("--supervised needs labels, and %s has none", d.source())
	}
	if err := d.checkVocab(g); err != nil {
		return err // found before training: a data problem (exit 1), not a usage one
	}
	if mf.glove && g.WordVectors == nil && !*resume && visited(fs, "glove") {
		return usagef("--glove: %s has no word vectors", d.source())
	}
	planted, err := d.planted(g.NumDocs())
	if err != nil {
		return err
	}
	env := train.Env{Phases: ph, Log: stderr, Progress: stderr, Corpus: fp, Began: began}
	if *quiet {
		env.Log, env.Progress = io.Discard, nil
	}
	sp := pipeline.Spec{
		Dir: *out, Dataset: datasetName(g.Name, d.path), Source: d.source(), Graph: g, Split: s, Planted: planted,
		Config: mf.cfg, Options: mf.opt, Glove: mf.glove, Env: env, Queries: nq, ValidOnly: *validOnly, Map: true,
		CheckResume: func(tr *train.Trainer) error { return checkResumeFlags(fs, tr, env.Log) },
	}
	if *resume {
		sp.Resume = pipeline.ResumeRequired
	}
	var signalled func() os.Signal
	sp.Watch = func(tr *train.Trainer) func() {
		var stop func()
		stop, signalled = watchSignals(tr, stderr)
		return stop
	}
	r, err := pipeline.Run(sp)
	var stopped *train.Interrupted
	var bad *pipeline.SettingsError
	switch {
	case errors.As(err, &stopped):
		return interrupted(stopped, signalled(), args)
	case errors.As(err, &bad):
		return usagef("%v", err)
	case *resume && r == nil && err != nil:
		return resumeError(err)
	case err != nil:
		return err
	}
	if err := mem.finish(ph, env.Log); err != nil {
		return err
	}
	if *validOnly {
		return printValid(stdout, r, *out)
	}
	ph.Print(env.Log)
	if err := outputs.WriteTopicsText(stdout, r.Topics, outputs.TextOptions{}); err != nil {
		return err
	}
	printMetrics(stdout, r.Eval, r.Trainer.Model)
	fmt.Fprintf(stdout, "outputs in %s (%.0f s of training)\n", *out, r.Seconds)
	return nil
}

// loadSplit reads and splits the corpus the data flags name, timing both,
// and returns its fingerprint for the trainer.
func loadSplit(d *dataFlags, ph *phases.Record) (*corpus.Graph, *corpus.Split, *corpus.Fingerprint, error) {
	stop := ph.Start("load")
	g, err := d.load()
	stop()
	if err != nil {
		return nil, nil, nil, err
	}
	stop = ph.Start("split and sampler")
	s := d.makeSplit(g)
	fp := d.fingerprint(g, s)
	stop()
	return g, s, fp, nil
}

// visited reports whether the flag name was given on the command line.
func visited(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func datasetName(name, path string) string {
	if name != "" {
		return name
	}
	if path == "" {
		return "builtin"
	}
	return filepath.Base(path)
}

// mixNote is what the topics summary line says of the background mixture:
// its learned weight λ, or nothing without it.
func mixNote(m *model.Model) string {
	if m.Topics.Mix == nil {
		return ""
	}
	return fmt.Sprintf("  background mix λ %.3f", m.Topics.Lambda())
}

func printMetrics(w io.Writer, res *evaluate.Result, m *model.Model) {
	t := res.Test
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	fmt.Fprintf(w, "\ntest: kNN Micro-F1 %s  Macro-F1 %s  supervised Micro-F1 %s  Macro-F1 %s  link AUC %s  log-perplexity %s (completion %s)\n",
		f(t.KNNMicroF1), f(t.KNNMacroF1), f(t.SupMicroF1), f(t.SupMacroF1), f(t.LinkAUC), f(t.LogPerplexity), f(t.LogPerplexityCompletion))
	if t.EvalSampled != nil && *t.EvalSampled {
		fmt.Fprintf(w, "sampled evaluation: kNN and link AUC over a uniform sample of %d test documents (--eval-queries), each against every reference document; standard errors: kNN Micro-F1 ± %s, link AUC ± %s\n",
			t.EvalQueries, f(t.KNNMicroF1SE), f(t.LinkAUCSE))
	}
	tq := res.Topics
	fmt.Fprintf(w, "topics: %d in %d levels %v  NPMI %.3f (%s)  diversity %.3f%s\n",
		tq.Count, tq.Depth, tq.PerLevel, tq.NPMI, tq.NPMIRef, tq.Diversity, mixNote(m))
	fmt.Fprintf(w, "hierarchy: level share %.2f  specialization %.2f  NPMI per level %.3f  diversity per level %.2f  PCC %s  PCD %s  SD %s  PnCD %s\n",
		tq.LevelShare, tq.Specialization, tq.NPMIPerLevel, tq.DiversityPerLevel, f(tq.PCC), f(tq.PCD), f(tq.SD), f(tq.PnCD))
	if r := tq.RecoveryNMI; r != nil {
		fmt.Fprintf(w, "planted tree recovery: NMI %.3f between planted leaves and learned paths (soft: paths drawn from each document's π)\n", *r)
	}
}

// printValid prints what a --valid-only run measured: its topics, the kept
// epoch's validation scores and the topics' quality.
func printValid(w io.Writer, r *pipeline.Result, dir string) error {
	if err := outputs.WriteTopicsText(w, r.Topics, outputs.TextOptions{}); err != nil {
		return err
	}
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	rep := r.Valid
	if v := rep.Valid; v != nil {
		fmt.Fprintf(w, "\nvalidation (kept epoch %d): kNN Micro-F1 %s  Macro-F1 %s  link AUC %s  log-perplexity %s\n",
			rep.KeptEpoch, f(v.KNNMicroF1), f(v.KNNMacroF1), f(v.LinkAUC), f(v.LogPerplexity))
	}
	tq := rep.Topics
	fmt.Fprintf(w, "topics: %d in %d levels  NPMI %.3f (%s)  diversity %.3f  level share %.2f  specialization %.2f%s\n",
		tq.Count, tq.Depth, tq.NPMI, tq.NPMIRef, tq.Diversity, tq.LevelShare, tq.Specialization, mixNote(r.Trainer.Model))
	fmt.Fprintf(w, "outputs in %s (valid.json, topics.txt; the test split was not read)\n", dir)
	return nil
}
