package experiment

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/train"
)

func TestParseVariants(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", []string{"default"}, ""},
		{"default", []string{"default"}, ""},
		{"euclidean, tree-flat,euclidean", []string{"default", "tree-flat", "euclidean"}, ""},
		{"all", VariantNames(), ""},
		{"tree-deep", nil, `unknown variant "tree-deep"`},
		{"tree-flat,", nil, `unknown variant ""`},
	} {
		vs, err := ParseVariants(c.in)
		var got []string
		for _, v := range vs {
			got = append(got, v.Name)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseVariants(%q): %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseVariants(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestVariantsChangeOneThing checks that each variant changes exactly the
// setting it names, relative to the defaults.
func TestVariantsChangeOneThing(t *testing.T) {
	want := map[string]string{
		"default":            "",
		"tree-flat":          "tree.mode flat",
		"tree-fixed":         "tree.mode fixed",
		"no-tree-embedding":  "no_tree true",
		"no-graph-embedding": "no_graph true",
		"euclidean":          `geometry "euclidean"`,
		"lambda-topic-0.01":  "lambda_topic 0.01",
		"lambda-topic-0.1":   "lambda_topic 0.1",
		"lambda-topic-1":     "", // the default weight: the paper's reference point
		"lambda-topic-10":    "lambda_topic 10",
		"topic-init-random":  "topic_init random",
		"hops-1":             "hops 1",
		"nesting-full":       `hops 1; nesting "full"`, // full nesting reaches one hop
	}
	if len(want) != len(Variants) {
		t.Fatalf("%d variants, %d expected", len(Variants), len(want))
	}
	type both struct {
		Config  model.Config  `json:"config"`
		Options train.Options `json:"options"`
	}
	base := flatten(both{model.Default(), train.DefaultOptions()})
	for _, v := range Variants {
		cfg, opt := model.Default(), train.DefaultOptions()
		v.Apply(&cfg, &opt)
		got := flatten(both{cfg, opt})
		var diff []string
		for k, x := range got {
			if base[k] != x {
				k = strings.TrimPrefix(strings.TrimPrefix(k, "config."), "options.")
				diff = append(diff, k+" "+strings.Trim(x, `"`))
			}
		}
		sort.Strings(diff)
		w := strings.ReplaceAll(want[v.Name], `"`, "")
		if strings.Join(diff, "; ") != w {
			t.Errorf("%s changes %v, want %q", v.Name, diff, w)
		}
	}
}

func FuzzParseVariants(f *testing.F) {
	for _, s := range []string{"", "all", "tree-flat,euclidean", "default,,", " nesting-full "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := ParseVariants(s)
		if err != nil {
			return
		}
		if len(vs) == 0 || vs[0].Name != DefaultVariant {
			t.Fatalf("ParseVariants(%q) does not start with default: %v", s, vs)
		}
		seen := map[string]bool{}
		for _, v := range vs {
			if seen[v.Name] {
				t.Fatalf("ParseVariants(%q) lists %s twice", s, v.Name)
			}
			seen[v.Name] = true
		}
	})
}
