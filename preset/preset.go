// Package preset is where gtformer's settings get their values: the default
// configuration (the model's and the trainer's defaults, which validation
// chose: docs/design.md, "Choices beyond the paper"), the paper's
// configuration, and the smaller size the built-in corpus trains at. The
// command's flags start from a preset and override it field by field.
package preset

import (
	"fmt"
	"strings"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/train"
)

// Settings are a whole run's settings: the architecture and the training
// options. Vocab and NumLabels are left 0: they come from the corpus.
type Settings struct {
	Config  model.Config
	Options train.Options
}

// Name names a preset.
type Name string

const (
	// Default is gtformer's configuration: the paper's method with the
	// choices validation adopted.
	Default Name = "default"
	// Paper is the paper's configuration, for comparison and ablations.
	Paper Name = "paper"
)

// Names are the presets, the default first.
var Names = []Name{Default, Paper}

// Get returns the settings of the named preset.
func Get(n Name) (Settings, error) {
	switch n {
	case Default, "":
		return DefaultSettings(), nil
	case Paper:
		return PaperSettings(), nil
	}
	return Settings{}, fmt.Errorf("preset: %q: want %s", string(n), namesList())
}

func namesList() string {
	s := make([]string, len(Names))
	for i, n := range Names {
		s[i] = string(n)
	}
	return strings.Join(s, " or ")
}

// DefaultSettings are model.Default and train.DefaultOptions, with σ's
// temperature written as the 1 that its 0 means (as the command has always
// recorded it).
func DefaultSettings() Settings {
	s := Settings{Config: model.Default(), Options: train.DefaultOptions()}
	if s.Config.Tree.FDTemp == 0 {
		s.Config.Tree.FDTemp = 1
	}
	return s
}

// PaperSettings are the paper's configuration: the default with every
// choice beyond the paper undone (the [CLS] start from the document's own
// tf-idf, no target masking, no level prior, pruning by subtree without
// keeping the depth, the decoder at the shared learning rate and without
// the background, no end-of-training fits, the best validated state kept,
// one hop, the topics started at random, every epoch a pass however large
// the graph).
func PaperSettings() Settings {
	s := DefaultSettings()
	c, o := &s.Config, &s.Options
	c.FeatureHops, c.FeatureSkip = 0, false
	c.LambdaLevel = 0
	c.Tree.PruneBy, c.Tree.KeepDepth = model.PruneBySubtree, false
	c.Tree.FDContrast = 0.95
	c.Tree.Background, c.Tree.BackgroundLevels = false, nil
	c.Hops = 1
	o.MaskTargets = false
	o.DecoderLRScale = 1
	o.FitSimilarity = ""
	o.DecoderRefit = 0
	o.FinalPruneBelow = 0
	o.BackgroundMixAtEnd = 0
	o.Select = train.SelectBest
	o.StepsRoot = 0
	o.TopicInit = train.TopicInitRandom
	return s
}

// Builtin shrinks s to the size the built-in corpus (1,500 short documents
// over 600 words) trains at, so that `gtformer train` with no flags ends in
// about a minute on two cores.
func (s *Settings) Builtin() {
	c := &s.Config
	c.Width, c.Layers, c.Heads, c.MLPHidden, c.MaxLen = 64, 2, 2, 128, 64
	s.Options.Epochs = 6
}
