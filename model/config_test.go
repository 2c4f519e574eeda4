package model

import (
	"math"
	"strings"
	"testing"
)

// TestConfigValidate: the default configuration (with a vocabulary) is
// valid, and each bad field alone gives an error that names it. Values that
// would build a model of NaNs (infinite curvature, a negative initial scale)
// or exhaust memory (a mistyped maximum length) are rejected too.
func TestConfigValidate(t *testing.T) {
	valid := func() Config {
		c := Default()
		c.Vocab = 100
		c.NumLabels = 3
		return c
	}
	if err := func() *Config { c := valid(); return &c }().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tc := range []struct {
		name string
		mut  func(*Config)
		want string // substring of the error naming the field
	}{
		{"width", func(c *Config) { c.Width, c.Heads = 1, 1 }, "width 1"},
		{"layers", func(c *Config) { c.Layers = 0 }, "layers 0"},
		{"heads zero", func(c *Config) { c.Heads = 0 }, "heads 0"},
		{"heads not dividing", func(c *Config) { c.Heads = 3 }, "heads 3 must divide width 128"},
		{"mlp hidden", func(c *Config) { c.MLPHidden = 0 }, "mlp hidden 0"},
		{"max length zero", func(c *Config) { c.MaxLen = 0 }, "max length 0"},
		{"max length huge", func(c *Config) { c.MaxLen = 1 << 30 }, "max length 1073741824"},
		{"dropout one", func(c *Config) { c.Dropout = 1 }, "dropout 1"},
		{"dropout negative", func(c *Config) { c.Dropout = -0.1 }, "dropout -0.1"},
		{"dropout NaN", func(c *Config) { c.Dropout = float32(math.NaN()) }, "dropout NaN"},
		{"truncate", func(c *Config) { c.Truncate = "tail" }, `truncate "tail"`},
		{"geometry", func(c *Config) { c.Geometry = "spherical" }, `geometry "spherical"`},
		{"curvature zero", func(c *Config) { c.Curvature = 0 }, "curvature K=0"},
		{"curvature infinite", func(c *Config) { c.Curvature = math.Inf(1) }, "curvature K=+Inf"},
		{"curvature NaN", func(c *Config) { c.Curvature = math.NaN() }, "curvature K=NaN"},
		{"init scale negative", func(c *Config) { c.InitScale = -1 }, "init scale -1"},
		{"init scale NaN", func(c *Config) { c.InitScale = float32(math.NaN()) }, "init scale NaN"},
		{"features", func(c *Config) { c.Features = "glove" }, `features "glove"`},
		{"neighbours", func(c *Config) { c.Neighbors = 0 }, "neighbours 0"},
		{"hops", func(c *Config) { c.Hops = 3 }, "hops 3"},
		{"fold-in rounds below 0", func(c *Config) { c.FoldIn = -1 }, "fold-in rounds -1"},
		{"fold-in rounds too many", func(c *Config) { c.FoldIn = maxFoldIn + 1 }, "fold-in rounds 1001"},
		{"lambda topic", func(c *Config) { c.LambdaTopic = -1 }, "λ_topic=-1"},
		{"lambda sup NaN", func(c *Config) { c.LambdaSup = math.NaN() }, "λ_sup=NaN"},
		{"lambda topic infinite", func(c *Config) { c.LambdaTopic = math.Inf(1) }, "λ_topic=+Inf"},
		{"tree mode", func(c *Config) { c.Tree.Mode = "random" }, `tree mode "random"`},
		{"initial depth", func(c *Config) { c.Tree.InitDepth = 0 }, "initial tree 0 levels"},
		{"branching", func(c *Config) { c.Tree.Branching = 0 }, "× 0 children"},
		{"max depth", func(c *Config) { c.Tree.MaxDepth = 2 }, "max depth 2 below the initial depth 3"},
		{"max children", func(c *Config) { c.Tree.MaxChildren = 2 }, "max children 2 below the initial branching 3"},
		{"tau", func(c *Config) { c.Tree.Tau = 0 }, "tau 0"},
		{"tau infinite", func(c *Config) { c.Tree.Tau = math.Inf(1) }, "tau +Inf"},
		{"fd radius NaN", func(c *Config) { c.Tree.FDRadius = math.NaN() }, "radius NaN"},
		{"fd temperature negative", func(c *Config) { c.Tree.FDTemp = -1 }, "temperature -1"},
		{"fd temperature infinite", func(c *Config) { c.Tree.FDTemp = math.Inf(1) }, "temperature +Inf"},
		{"s_add", func(c *Config) { c.Tree.SAdd = -0.1 }, "s_add -0.1"},
		{"s_prune", func(c *Config) { c.Tree.SPrune = math.NaN() }, "s_prune NaN"},
		{"vocabulary", func(c *Config) { c.Vocab = 0 }, "vocabulary size 0"},
		{"labels", func(c *Config) { c.Supervised = true; c.NumLabels = 1 }, "at least 2 labels, have 1"},
		{"sup hidden", func(c *Config) { c.Supervised = true; c.SupHidden = 0 }, "sup hidden 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.mut(&c)
			err := c.Validate()
			if err == nil {
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
				t.Errorf("one bad field gave %d errors: %q", n, err)
			}
			if _, err := New(c, 1); err == nil {
				t.Errorf("New accepted the config")
			}
		})
	}

	// Unsupervised configs need neither labels nor a classifier width, and
	// several bad fields are all reported.
	c := valid()
	c.NumLabels, c.SupHidden = 0, 0
	if err := c.Validate(); err != nil {
		t.Errorf("unsupervised config without labels: %v", err)
	}
	c.Width, c.Geometry = 0, "flat"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "width 0") || !strings.Contains(err.Error(), `geometry "flat"`) {
		t.Errorf("two bad fields: %v", err)
	}
}
