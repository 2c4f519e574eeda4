package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/phases"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/train"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train GTFormer on a corpus (default: the built-in corpus) and print the topic tree",
		run:     runTrain,
	})
}

// modelFlags are the architecture and training flags shared by train and
// experiment.
type modelFlags struct {
	cfg   model.Config
	opt   train.Options
	glove bool
}

func (f *modelFlags) register(fs *flag.FlagSet) {
	f.cfg = model.Default()
	f.opt = train.DefaultOptions()
	c, o := &f.cfg, &f.opt
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed (same seed and data, same numbers)")
	fs.BoolVar(&c.Supervised, "supervised", false, "add the supervised head (cross-entropy on training labels)")
	fs.IntVar(&o.Epochs, "epochs", o.Epochs, "training epochs")
	fs.IntVar(&o.BatchLinks, "batch", o.BatchLinks, "training links per step (their ends are the batch's documents)")
	fs.Float64Var(&o.LR, "lr", o.LR, "peak learning rate (AdamW, warm-up then cosine decay)")
	fs.Float64Var(&o.DecoderLRScale, "decoder-lr-scale", o.DecoderLRScale, "learning-rate multiplier for the topic decoder's word rows U")
	fs.IntVar(&o.Warmup, "warmup", o.Warmup, "warm-up steps")
	fs.Float64Var(&o.WeightDecay, "weight-decay", o.WeightDecay, "AdamW weight decay")
	fs.StringVar((*string)(&o.TopicInit), "topic-init", string(o.TopicInit), "fit (kmeans, then σ's r and t calibrated to the documents' distances and a decoder warm-up; overrides --fd-radius and --fd-temp), kmeans (start the topics at a hierarchical clustering of the documents' initial embeddings) or random (the paper)")
	fs.IntVar(&o.TopicWarmup, "topic-warmup", o.TopicWarmup, "decoder-only steps of --topic-init fit")
	fs.BoolVar(&o.FinalPrune, "final-prune", o.FinalPrune, "end a growing tree's training with a tree update that prunes (as growth does) and adds nothing, before the last validation")
	fs.Float64Var(&o.FinalPruneBelow, "final-prune-below", o.FinalPruneBelow, "end a growing tree's training by removing every topic whose subtree holds less than this share of the training words (the topics training left empty), before the similarity fit and the last validation (0: none)")
	fs.Float64Var(&o.BackgroundMixAtEnd, "background-mix-at-end", o.BackgroundMixAtEnd, "when training ends, before the similarity fit and the decoder refit, turn on the background as a mixture component of every document's word distribution at this fixed weight λ in [0,1), so that the refit fits the topics' words with the corpus's word frequencies explaining λ of every document's words (0: off)")
	fs.IntVar(&o.DecoderRefit, "decoder-refit", o.DecoderRefit, "end training with this many decoder-only steps on the final document embeddings, before the last validation (0: none)")
	fs.Var(&o.FitSimilarity, "fit-similarity", "end training by fitting σ's r and t to the training documents' words (how sharply θ commits a document to a path), before the last validation: shared (one r and t for paths and levels), levels (the level σ gets its own) or none")
	fs.IntVar(&o.TopicRefit, "topic-refit", o.TopicRefit, "redo the topic start after this epoch, on the trained document embeddings (0: never)")
	fs.Float64Var(&o.SimilarityTrack, "similarity-track", o.SimilarityTrack, "with --topic-init fit: rate at which σ's r and t follow the documents' spread after every step (0: fixed at the initial calibration)")
	fs.BoolVar(&o.MaskTargets, "mask-targets", o.MaskTargets, "hide each training batch's target links from the neighbours and hop features of their ends, as held-out links are at test time")
	fs.StringVar((*string)(&o.Nesting), "nesting", string(o.Nesting), "neighbour encoding: full (neighbours encoded in the same pass) or cache (historical [CLS], refreshed every epoch)")
	fs.StringVar((*string)(&o.Select), "select", string(o.Select), "the state kept after training: best (highest validation score, the mean of kNN Micro-F1 and link AUC) or last")
	fs.IntVar(&o.StepsPerEpoch, "steps-per-epoch", o.StepsPerEpoch, "steps per epoch, each of --batch links drawn from successive shuffles of the training links (0: one pass over the training links); for large graphs")
	fs.IntVar(&o.SampleDocs, "sample-docs", o.SampleDocs, "at most this many training and this many validation documents (evenly spaced) are read by the topic start, validation and tree growth (0: all)")
	fs.IntVar(&o.ValidEvery, "valid-every", o.ValidEvery, "epochs between validations")
	fs.BoolVar(&o.ValidateStart, "validate-start", o.ValidateStart, "also score the start (before the first step) on validation, as epoch 0 of the learning curve")
	fs.IntVar(&o.GrowEvery, "grow-every", o.GrowEvery, "epochs between tree growth/pruning steps")
	fs.IntVar(&c.Width, "width", c.Width, "model width n (hyperbolic dimension)")
	fs.IntVar(&c.Layers, "layers", c.Layers, "transformer layers L (layer 1 plain, 2..L nested)")
	fs.IntVar(&c.Heads, "heads", c.Heads, "attention heads")
	fs.IntVar(&c.MLPHidden, "mlp", c.MLPHidden, "feed-forward width")
	fs.IntVar(&c.MaxLen, "max-len", c.MaxLen, "word tokens kept per document")
	fs.StringVar((*string)(&c.Truncate), "truncate", string(c.Truncate), "which words a long document keeps: head or tfidf")
	fs.Var(float32Value{&c.Dropout}, "dropout", "dropout rate, a `float` in [0, 1)")
	fs.StringVar((*string)(&c.Geometry), "geometry", string(c.Geometry), "hyperbolic or euclidean (ablation)")
	fs.Float64Var(&c.Curvature, "curvature", c.Curvature, "K: the hyperboloid has curvature −1/K")
	fs.Var(float32Value{&c.InitScale}, "init-scale", "initial scale s before exp_o, a `float` (0: 1/√width, so documents start at distance ≈ 1 from the origin)")
	fs.StringVar((*string)(&c.Features), "features", string(c.Features), "[CLS] start: tfidf (projection of the document's tf-idf vector) or none")
	fs.IntVar(&c.FeatureHops, "feature-hops", c.FeatureHops, "graph-propagated [CLS] features: the document's latent-semantic tf-idf averaged over 0..K hops of its links (0: none)")
	fs.IntVar(&c.FeatureDim, "feature-dim", c.FeatureDim, "dimensions of the latent semantic basis of --feature-hops (0: the width)")
	fs.BoolVar(&c.FeatureSkip, "feature-skip", c.FeatureSkip, "add the propagated features to the final embedding too (the encoder learns a correction)")
	fs.Var(skipGateFlag{&c.SkipGate}, "skip-gate", "with --feature-skip: initial gate on the encoder's path in the final embedding (0: documents start where their propagated features put them; default 1)")
	fs.StringVar((*string)(&c.Tree.Mode), "tree", string(c.Tree.Mode), "topic tree: grow (grow and prune), fixed, or flat")
	fs.IntVar(&c.Tree.InitDepth, "tree-depth", c.Tree.InitDepth, "levels of the initial tree")
	fs.IntVar(&c.Tree.Branching, "tree-branching", c.Tree.Branching, "children per topic in the initial tree")
	fs.IntVar(&c.Tree.MaxDepth, "max-depth", c.Tree.MaxDepth, "levels the tree may reach")
	fs.IntVar(&c.Tree.MaxChildren, "max-children", c.Tree.MaxChildren, "children a topic may reach")
	fs.Float64Var(&c.Tree.SAdd, "s-add", c.Tree.SAdd, "share above which a non-leaf topic gets a new child")
	fs.Float64Var(&c.Tree.SPrune, "s-prune", c.Tree.SPrune, "subtree share below which a topic is pruned")
	fs.Float64Var(&c.Tree.FDRadius, "fd-radius", c.Tree.FDRadius, "r in the document-topic similarity σ = 1/(1+exp((d² − r)/t)) (0: the paper's form, σ ≤ 1/2; HGCN uses 2; --topic-init fit sets it from the data)")
	fs.Float64Var(&c.Tree.FDTemp, "fd-temp", 1, "t in the document-topic similarity σ = 1/(1+exp((d² − r)/t)) (1: the paper's form; 0 also means 1; --topic-init fit sets it from the data)")
	fs.Float64Var(&c.Tree.FDContrast, "fd-contrast", c.Tree.FDContrast, "with --topic-init fit: the similarity σ that the calibration of r and t gives a document at the typical distance from its own leaf (1 − σ from the others); higher commits documents more sharply to one path (0: 0.95)")
	fs.StringVar((*string)(&c.Tree.PruneBy), "prune-by", string(c.Tree.PruneBy), "what growth compares with --s-prune: subtree (the topic's and its descendants' share of the words, the paper) or path (the share of the words whose document's path runs through the topic)")
	fs.Float64Var(&c.Tree.Tau, "tau", c.Tree.Tau, "depth temperature base τ: topic t's word distribution is softmax(U·log_o z_t / τ^(1/(level+1))), flattest at the root")
	fs.BoolVar(&c.Tree.KeepDepth, "keep-depth", c.Tree.KeepDepth, "growth keeps every path at the tree's depth: new topics only under the leaves' parents, and pruning keeps each kept topic's largest child")
	fs.Var((*backgroundFlag)(&c.Tree), "background", "the decoder's background: the corpus's word frequencies added to the logits of the levels --background-levels weights (default: the root alone, whose topic becomes the general words); --background=false turns it off")
	fs.Var(levelsFlag{&c.Tree}, "background-levels", "with the decoder's background: its weight per level, root first, comma-separated (levels past the list: 0); e.g. 1,0,0 for a background at the root alone (sets --background)")
	fs.BoolVar(&c.Tree.GrowLeaves, "grow-leaves", false, "let leaves grow children (deepens the tree; not in the paper)")
	fs.BoolVar(&c.NoTree, "no-tree-embedding", false, "ablation: layers 2..L do not see the tree embedding e_i")
	fs.BoolVar(&c.NoGraph, "no-graph-embedding", false, "ablation: layers 2..L do not see the graph embedding g_i")
	fs.Float64Var(&c.LambdaTopic, "lambda-topic", c.LambdaTopic, "weight of the topic reconstruction loss")
	fs.Float64Var(&c.LambdaSup, "lambda-sup", c.LambdaSup, "weight of the supervised loss")
	fs.Float64Var(&c.LambdaDiv, "lambda-div", c.LambdaDiv, "weight of the topics' overlap: mean cosine similarity of the word distributions of parent-child and sibling pairs (0: none)")
	fs.Float64Var(&c.LambdaBranch, "lambda-branch", c.LambdaBranch, "weight of the branch prior: mean over sibling groups of KL(uniform ‖ children's shares of the subtree mass), which keeps every child of a topic in use (0: none)")
	fs.Float64Var(&c.LambdaLevel, "lambda-level", c.LambdaLevel, "weight of the level prior KL(uniform ‖ mean mass per level), which keeps every level of the tree in use (0: none)")
	fs.IntVar(&c.Neighbors, "neighbors", c.Neighbors, "sampled neighbours per document (k)")
	fs.IntVar(&c.Hops, "hops", max(c.Hops, 1), "graph hops the graph embedding reaches: 1 (the paper: neighbours enter through their own text) or 2 (neighbours nested over their own neighbours, from the cache; needs --nesting cache)")
	fs.BoolVar(&f.glove, "glove", true, "initialise word rows from the corpus's word vectors (word_embeddings_glove_300d.txt) when it has them")
}

