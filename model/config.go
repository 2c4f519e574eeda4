// Package model holds the GTFormer network: token and feature embeddings, the
// plain first transformer layer, the nested layers 2..L that attend to a
// document's tree embedding e_i and graph embedding g_i, the topic tree with
// its Hyperbolic Doubly-RNN, the level RNN and stick-breaking, the topic-word
// decoder, and the losses (topic reconstruction, graph contrastive,
// supervised).
//
// Data flow of one forward pass (B centre documents, k sampled neighbours,
// n the width, T topics, V vocabulary):
//
//	tokens (B,1+len) ─► embed ─► layer 1 ─► H¹ (B,1+len,n)
//	for l = 1..L-1:
//	    d⁽ˡ⁾ = s·H⁽ˡ⁾[CLS]            (B,n) tangent vector at the origin
//	    θ⁽ˡ⁾ = stickbreak(σ(z, exp_o d⁽ˡ⁾))   (B,T); e⁽ˡ⁾ = θ⁽ˡ⁾ · log_o z   (B,n)
//	    g⁽ˡ⁾ = graph attention over the neighbours' own d⁽ˡ⁾            (B,n)
//	    H⁽ˡ⁺¹⁾ = layer l+1 (queries H⁽ˡ⁾, keys/values [e/s, g/s, H⁽ˡ⁾])
//	d = exp_o(s·H⁽ᴸ⁾[CLS])  (B,n+1) on the hyperboloid ─► losses
//
// The transformer runs on tangent vectors at the origin (docs/design.md,
// "Geometry"): exp_o is
// applied only where a point on the manifold is needed (distances to topics,
// between documents), and log_o(exp_o(v)) = v is never round-tripped.
package model

import (
	"errors"
	"fmt"
	"math"
)

