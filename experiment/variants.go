package experiment

import (
	"fmt"
	"strings"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/train"
)

// Variant is a named change of the configuration a run starts from: the
// paper's Fig. 3 ablations, the nesting ablation of issue 5 and the paper's
// topic start. Apply
// changes only what the variant is about, so every variant differs from
// "default" (the flags as given) in exactly one respect (nesting-full also
// drops to one hop, which is all full nesting does).
type Variant struct {
	Name  string
	About string // one line for help texts and results.md
	Apply func(c *model.Config, o *train.Options)
}

// DefaultVariant is the configuration as given, with nothing changed.
const DefaultVariant = "default"

// Variants lists every variant, in the order tables and charts show them.
var Variants = []Variant{
	{DefaultVariant, "the configuration as given (growing tree, hyperbolic, both embeddings, λ_topic = 1, cached neighbours, two hops)",
		func(*model.Config, *train.Options) {}},
	{"tree-flat", "flat topics under a root instead of a growing tree (Fig. 3a)",
		func(c *model.Config, _ *train.Options) { c.Tree.Mode = "flat" }},
	{"tree-fixed", "the initial tree kept throughout, no growth or pruning (Fig. 3a)",
		func(c *model.Config, _ *train.Options) { c.Tree.Mode = "fixed" }},
	{"no-tree-embedding", "layers 2..L do not see the tree embedding e_i: no topic hierarchy in the encoder (Fig. 3b)",
		func(c *model.Config, _ *train.Options) { c.NoTree = true }},
	{"no-graph-embedding", "layers 2..L do not see the graph embedding g_i: no graph hierarchy in the encoder (Fig. 3b)",
		func(c *model.Config, _ *train.Options) { c.NoGraph = true }},
	{"euclidean", "Euclidean instead of hyperbolic geometry (Fig. 3c)",
		func(c *model.Config, _ *train.Options) { c.Geometry = "euclidean" }},
	lambdaTopic("0.01", 0.01),
	lambdaTopic("0.1", 0.1),
	lambdaTopic("1", 1),
	lambdaTopic("10", 10),
	{"topic-init-random", "the paper's topic start: topics as built and σ = 1/(1+exp(d²)), instead of the fitted start (k-means topics, calibrated σ, decoder warm-up)",
		func(_ *model.Config, o *train.Options) { o.TopicInit = "random" }},
	{"hops-1", "the paper's graph embedding: neighbours enter g_i through their own text (one hop), instead of nested over their own neighbours (two hops)",
		func(c *model.Config, _ *train.Options) { c.Hops = 1 }},
	{"nesting-full", "neighbours encoded in the same pass with gradients through them, instead of the per-epoch cache; full nesting reaches one hop, so compare it with hops-1",
		func(c *model.Config, o *train.Options) { o.Nesting, c.Hops = "full", 1 }},
}

func lambdaTopic(name string, v float64) Variant {
	return Variant{"lambda-topic-" + name, "weight of the topic reconstruction loss λ_topic = " + name + " (Fig. 3d)",
		func(c *model.Config, _ *train.Options) { c.LambdaTopic = v }}
}

// LookupVariant returns the variant called name.
func LookupVariant(name string) (Variant, bool) {
	for _, v := range Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// VariantNames lists the names of all variants.
func VariantNames() []string {
	names := make([]string, len(Variants))
	for i, v := range Variants {
		names[i] = v.Name
	}
	return names
}

// ParseVariants reads a comma-separated list of variant names, or "all".
// The result always starts with "default", which every ablation is compared
// with, and lists each variant once, in the order of Variants. An empty list
// means "default" alone.
func ParseVariants(list string) ([]Variant, error) {
	want := map[string]bool{DefaultVariant: true}
	if strings.TrimSpace(list) == "all" {
		for _, v := range Variants {
			want[v.Name] = true
		}
	} else if strings.TrimSpace(list) != "" {
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			if _, ok := LookupVariant(name); !ok {
				return nil, fmt.Errorf("experiment: unknown variant %q (want all, or some of %s)", name, strings.Join(VariantNames(), ", "))
			}
			want[name] = true
		}
	}
	var out []Variant
	for _, v := range Variants {
		if want[v.Name] {
			out = append(out, v)
		}
	}
	return out, nil
}
