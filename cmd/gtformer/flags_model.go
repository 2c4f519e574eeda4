package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/preset"
	"github.com/gtformer/gtformer/train"
)

// modelFlags are the architecture and training flags shared by train and
// experiment.
type modelFlags struct {
	cfg   model.Config
	opt   train.Options
	glove bool
}

// register adds the flags with the default preset's values.
func (f *modelFlags) register(fs *flag.FlagSet) { f.registerFrom(fs, preset.DefaultSettings()) }

// registerFrom adds the flags with the values of s: a preset's settings,
// which the flags given then override.
func (f *modelFlags) registerFrom(fs *flag.FlagSet, s preset.Settings) {
	f.cfg, f.opt = s.Config, s.Options
	c, o := &f.cfg, &f.opt
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed (same seed and data, same numbers)")
	fs.BoolVar(&c.Supervised, "supervised", c.Supervised, "add the supervised head (cross-entropy on training labels)")
	fs.IntVar(&o.Epochs, "epochs", o.Epochs, "training epochs")
	fs.IntVar(&o.BatchLinks, "batch", o.BatchLinks, "training links per step (their ends are the batch's documents)")
	fs.Float64Var(&o.LR, "lr", o.LR, "peak learning rate (AdamW, warm-up then cosine decay)")
	fs.Float64Var(&o.DecoderLRScale, "decoder-lr-scale", o.DecoderLRScale, "learning-rate multiplier for the topic decoder's word rows U")
	fs.IntVar(&o.Warmup, "warmup", o.Warmup, "warm-up steps")
	fs.Float64Var(&o.WeightDecay, "weight-decay", o.WeightDecay, "AdamW weight decay")
	fs.StringVar((*string)(&o.TopicInit), "topic-init", string(o.TopicInit),
		"topic start: fit (kmeans, then σ's r and t calibrated to the documents' distances and a decoder warm-up; "+
			"overrides --fd-radius and --fd-temp), kmeans (topics at a hierarchical clustering of the documents' "+
			"initial embeddings) or random (the paper)")
	fs.IntVar(&o.TopicWarmup, "topic-warmup", o.TopicWarmup, "decoder-only steps of --topic-init fit")
	fs.BoolVar(&o.FinalPrune, "final-prune", o.FinalPrune, "end a growing tree's training with a tree update that prunes as growth does and adds nothing")
	fs.Float64Var(&o.FinalPruneBelow, "final-prune-below", o.FinalPruneBelow,
		"end a growing tree's training by removing every topic whose subtree holds less than this share of the "+
			"training words, before the end-of-training fits (0: none)")
	fs.Float64Var(&o.BackgroundMixAtEnd, "background-mix-at-end", o.BackgroundMixAtEnd,
		"when training ends, before the similarity fit and the decoder refit, make the background a mixture "+
			"component of every document's words at this fixed weight λ in [0,1) (0: off)")
	fs.IntVar(&o.DecoderRefit, "decoder-refit", o.DecoderRefit, "end training with this many decoder-only steps on the final document embeddings (0: none)")
	fs.Var(&o.FitSimilarity, "fit-similarity",
		"end training by fitting σ's r and t to the training documents' words: shared (one r and t for paths and "+
			"levels), levels (the level σ gets its own) or none")
	fs.IntVar(&o.TopicRefit, "topic-refit", o.TopicRefit, "redo the topic start after this epoch, on the trained document embeddings (0: never)")
	fs.Float64Var(&o.SimilarityTrack, "similarity-track", o.SimilarityTrack, "with --topic-init fit: rate at which σ's r and t follow the documents' spread (0: fixed)")
	fs.BoolVar(&o.MaskTargets, "mask-targets", o.MaskTargets, "hide each batch's target links from their ends' neighbours and hop features, as at test time")
	fs.StringVar((*string)(&o.Nesting), "nesting", string(o.Nesting), "neighbour encoding: full (in the same pass) or cache (historical [CLS], refreshed every epoch)")
	fs.StringVar((*string)(&o.Select), "select", string(o.Select), "state kept after training: best (highest validation score: mean of kNN Micro-F1 and link AUC) or last")
	fs.IntVar(&o.StepsPerEpoch, "steps-per-epoch", o.StepsPerEpoch, "steps per epoch, drawn from successive shuffles of the training links "+
		"(0: one pass, or on a large graph ⌈c·T^(1/3)⌉ for T training links if fewer; c: the preset's, --steps-root)")
	fs.Float64Var(&o.StepsRoot, "steps-root", o.StepsRoot, "c of --steps-per-epoch 0's cap ⌈c·T^(1/3)⌉ steps an epoch (0: one pass however large the graph)")
	fs.DurationVar(&o.Budget, "budget", o.Budget, "wall `time` the whole run should take, such as 30m: the steps per epoch are set from a timed probe of a few "+
		"steps and a validation (0: none)")
	fs.IntVar(&o.SampleDocs, "sample-docs", o.SampleDocs, "at most this many training and validation documents are read by the topic start, validation and growth (0: all)")
	fs.IntVar(&o.ValidEvery, "valid-every", o.ValidEvery, "epochs between validations")
	fs.BoolVar(&o.ValidateStart, "validate-start", o.ValidateStart, "also score the start on validation, as epoch 0 of the learning curve")
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
	fs.Var(float32Value{&c.InitScale}, "init-scale", "initial scale s before exp_o, a `float` (0: 1/√width, documents start at distance ≈ 1 from the origin)")
	fs.StringVar((*string)(&c.Features), "features", string(c.Features), "[CLS] start: tfidf (projection of the document's tf-idf vector) or none")
	fs.IntVar(&c.FeatureHops, "feature-hops", c.FeatureHops, "[CLS] features: the document's latent-semantic tf-idf averaged over 0..K hops of its links (0: none)")
	fs.IntVar(&c.FeatureDim, "feature-dim", c.FeatureDim, "dimensions of the latent semantic basis of --feature-hops (0: the width)")
	fs.BoolVar(&c.FeatureSkip, "feature-skip", c.FeatureSkip, "add the propagated features to the final embedding too (the encoder learns a correction)")
	fs.Var(skipGateFlag{&c.SkipGate}, "skip-gate", "with --feature-skip: initial gate on the encoder's path in the final embedding (0: the features alone; default 1)")
	fs.StringVar((*string)(&c.Tree.Mode), "tree", string(c.Tree.Mode), "topic tree: grow (grow and prune), fixed, or flat")
	fs.IntVar(&c.Tree.InitDepth, "tree-depth", c.Tree.InitDepth, "levels of the initial tree")
	fs.IntVar(&c.Tree.Branching, "tree-branching", c.Tree.Branching, "children per topic in the initial tree")
	fs.IntVar(&c.Tree.MaxDepth, "max-depth", c.Tree.MaxDepth, "levels the tree may reach")
	fs.IntVar(&c.Tree.MaxChildren, "max-children", c.Tree.MaxChildren, "children a topic may reach")
	fs.Float64Var(&c.Tree.SAdd, "s-add", c.Tree.SAdd, "share above which a non-leaf topic gets a new child")
	fs.Float64Var(&c.Tree.SPrune, "s-prune", c.Tree.SPrune, "subtree share below which a topic is pruned")
	fs.Float64Var(&c.Tree.FDRadius, "fd-radius", c.Tree.FDRadius, "r in the document-topic similarity σ = 1/(1+exp((d² − r)/t)) (0: the paper's form; --topic-init fit sets it)")
	fs.Float64Var(&c.Tree.FDTemp, "fd-temp", c.Tree.FDTemp, "t in the document-topic similarity σ (1: the paper's form; 0 also means 1; --topic-init fit sets it)")
	fs.Float64Var(&c.Tree.FDContrast, "fd-contrast", c.Tree.FDContrast, "with --topic-init fit: σ that the calibration gives a document at the typical distance from its leaf (0: 0.95)")
	fs.StringVar((*string)(&c.Tree.PruneBy), "prune-by", string(c.Tree.PruneBy),
		"what growth compares with --s-prune: subtree (the topic's subtree share of the words, the paper) or path "+
			"(the share of the words whose document's path runs through the topic)")
	fs.Float64Var(&c.Tree.Tau, "tau", c.Tree.Tau, "depth temperature base τ: topic t's words are softmax(U·log_o z_t / τ^(1/(level+1))), flattest at the root")
	fs.BoolVar(&c.Tree.KeepDepth, "keep-depth", c.Tree.KeepDepth, "growth keeps every path at the tree's depth (new topics under the leaves' parents; pruning keeps a child)")
	fs.Var((*backgroundFlag)(&c.Tree), "background", "the decoder's background: the corpus's word frequencies added to the logits of the levels --background-levels weights")
	fs.Var(levelsFlag{&c.Tree}, "background-levels", "the background's weight per level, root first, comma-separated (levels past the list: 0); sets --background")
	fs.BoolVar(&c.Tree.GrowLeaves, "grow-leaves", c.Tree.GrowLeaves, "let leaves grow children (deepens the tree; not in the paper)")
	fs.BoolVar(&c.NoTree, "no-tree-embedding", c.NoTree, "ablation: layers 2..L do not see the tree embedding e_i")
	fs.BoolVar(&c.NoGraph, "no-graph-embedding", c.NoGraph, "ablation: layers 2..L do not see the graph embedding g_i")
	fs.Float64Var(&c.LambdaTopic, "lambda-topic", c.LambdaTopic, "weight of the topic reconstruction loss")
	fs.Float64Var(&c.LambdaSup, "lambda-sup", c.LambdaSup, "weight of the supervised loss")
	fs.Float64Var(&c.LambdaDiv, "lambda-div", c.LambdaDiv, "weight of the topics' overlap: mean cosine similarity of parent-child and sibling word distributions (0: none)")
	fs.Float64Var(&c.LambdaBranch, "lambda-branch", c.LambdaBranch, "weight of the branch prior KL(uniform ‖ children's shares), which keeps every child in use (0: none)")
	fs.Float64Var(&c.LambdaLevel, "lambda-level", c.LambdaLevel, "weight of the level prior KL(uniform ‖ mean mass per level), which keeps every level in use (0: none)")
	fs.IntVar(&c.Neighbors, "neighbors", c.Neighbors, "sampled neighbours per document (k)")
	fs.IntVar(&c.Hops, "hops", c.Hops, "graph hops of the graph embedding: 1 (the paper) or 2 (neighbours nested over theirs; needs --nesting cache)")
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

// builtinProfile shrinks the settings to the built-in corpus's size
// (preset.Settings.Builtin); flags given explicitly keep their values.
func (f *modelFlags) builtinProfile(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	small := preset.Settings{Config: f.cfg, Options: f.opt}
	small.Builtin()
	apply := func(name string, dst *int, v int) {
		if !set[name] {
			*dst = v
		}
	}
	apply("width", &f.cfg.Width, small.Config.Width)
	apply("layers", &f.cfg.Layers, small.Config.Layers)
	apply("heads", &f.cfg.Heads, small.Config.Heads)
	apply("mlp", &f.cfg.MLPHidden, small.Config.MLPHidden)
	apply("max-len", &f.cfg.MaxLen, small.Config.MaxLen)
	apply("epochs", &f.opt.Epochs, small.Options.Epochs)
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

// presetFlag registers --preset, the settings the other flags start from.
func presetFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "preset", string(preset.Default),
		"the settings the other flags start from: default (the paper's method with the choices validation adopted) "+
			"or paper (the paper's configuration)")
}