// Config fixes the architecture and the loss weights. It is saved as
// config.json beside the weights, so a model can be rebuilt exactly.
type Config struct {
	Width     int     `json:"width"`      // n: transformer width = tangent dimension
	Layers    int     `json:"layers"`     // L ≥ 1: layer 1 plain, layers 2..L nested
	Heads     int     `json:"heads"`      // attention heads (divides Width)
	MLPHidden int     `json:"mlp_hidden"` // feed-forward width
	MaxLen    int     `json:"max_len"`    // word tokens kept per document (after [CLS])
	Dropout   float32 `json:"dropout"`

	Truncate  Truncate `json:"truncate"`  // which words a long document keeps (TruncateHead, TruncateTFIDF)
	Geometry  Geometry `json:"geometry"`  // Hyperbolic or Euclidean
	Curvature float64  `json:"curvature"` // K: the hyperboloid has curvature −1/K

	// InitScale is the initial value of the learned scale s applied to the
	// post-LN [CLS] before exp_o. A post-LN vector has norm ≈ √n, so s =
	// 1/√n puts documents at distance ≈ 1 from the origin, where
	// Fermi-Dirac and contrastive terms still have gradient.
	InitScale float32 `json:"init_scale"`

	Features Features `json:"features"` // the [CLS] token's start (FeaturesTFIDF, FeaturesNone)

	// FeatureHops, when positive, adds graph-propagated features to the
	// [CLS] start (package features): the document's tf-idf projected on a
	// latent semantic basis of FeatureDim columns (0: the width), averaged
	// over its neighbourhood hop by hop up to FeatureHops hops, the hops
	// mixed by a learned (FeatureHops+1)·FeatureDim × n map. The basis is
	// fitted on the training documents before training (FitFeatures) and
	// saved with the weights.
	FeatureHops int `json:"feature_hops,omitempty"`
	FeatureDim  int `json:"feature_dim,omitempty"`
	// FeatureSkip adds the hop features, through a learned map of their
	// own, to the final tangent vector as well: log_o d = s·[CLS]·Proj +
	// F·Skip, so the document's place starts where its propagated features
	// put it and the encoder learns a correction.
	FeatureSkip bool `json:"feature_skip,omitempty"`
	// SkipGate is the initial value of a learned gate g on the encoder's
	// path when FeatureSkip is set: log_o d = g·s·[CLS]·Proj + F·Skip. At
	// 0 (ReZero, Bachlechner et al., 2021) a document starts exactly where
	// its propagated features put it, so training begins at the
	// training-free embedding and the encoder's contribution grows as the
	// losses ask for it; at 1 the two paths start equal. A pointer so that
	// unset means 1 (configs saved before the gate existed).
	SkipGate *float32 `json:"skip_gate,omitempty"`

	Tree TreeConfig `json:"tree"`

	// NoTree removes the tree embedding e_i from layers 2..L (the topic
	// tree, θ and L_topic stay: they are computed from the final d_i).
	NoTree bool `json:"no_tree"`
	// NoGraph removes the graph embedding g_i from layers 2..L (the graph
	// loss stays: it is the training signal).
	NoGraph bool `json:"no_graph"`

	Neighbors int `json:"neighbors"` // k sampled neighbours per document

	// Hops is how far the graph embedding reaches (0 means 1). With 1 (the
	// paper) a neighbour enters g_i through its own-text [CLS];
	// with 2 a neighbour's [CLS] is itself nested over its own neighbours
	// (read from a cache refreshed from the current weights, no gradient
	// through it), as GraphFormers gives every node of the sampled subgraph
	// its graph token. Needs the cache nesting in training, and three or
	// more layers: the graph token enters at layer 2, so a neighbour's
	// [CLS] after layer 1 (all a two-layer model reads) is its own text's
	// either way.
	Hops int `json:"hops,omitempty"`

	// FoldIn is the number of EM rounds that refine a document's θ against
	// the fixed topics before its words are scored (perplexity), as LDA
	// folds in a document (metrics.FoldIn), started from the encoder's θ;
	// 0 scores the encoder's θ as it is.
	FoldIn int `json:"fold_in,omitempty"`

	LambdaTopic float64 `json:"lambda_topic"`
	// LambdaLevel weighs a prior on the levels: KL(uniform ‖ q̄) with q̄
	// the batch's mean mass per level of the tree (Σ of θ over a level's
	// topics), as hLDA's GEM prior keeps every level in use. 0: none.
	LambdaLevel float64 `json:"lambda_level,omitempty"`
	// LambdaBranch weighs a prior on the branches: the mean over sibling
	// groups of KL(uniform ‖ q̄), q̄ the children's shares of their group's
	// batch-mean subtree mass (Model.branchPrior), so no child is starved
	// by the stick-breaking's order. 0: none.
	LambdaBranch float64 `json:"lambda_branch,omitempty"`
	// LambdaDiv weighs the topics' overlap: the mean cosine similarity of
	// the word distributions β of every parent-child pair and every pair
	// of siblings (Model.overlap). It pushes a child's top words away from
	// those its parent already explains and from its siblings', the
	// parent-child and sibling diversity of hierarchical topic models
	// (TraCo, Wu et al., 2024). 0: none.
	LambdaDiv  float64 `json:"lambda_div,omitempty"`
	LambdaSup  float64 `json:"lambda_sup"` // used when Supervised
	Supervised bool    `json:"supervised"`
	SupHidden  int     `json:"sup_hidden"` // hidden width of the classifier MLP
	NumLabels  int     `json:"num_labels"` // set from the data
	Vocab      int     `json:"vocab"`      // set from the data
}