// skipGateFlag is --skip-gate: the gate's start behind a pointer (nil:
// not given, the model's 1). Its String gives the value back, so that
// --resume can compare it with the checkpoint's.
type skipGateFlag struct{ p **float32 }

func (v skipGateFlag) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return strconv.FormatFloat(float64(**v.p), 'g', -1, 32)
}

func (v skipGateFlag) Set(s string) error {
	var x float64
	if _, err := fmt.Sscan(s, &x); err != nil {
		return err
	}
	g := float32(x)
	*v.p = &g
	return nil
}

// levelsFlag is --background-levels: the background's weight per level,
// which turns the background on.
type levelsFlag struct{ t *model.TreeConfig }

func (v levelsFlag) String() string {
	if v.t == nil {
		return ""
	}
	parts := make([]string, len(v.t.BackgroundLevels))
	for i, w := range v.t.BackgroundLevels {
		parts[i] = strconv.FormatFloat(w, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (v levelsFlag) Set(s string) error {
	ws, err := parseFloatList(s, false)
	if err != nil {
		return err
	}
	v.t.Background, v.t.BackgroundLevels = true, ws
	return nil
}

// backgroundFlag is --background: a boolean that also drops the level
// weights when it turns the background off (they need it).
type backgroundFlag model.TreeConfig

func (b *backgroundFlag) IsBoolFlag() bool { return true }

func (b *backgroundFlag) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(b.Background)
}

func (b *backgroundFlag) Set(v string) error {
	on, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	b.Background = on
	if !on {
		b.BackgroundLevels = nil
	}
	return nil
}

// builtinProfile shrinks the defaults for the built-in corpus (1,500 short
// documents over 600 words), so that `gtformer train` with no flags finishes
// in about a minute on 2 cores; flags given explicitly keep their values.
func (f *modelFlags) builtinProfile(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	apply := func(name string, dst *int, v int) {
		if !set[name] {
			*dst = v
		}
	}
	apply("width", &f.cfg.Width, 64)
	apply("layers", &f.cfg.Layers, 2)
	apply("heads", &f.cfg.Heads, 2)
	apply("mlp", &f.cfg.MLPHidden, 128)
	apply("max-len", &f.cfg.MaxLen, 64)
	apply("epochs", &f.opt.Epochs, 6)
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	var mf modelFlags
	fs := newFlagSet("train", "[--data PATH] [--out DIR] [--seed N] [--supervised] [flags]", stderr)
	d.register(fs)
	mf.register(fs)
	out := fs.String("out", "gtformer-out", "output `DIR`: topics.json, topics.txt, doc_embeddings.npy, doc_topics.npy, metrics.json, weights, checkpoint/")
	resume := fs.Bool("resume", false, "continue from DIR/checkpoint: give the same --data and corpus flags; flags that change the numbers may be left out (the run's are used) but not changed, except --epochs")
	quiet := fs.Bool("quiet", false, "no progress bar, only the result")
	queries := evalQueriesFlag(fs, "--seed")
	var mem memProfile
	fs.StringVar(&mem.path, "memprofile", "", "write a Go heap profile (pprof) to `FILE` when the phase --memprofile-phase ends: what the run holds then (inuse_space) and every allocation since the start by call site (alloc_space)")
	fs.StringVar(&mem.phase, "memprofile-phase", "features", "the `PHASE` at whose end --memprofile is written (a name from the phases line: load, tf-idf, features, topic start, steps, final embedding, ...)")
	validOnly := fs.Bool("valid-only", false, "never read the test split: after training, write valid.json (the learning curve, the kept epoch's validation metrics and the topics' quality on the training documents) and topics.txt, and nothing else; for choosing settings")
	describe(fs, stderr, "[--data PATH] [--out DIR] [--seed N] [--supervised] [flags]", `
Trains GTFormer: a topic tree embedded by a hyperbolic doubly-recurrent
network, hyperbolic graph attention, and a transformer that sees both in
every layer. With no --data it trains on the built-in synthetic corpus.
Prints the learned topic tree and the test metrics; writes the outputs to
--out, and a checkpoint after every epoch to --out/checkpoint. Ctrl-C
(SIGINT) or SIGTERM finishes the current step, writes a checkpoint, prints
the command that continues the run, and exits 130 (143 for SIGTERM).`)
	if err := parseFlags(fs, args); err != nil {
		return err
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
	if mem.path != "" {
		// Found before training, not after it.
		if err := atomicfile.Check(mem.path); err != nil {
			return usagef("--memprofile: %v", err)
		}
		if fi, err := os.Stat(filepath.Dir(mem.path)); err != nil || !fi.IsDir() {
			return usagef("--memprofile %s: its folder %s does not exist", mem.path, filepath.Dir(mem.path))
		}
	}
	cfg, opt := mf.cfg, mf.opt
	if err := opt.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := opt.CheckModel(&cfg); err != nil {
		return usagef("%v", err)
	}
	ph := phases.New()
	env := train.Env{Phases: ph}
	mem.watch(ph)
	stop := ph.Start("load")
	g, err := d.load()
	stop()
	if err != nil {
		return err
	}
	stop = ph.Start("split and sampler")
	s := d.makeSplit(g)
	env.Corpus = d.fingerprint(g, s)
	stop()
	cfg.Vocab = len(g.Vocab)
	cfg.NumLabels = g.NumLabels()
	if cfg.Supervised && g.Labels == nil {
		return usagef("--supervised needs labels, and %s has none", d.source())
	}
	if cfg.Vocab < 2 {
		// Found before training: one word makes every topic the same and
		// the topic metrics undefined.
		return usagef("%s has a vocabulary of %d word (--min-df %d, --max-df %g, --max-vocab %d for JSON Lines): a topic model needs at least 2", d.source(), cfg.Vocab, d.minDF, d.maxDF, d.maxVocab)
	}
	log := stderr
	if *quiet {
		log = io.Discard
	} else {
		env.Progress = stderr
	}
	env.Log = log
	env.Checkpoint = filepath.Join(*out, "checkpoint")
	var tr *train.Trainer
	if *resume {
		tr, err = train.Resume(env.Checkpoint, g, s, env)
		if err != nil {
			return resumeError(err)
		}
		if err := checkResumeFlags(fs, tr, log); err != nil {
			return err
		}
		fmt.Fprintf(log, "resuming %s after step %d (epoch %d of %d done)\n", env.Checkpoint, tr.State.Step, tr.State.Epoch, tr.Opt.Epochs)
	} else {
		m, err := model.New(cfg, opt.Seed)
		if err != nil {
			return usagef("%v", err)
		}
		gloveSet := false
		fs.Visit(func(fl *flag.Flag) { gloveSet = gloveSet || fl.Name == "glove" })
		if mf.glove && g.WordVectors == nil && gloveSet {
			return usagef("--glove: %s has no word vectors", d.source())
		}
		if mf.glove && g.WordVectors != nil {
			if err := m.InitWordVectors(g.WordVectors, g.WordDim, opt.Seed); err != nil {
				return err
			}
		}
		tr, err = train.New(m, g, s, opt, env)
		if err != nil {
			return err
		}
	}
	if !*quiet {
		tr.Model.Progress = stderr
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "training on %s: %d documents, %d training links (%d validation documents and their links held out), %s BLAS: %s\n", d.source(), g.NumDocs(), len(tr.H.TrainLinks), len(s.Valid), tensor.BLASName(), tensor.BLASSource())
	began := time.Now()
	stopSignals, signalled := watchSignals(tr, stderr)
	err = tr.Run()
	stopSignals()
	var stopped *train.Interrupted
	if errors.As(err, &stopped) {
		return interrupted(stopped, signalled(), args)
	}
	if err != nil {
		return err
	}
	secs := time.Since(began).Seconds()
	if *validOnly {
		if err := writeValidOnly(*out, stdout, tr, g, datasetName(g.Name, d.path), trainSeconds(tr.History, secs)); err != nil {
			return err
		}
		if err := mem.finish(ph, log); err != nil {
			return err
		}
		return removeStale(*out, []string{outputs.ValidFile, outputs.TopicsTextFile}, log)
	}
	res := evaluate.Run(tr.Model, g, s, tr.In, evaluate.Options{MaxNbrs: opt.MaxNbrs, EmbedBatch: opt.EmbedBatch, Phases: ph, Planted: d.planted(),
		Queries: nq, Seed: tr.Opt.Seed})
	var dps float64
	if n := len(tr.History); n > 0 {
		dps = tr.History[n-1].DocsPerSec
	}
	met := outputs.Metrics{
		Dataset: datasetName(g.Name, d.path), Seed: opt.Seed, Supervised: cfg.Supervised,
		TrainSeconds: trainSeconds(tr.History, secs), Epochs: tr.State.Epoch,
		BLAS: tensor.BLASName(), DocsPerSec: dps,
	}
	met.KeptEpoch, met.Valid = tr.Kept()
	stop = ph.Start("outputs")
	err = outputs.Write(*out, tr.Model, opt.Seed, g, tr.In, res, met)
	stop()
	if err != nil {
		return err
	}
	stop = ph.Start("plots")
	written := slices.Clone(outputs.WriteFiles)
	drew, err := drawCurves(*out, fmt.Sprintf("%s, seed %d", met.Dataset, opt.Seed), tr.History)
	if err != nil {
		return err
	}
	if drew {
		written = append(written, "curves.png", "curves.svg")
	}
	drew, err = writeMap(*out, fmt.Sprintf("%s test documents (t-SNE of log_o d), seed %d", met.Dataset, opt.Seed), g, s, res.Emb, opt.Seed)
	stop()
	if err != nil {
		return err
	}
	if drew {
		written = append(written, "map.png", "map.svg")
	}
	// metrics.json again, now with every phase's time (outputs and plots
	// included).
	met.Test, met.Topics = res.Test, res.Topics
	met.Phases = ph.Seconds()
	if err := outputs.WriteMetrics(filepath.Join(*out, outputs.MetricsFile), met); err != nil {
		return err
	}
	if err := removeStale(*out, written, log); err != nil {
		return err
	}
	if err := mem.finish(ph, log); err != nil {
		return err
	}
	ph.Print(log)
	if err := outputs.WriteTopicsText(stdout, outputs.Topics(tr.Model, g, res.Emb.Theta, tr.In.Len), outputs.TextOptions{}); err != nil {
		return err
	}
	printMetrics(stdout, res, tr.Model)
	fmt.Fprintf(stdout, "outputs in %s (%.0f s of training)\n", *out, secs)
	return nil
}

// removeStale removes from dir an earlier run's files that this run, which
// wrote written, did not write: they would sit beside its outputs as if
// they were its own.
func removeStale(dir string, written []string, log io.Writer) error {
	removed, err := outputs.RemoveStale(dir, written)
	if len(removed) > 0 {
		fmt.Fprintf(log, "removed %s of an earlier run from %s\n", strings.Join(removed, ", "), dir)
	}
	return err
}

// trainSeconds sums the epochs' times (across resumed sessions).
func trainSeconds(h []train.EpochLog, fallback float64) float64 {
	var s float64
	for _, e := range h {
		s += e.Seconds
	}
	if s == 0 {
		return fallback
	}
	return s
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

// ValidReport is valid.json: what a --valid-only run measured, without
// reading the test split.
type ValidReport struct {
	Dataset      string           `json:"dataset"`
	Seed         uint64           `json:"seed"`
	TrainSeconds float64          `json:"train_seconds"`
	Epochs       int              `json:"epochs"`
	KeptEpoch    int              `json:"kept_epoch"`
	Valid        *evaluate.Test   `json:"valid,omitempty"`
	Topics       evaluate.Topics  `json:"topics"`
	History      []train.EpochLog `json:"history"`
	Config       model.Config     `json:"config"`
	Options      train.Options    `json:"options"`
	// Notes name the metrics that are undefined for this corpus and
	// model, written as null.
	Notes []string `json:"notes,omitempty"`
}

// writeValidOnly writes valid.json and topics.txt of a --valid-only run: the
// topics' quality is measured on the training documents outside validation
// (the holdout's), and nothing reads the test documents.
func writeValidOnly(dir string, stdout io.Writer, tr *train.Trainer, g *corpus.Graph, name string, secs float64) error {
	emb := tr.HoldoutEmbeddings()
	rep := ValidReport{Dataset: name, Seed: tr.Opt.Seed, TrainSeconds: secs, Epochs: tr.State.Epoch,
		History: tr.History, Config: tr.Model.Cfg, Options: tr.Opt}
	rep.KeptEpoch, rep.Valid = tr.Kept()
	rep.Topics = evaluate.TopicQuality(tr.Model, g, tr.H, emb, tr.In.Len)
	notes, err := outputs.UndefinedNotes(rep)
	if err != nil {
		return fmt.Errorf("%s: %w", outputs.ValidFile, err)
	}
	rep.Notes = notes
	if err := outputs.WriteJSON(filepath.Join(dir, outputs.ValidFile), rep); err != nil {
		return err
	}
	theta := make([]float32, 0, len(tr.H.Train)*emb.Topics)
	lens := make([]int, 0, len(tr.H.Train))
	for _, d := range tr.H.Train {
		theta = append(theta, emb.Theta[int(d)*emb.Topics:int(d+1)*emb.Topics]...)
		lens = append(lens, tr.In.Len[d])
	}
	topics := outputs.Topics(tr.Model, g, theta, lens)
	if err := atomicfile.WriteFile(filepath.Join(dir, outputs.TopicsTextFile), func(w io.Writer) error {
		return outputs.WriteTopicsText(w, topics, outputs.TextOptions{})
	}); err != nil {
		return err
	}
	if err := outputs.WriteTopicsText(stdout, topics, outputs.TextOptions{}); err != nil {
		return err
	}
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	if v := rep.Valid; v != nil {
		fmt.Fprintf(stdout, "\nvalidation (kept epoch %d): kNN Micro-F1 %s  Macro-F1 %s  link AUC %s  log-perplexity %s\n",
			rep.KeptEpoch, f(v.KNNMicroF1), f(v.KNNMacroF1), f(v.LinkAUC), f(v.LogPerplexity))
	}
	tq := rep.Topics
	fmt.Fprintf(stdout, "topics: %d in %d levels  NPMI %.3f (%s)  diversity %.3f  level share %.2f  specialization %.2f%s\n",
		tq.Count, tq.Depth, tq.NPMI, tq.NPMIRef, tq.Diversity, tq.LevelShare, tq.Specialization, mixNote(tr.Model))
	fmt.Fprintf(stdout, "outputs in %s (valid.json, topics.txt; the test split was not read)\n", dir)
	return nil
}

// parseFloatList reads a comma-separated list of finite numbers (spaces
// around each allowed), all positive when positive is set.
func parseFloatList(v string, positive bool) ([]float64, error) {
	var ws []float64
	for _, f := range strings.Split(v, ",") {
		w, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		switch {
		case err != nil || math.IsNaN(w) || math.IsInf(w, 0):
			return nil, fmt.Errorf("%q is not a finite number", f)
		case positive && !(w > 0):
			return nil, fmt.Errorf("%q is not a positive finite number", f)
		}
		ws = append(ws, w)
	}
	return ws, nil
}