// parseWithPreset parses args into the flag set that build makes from a
// preset's settings (build returns it and where --preset lands): first,
// silently, from the default preset to read --preset; then again from the
// preset it names, so that the flags given override that preset's values
// and -h shows them as the defaults.
func parseWithPreset(args []string, build func(s preset.Settings) (*flag.FlagSet, *string)) (*flag.FlagSet, error) {
	probe, name := build(preset.DefaultSettings())
	probe.SetOutput(io.Discard)
	probe.Usage = func() {}
	s := preset.DefaultSettings()
	if probe.Parse(args) == nil {
		if p, err := preset.Get(preset.Name(*name)); err == nil {
			s = p
		}
	}
	fs, name := build(s)
	if err := parseFlags(fs, args); err != nil {
		return fs, err
	}
	if _, err := preset.Get(preset.Name(*name)); err != nil {
		return fs, usagef("--preset: %v", err)
	}
	return fs, nil
}

// modelGroups are the hidden groups of modelFlags's flags (and the data
// flags beside them), less those a command shows in its visible groups.
func modelGroups(shown []flagGroup) []flagGroup {
	all := []flagGroup{
		{title: "data, further settings", hidden: true, flags: []string{"knn-k", "knn-budget", "min-df", "max-df", "max-vocab", "split", "split-seed", "glove"}},
		{title: "training", hidden: true, flags: []string{"batch", "lr", "decoder-lr-scale", "warmup", "weight-decay", "nesting", "mask-targets",
			"select", "valid-every", "validate-start", "steps-per-epoch", "steps-root", "budget"}},
		{title: "model", hidden: true, flags: []string{"width", "layers", "heads", "mlp", "max-len", "truncate", "dropout", "curvature", "init-scale",
			"features", "feature-hops", "feature-dim", "feature-skip", "skip-gate", "neighbors", "hops"}},
		{title: "topic tree", hidden: true, flags: []string{"tree-depth", "tree-branching", "max-depth", "max-children", "grow-every", "s-add", "s-prune",
			"prune-by", "keep-depth", "grow-leaves", "tau", "fd-radius", "fd-temp", "fd-contrast", "background", "background-levels"}},
		{title: "losses", hidden: true, flags: []string{"lambda-topic", "lambda-sup", "lambda-div", "lambda-branch", "lambda-level"}},
		{title: "topic start and end of training", hidden: true, flags: []string{"topic-init", "topic-warmup", "topic-refit", "similarity-track",
			"final-prune", "final-prune-below", "background-mix-at-end", "fit-similarity", "decoder-refit"}},
		{title: "research options (the paper's Fig. 3 ablations, stress tests, scale)", hidden: true, flags: []string{"no-tree-embedding",
			"no-graph-embedding", "geometry", "tree", "drop-links", "cut-words", "sample-docs"}},
	}
	seen := map[string]bool{}
	for _, g := range shown {
		for _, n := range g.flags {
			seen[n] = true
		}
	}
	var out []flagGroup
	for _, g := range all {
		var names []string
		for _, n := range g.flags {
			if !seen[n] {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			out = append(out, flagGroup{title: g.title, hidden: g.hidden, flags: names})
		}
	}
	return append(slices.Clone(shown), out...)
}