// TreeConfig shapes the topic tree.
type TreeConfig struct {
	Mode        TreeMode `json:"mode"`         // TreeGrow, TreeFixed or TreeFlat
	InitDepth   int      `json:"init_depth"`   // levels of the initial tree (root = 1 level)
	Branching   int      `json:"branching"`    // children per non-leaf topic initially
	MaxDepth    int      `json:"max_depth"`    // levels the tree may reach
	MaxChildren int      `json:"max_children"` // children a topic may reach
	SAdd        float64  `json:"s_add"`
	SPrune      float64  `json:"s_prune"`
	GrowLeaves  bool     `json:"grow_leaves"` // let leaves grow children (not in the paper)
	Tau         float64  `json:"tau"`         // depth temperature base: τ_t = τ^(1/(level+1))
	// Background adds the training documents' log word frequencies to
	// the topics' decoder logits (Topics.Background), weighted per level by
	// BackgroundLevels.
	Background bool `json:"background,omitempty"`
	// BackgroundLevels weights the background per level, root first; a
	// level past the list takes weight 0, and an empty list (configs saved
	// before it existed) weight 1 everywhere. A root-only background (1, 0,
	// 0) makes the corpus's general words cheap at the root alone, so the
	// data explain them there first and the lower topics need not carry
	// them.
	BackgroundLevels []float64 `json:"background_levels,omitempty"`
	// BackgroundMix, when positive, turns on the background as a separate
	// mixture component of every document's word distribution (the
	// "background topic" of SAGE and Twitter-LDA):
	// p(w|d) = λ·b(w) + (1−λ)·Σ_t θ_dt β_t(w), with b the training
	// documents' smoothed unigram distribution (Topics.Unigram) and
	// λ = sigmoid(ρ) (Topics.Mix), starting at BackgroundMix. train
	// switches it on when training ends (train.Options.BackgroundMixAtEnd).
	// 0: off, p = θβ.
	BackgroundMix float64 `json:"background_mix,omitempty"`
	// FDRadius is r in the similarity σ = 1/(1 + exp((d² − r)/t)) of
	// documents to topics and levels: the Fermi-Dirac decoder of HGCN
	// (Chami et al., 2019). r = 0 (the model's default) is the paper's
	// σ = 1/(1 + exp(d²)), which never exceeds 1/2, so under stick-breaking
	// the last child keeps at least half of every split. A fixed r alone
	// did not help: with r = 4 every document starts within σ ≈ 0.9 of the
	// first child, which then takes everything. What works is r and t
	// measured from the documents (topicfit.Calibrate, train's default
	// topic start) and tracked as they spread (FDTrack); see
	// docs/design.md, "Topic start".
	FDRadius float64 `json:"fd_radius"`
	// FDTemp is t in σ = 1/(1 + exp((d² − r)/t)) (HGCN's temperature);
	// 0 means 1, the paper's form, so configs saved before it existed load
	// unchanged. Both r and t are in squared-distance units and depend on
	// how far apart the documents are, which depends on the corpus and the
	// width: train's topic initialisation "fit" measures them from the
	// documents (topicfit.Calibrate) and stores the result here.
	FDTemp float64 `json:"fd_temp,omitempty"`
	// FDTrack, when positive, makes r and t follow the documents during
	// training: after every step, (r, t) ← (1−μ)(r, t) + μ(r_b, t_b) with
	// μ = FDTrack and (r_b, t_b) the calibration of topicfit.Calibrate on
	// the batch's final document points. The graph loss spreads the
	// documents out as it trains (on ML the median squared distance to the
	// nearest leaf grows several-fold in the first epoch), and a σ fixed at
	// the initial scale then vanishes for every topic, which sends all mass
	// down the last path. 0: r and t stay as they are.
	FDTrack float64 `json:"fd_track,omitempty"`
	// FDContrast is the similarity q that the calibration of r and t
	// (topicfit.Calibrate and Track) gives a document at the typical
	// distance from its own leaf topic; it gives 1 − q at the typical
	// distance from the others. 0 means DefaultContrast. Higher is
	// sharper: the paths' stick-breaking then commits each document to
	// one path.
	FDContrast float64 `json:"fd_contrast,omitempty"`
	// FDLevelRadius and FDLevelTemp are the level σ's own r and t (the
	// similarity of documents to the level points, which sets how a
	// document's words divide among the levels) when FDLevelTemp > 0; 0
	// (the default, and configs saved before they existed): the path σ's
	// r and t serve both. train's similarity fit (Options.FitSimilarity)
	// sets them.
	FDLevelRadius float64 `json:"fd_level_radius,omitempty"`
	FDLevelTemp   float64 `json:"fd_level_temp,omitempty"`
	// PruneBy is what growth compares with SPrune (PruneBySubtree,
	// PruneByPath); "": subtree.
	PruneBy PruneBy `json:"prune_by,omitempty"`
	// KeepDepth keeps every path at the tree's depth through growth and
	// pruning (topictree.UpdateOptions.KeepDepth).
	KeepDepth bool `json:"keep_depth,omitempty"`
}

// DefaultContrastLogit is logit q of the calibration's contrast when
// FDContrast is 0: q = 1/(1+e⁻³) ≈ 0.953, t = (b−a)/6.
const DefaultContrastLogit = 3

// ContrastLogit returns logit FDContrast = ln(q/(1−q)), or
// DefaultContrastLogit when FDContrast is 0.
func (t *TreeConfig) ContrastLogit() float64 {
	if t.FDContrast == 0 {
		return DefaultContrastLogit
	}
	return math.Log(t.FDContrast / (1 - t.FDContrast))
}

// Default returns the default configuration (vocabulary and labels are
// filled in from the data by New).
func Default() Config {
	return Config{
		Width:     128,
		Layers:    3,
		Heads:     4,
		MLPHidden: 256,
		MaxLen:    96,
		Dropout:   0.1,
		Truncate:  TruncateTFIDF,
		Geometry:  Hyperbolic,
		Curvature: 1,
		InitScale: 0, // 0 means 1/√Width
		Features:  FeaturesTFIDF,
		// Hop features with the skip (docs/design.md, "Choices beyond the paper").
		FeatureHops: 3,
		FeatureSkip: true,
		Tree: TreeConfig{
			Mode: TreeGrow, InitDepth: 3, Branching: 3, MaxDepth: 4, MaxChildren: 20,
			SAdd: 0.05, SPrune: 0.05, Tau: 10, FDRadius: 0,
			// A readable hierarchy: paths pruned by the words through them,
			// the depth kept, documents committed sharply to one path
			// (docs/design.md, "Choices beyond the paper").
			PruneBy: PruneByPath, KeepDepth: true, FDContrast: 0.999,
			// The corpus's word frequencies in the root's decoder logits
			// alone, so that the general words are cheap there and the
			// lower topics need not carry them (docs/design.md, "Choices beyond the paper").
			Background: true, BackgroundLevels: []float64{1, 0, 0},
		},
		LambdaLevel: 1,
		Neighbors:   5,
		Hops:        2,
		// θ refined against the topics before words are scored
		// (docs/design.md, "Evaluation protocol").
		FoldIn:      20,
		LambdaTopic: 1,
		LambdaSup:   1,
		SupHidden:   128,
	}
}

// Validate reports every inconsistent setting.
func (c *Config) Validate() error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("model: config: %w", err)
	}
	return nil
}

// validate is Validate without the package's prefix.
func (c *Config) validate() error {
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	check(c.Width >= 2, "width %d must be at least 2", c.Width)
	check(c.Layers >= 1, "layers %d must be at least 1", c.Layers)
	check(c.Heads >= 1 && c.Width%max(c.Heads, 1) == 0, "heads %d must divide width %d", c.Heads, c.Width)
	check(c.MLPHidden >= 1, "mlp hidden %d must be positive", c.MLPHidden)
	check(c.MaxLen >= 1 && c.MaxLen <= maxMaxLen, "max length %d outside [1, %d]", c.MaxLen, maxMaxLen)
	check(c.Dropout >= 0 && c.Dropout < 1, "dropout %g outside [0,1)", c.Dropout)
	check(c.Truncate == TruncateHead || c.Truncate == TruncateTFIDF, "truncate %q: want head or tfidf", c.Truncate)
	check(c.Geometry == Hyperbolic || c.Geometry == Euclidean, "geometry %q: want hyperbolic or euclidean", c.Geometry)
	check(c.Curvature > 0 && !math.IsInf(c.Curvature, 1), "curvature K=%g must be positive and finite", c.Curvature)
	check(c.InitScale >= 0 && !math.IsInf(float64(c.InitScale), 1), "init scale %g must be finite and non-negative (0 means 1/√width)", c.InitScale)
	check(c.Features == FeaturesTFIDF || c.Features == FeaturesNone, "features %q: want tfidf or none", c.Features)
	check(c.FeatureHops >= 0 && c.FeatureHops <= 8, "feature hops %d outside [0, 8]", c.FeatureHops)
	check(c.FeatureDim >= 0, "feature dimension %d must be non-negative (0 means the width)", c.FeatureDim)
	check(!c.FeatureSkip || c.FeatureHops > 0, "the feature skip needs hop features (feature hops > 0)")
	check(c.SkipGate == nil || (c.FeatureSkip && !math.IsNaN(float64(*c.SkipGate)) && !math.IsInf(float64(*c.SkipGate), 0)), "the skip gate needs the feature skip and a finite value")
	check(c.Neighbors >= 1, "neighbours %d must be positive", c.Neighbors)
	check(c.Hops >= 0 && c.Hops <= 2, "hops %d: want 1 or 2 (0 means 1)", c.Hops)
	check(c.FoldIn >= 0 && c.FoldIn <= maxFoldIn, "fold-in rounds %d outside [0, %d]", c.FoldIn, maxFoldIn)
	check(finiteNonNeg(c.LambdaTopic) && finiteNonNeg(c.LambdaSup) && finiteNonNeg(c.LambdaLevel) && finiteNonNeg(c.LambdaBranch) && finiteNonNeg(c.LambdaDiv), "loss weights λ_topic=%g, λ_sup=%g, λ_level=%g, λ_branch=%g, λ_div=%g must be finite and non-negative", c.LambdaTopic, c.LambdaSup, c.LambdaLevel, c.LambdaBranch, c.LambdaDiv)
	t := c.Tree
	check(t.Mode == TreeGrow || t.Mode == TreeFixed || t.Mode == TreeFlat, "tree mode %q: want grow, fixed or flat", t.Mode)
	check(t.InitDepth >= 1 && t.Branching >= 1, "initial tree %d levels × %d children must be positive", t.InitDepth, t.Branching)
	check(t.MaxDepth >= t.InitDepth, "max depth %d below the initial depth %d", t.MaxDepth, t.InitDepth)
	check(t.MaxChildren >= t.Branching, "max children %d below the initial branching %d", t.MaxChildren, t.Branching)
	check(t.Tau > 0 && !math.IsInf(t.Tau, 1), "tau %g must be positive and finite", t.Tau)
	for _, w := range t.BackgroundLevels {
		check(!math.IsNaN(w) && !math.IsInf(w, 0), "background level weight %g must be finite", w)
	}
	check(len(t.BackgroundLevels) == 0 || t.Background, "background level weights need the background")
	check(t.BackgroundMix >= 0 && t.BackgroundMix < 1, "background mix %g outside [0,1)", t.BackgroundMix)
	check(t.FDRadius >= 0 && !math.IsInf(t.FDRadius, 1), "Fermi-Dirac radius %g must be non-negative and finite", t.FDRadius)
	check(t.FDTemp >= 0 && !math.IsInf(t.FDTemp, 1), "Fermi-Dirac temperature %g must be non-negative and finite (0 means 1)", t.FDTemp)
	check(t.FDLevelRadius >= 0 && !math.IsInf(t.FDLevelRadius, 1), "level Fermi-Dirac radius %g must be non-negative and finite", t.FDLevelRadius)
	check(t.FDLevelTemp >= 0 && !math.IsInf(t.FDLevelTemp, 1), "level Fermi-Dirac temperature %g must be non-negative and finite (0: the path's r and t)", t.FDLevelTemp)
	check(t.FDTrack >= 0 && t.FDTrack <= 1, "Fermi-Dirac tracking rate %g outside [0,1]", t.FDTrack)
	check(t.FDContrast == 0 || (t.FDContrast > 0.5 && t.FDContrast < 1), "Fermi-Dirac calibration contrast %g outside (0.5, 1) (0: the default)", t.FDContrast)
	check(t.PruneBy == "" || t.PruneBy == PruneBySubtree || t.PruneBy == PruneByPath, "prune by %q: want subtree or path", t.PruneBy)
	check(t.SAdd >= 0 && t.SAdd <= 1, "s_add %g outside [0,1]", t.SAdd)
	check(t.SPrune >= 0 && t.SPrune <= 1, "s_prune %g outside [0,1]", t.SPrune)
	check(c.Vocab >= 1, "vocabulary size %d must be positive", c.Vocab)
	check(!c.Supervised || c.NumLabels >= 2, "supervised training needs at least 2 labels, have %d", c.NumLabels)
	check(!c.Supervised || c.SupHidden >= 1, "sup hidden %d must be positive for supervised training", c.SupHidden)
	return errors.Join(errs...)
}

// maxMaxLen bounds MaxLen: the position table has MaxLen+1 rows and
// attention costs grow with its square, so a mistyped length must be an
// error rather than an out-of-memory crash.
const maxMaxLen = 1 << 16

// BackgroundWeight is the weight of the decoder's background at a level
// (root 0): BackgroundLevels[level], 0 past its end, 1 when it is empty.
func (t *TreeConfig) BackgroundWeight(level int) float64 {
	switch {
	case len(t.BackgroundLevels) == 0:
		return 1
	case level < len(t.BackgroundLevels):
		return t.BackgroundLevels[level]
	}
	return 0
}

// HopDim is the width m of one hop's features (FeatureDim, or the width).
func (c *Config) HopDim() int {
	if c.FeatureDim > 0 {
		return c.FeatureDim
	}
	return c.Width
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
