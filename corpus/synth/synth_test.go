package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

func generate(t testing.TB, cfg Config) (*corpus.Graph, *Truth) {
	t.Helper()
	g, tr, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g, tr
}

func TestGenerateShapes(t *testing.T) {
	word := regexp.MustCompile(`^[a-z]+(-[a-z]+)*(-[0-9]+)?$`)
	tests := []struct {
		name       string
		cfg        Config
		topics     int
		labelNames []string
	}{
		{"default", Default(), 13, []string{"science", "sports", "cooking"}},
		{"depth 2", Config{Docs: 300, Vocab: 100, Depth: 2, Branching: 4, Links: 600, MeanLength: 20, Seed: 2}, 5,
			[]string{"science", "sports", "cooking", "music"}},
		{"depth 4 branching 2", Config{Docs: 500, Vocab: 300, Depth: 4, Branching: 2, Links: 400, MeanLength: 30, Seed: 3}, 15,
			[]string{"science", "sports"}},
		{"unthemed branches", Config{Docs: 400, Vocab: 500, Depth: 3, Branching: 6, Links: 1000, MeanLength: 25, Seed: 4}, 43,
			[]string{"science", "sports", "cooking", "music", "topic-5", "topic-6"}},
		{"compound vocabulary", Config{Docs: 200, Vocab: 20000, Depth: 3, Branching: 3, Links: 50, MeanLength: 40, Seed: 5}, 13,
			[]string{"science", "sports", "cooking"}},
		{"no links", Config{Docs: 50, Vocab: 60, Depth: 2, Branching: 2, Links: 0, MeanLength: 10, Seed: 6}, 3,
			[]string{"science", "sports"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, tr := generate(t, tc.cfg)
			if err := g.Validate(); err != nil {
				t.Fatalf("invariants: %v", err)
			}
			if g.Name != "builtin" || g.NumDocs() != tc.cfg.Docs || len(g.Vocab) != tc.cfg.Vocab || len(g.Links) != tc.cfg.Links {
				t.Fatalf("name %q docs %d vocab %d links %d, want builtin %d %d %d",
					g.Name, g.NumDocs(), len(g.Vocab), len(g.Links), tc.cfg.Docs, tc.cfg.Vocab, tc.cfg.Links)
			}
			if tr.NumTopics() != tc.topics || tc.cfg.NumTopics() != tc.topics {
				t.Fatalf("%d topics, want %d", tr.NumTopics(), tc.topics)
			}
			if !slices.Equal(g.LabelNames, tc.labelNames) {
				t.Errorf("label names %v, want %v", g.LabelNames, tc.labelNames)
			}
			if !slices.IsSorted(g.Vocab) || len(slices.Compact(slices.Clone(g.Vocab))) != len(g.Vocab) {
				t.Error("vocabulary not sorted and unique")
			}
			for _, w := range g.Vocab {
				if !word.MatchString(w) {
					t.Fatalf("unreadable word %q", w)
				}
			}
			// Every word is owned by exactly one topic.
			owner := make([]int, len(g.Vocab))
			for _, ws := range tr.Words {
				for _, w := range ws {
					owner[w]++
				}
			}
			for w, n := range owner {
				if n != 1 {
					t.Fatalf("word %q owned by %d topics", g.Vocab[w], n)
				}
			}
			for i, leaf := range tr.Leaf {
				if int(tr.Level[leaf]) != tc.cfg.Depth-1 {
					t.Fatalf("document %d planted at topic %d of level %d", i, leaf, tr.Level[leaf])
				}
				if g.Labels[i] != tr.Branch(leaf)-1 {
					t.Fatalf("document %d label %d, branch %d", i, g.Labels[i], tr.Branch(leaf))
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	cfg := Default()
	cfg.Docs = 400
	a, ta := generate(t, cfg)
	b, tb := generate(t, cfg)
	if !slices.Equal(a.Tokens, b.Tokens) || !slices.Equal(a.Links, b.Links) || !slices.Equal(a.Vocab, b.Vocab) ||
		!slices.Equal(ta.Mix, tb.Mix) || !slices.Equal(a.Labels, b.Labels) {
		t.Fatal("same seed gave different corpora")
	}
	cfg.Seed++
	c, _ := generate(t, cfg)
	if slices.Equal(a.Tokens, c.Tokens) || slices.Equal(a.Links, c.Links) {
		t.Fatal("different seeds gave the same corpus")
	}
}

func TestValidateConfig(t *testing.T) {
	base := Default()
	tests := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"one doc", func(c *Config) { c.Docs = 1 }, "documents"},
		{"depth 1", func(c *Config) { c.Depth = 1 }, "depth"},
		{"depth 9", func(c *Config) { c.Depth = 9 }, "depth"},
		{"branching 1", func(c *Config) { c.Branching = 1 }, "branching"},
		{"tiny vocab", func(c *Config) { c.Vocab = 20 }, "vocabulary"},
		{"negative links", func(c *Config) { c.Links = -1 }, "links"},
		{"too dense", func(c *Config) { c.Docs, c.Links = 10, 40 }, "too dense"},
		{"zero length", func(c *Config) { c.MeanLength = 0 }, "length"},
		{"too many topics", func(c *Config) { c.Depth, c.Branching = 6, 32 }, "topics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			_, _, err := Generate(c)
			if err == nil || !strings.HasPrefix(err.Error(), "synth: ") || strings.Count(err.Error(), "synth: ") != 1 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one starting \"synth: \" once and mentioning %q", err, tc.want)
			}
		})
	}
}

// TestTokenDistribution compares the corpus's word frequencies with the
// model's expectation Σ_i |d_i| Σ_t θ_it β_t(w), computed from Truth
// independently of the alias-table sampler.
func TestTokenDistribution(t *testing.T) {
	cfg := Default()
	cfg.Docs = 3000
	g, tr := generate(t, cfg)
	V := len(g.Vocab)
	want := make([]float64, V)
	beta := make([][]float64, tr.NumTopics())
	for k := range beta {
		beta[k] = tr.WordDist(k)
		if s := sum(beta[k]); math.Abs(s-1) > 1e-9 {
			t.Fatalf("β_%d sums to %v", k, s)
		}
	}
	for i := 0; i < g.NumDocs(); i++ {
		theta := tr.Theta(i)
		if s := sum(theta); math.Abs(s-1) > 1e-5 {
			t.Fatalf("θ_%d sums to %v", i, s)
		}
		n := float64(len(g.Doc(i)))
		for k, th := range theta {
			if th == 0 {
				continue
			}
			for w, b := range beta[k] {
				want[w] += n * th * b
			}
		}
	}
	got := make([]float64, V)
	for _, w := range g.Tokens {
		got[w]++
	}
	tv := 0.0
	for w := range got {
		tv += math.Abs(got[w]-want[w]) / float64(len(g.Tokens))
	}
	tv /= 2
	// Sampling noise for ~180k tokens over 600 words gives TV ≈ 0.02.
	if tv > 0.04 {
		t.Fatalf("total variation between observed and expected word frequencies %.4f > 0.04", tv)
	}
	t.Logf("total variation %.4f over %d tokens", tv, len(g.Tokens))

	mean := float64(len(g.Tokens)) / float64(g.NumDocs())
	if math.Abs(mean-float64(cfg.MeanLength)) > 0.05*float64(cfg.MeanLength) {
		t.Errorf("mean length %.1f, want about %d", mean, cfg.MeanLength)
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// TestLevelMixture checks that general documents (most mass at the root)
// and specific ones (most at the leaf) both occur and that the root share
// of a document's tokens follows its mixture.
func TestLevelMixture(t *testing.T) {
	g, tr := generate(t, Default())
	rootWord := make([]bool, len(g.Vocab))
	for _, w := range tr.Words[0] {
		rootWord[w] = true
	}
	var general, specific int
	var genShare, specShare float64
	for i := 0; i < g.NumDocs(); i++ {
		mix := tr.Mix[i*tr.Depth : (i+1)*tr.Depth]
		n := 0
		for _, w := range g.Doc(i) {
			if rootWord[w] {
				n++
			}
		}
		share := float64(n) / float64(len(g.Doc(i)))
		switch {
		case mix[0] > 0.5:
			general++
			genShare += share
		case mix[tr.Depth-1] > 0.5:
			specific++
			specShare += share
		}
	}
	if general < 100 || specific < 300 {
		t.Fatalf("%d general and %d specific documents; want both kinds", general, specific)
	}
	genShare /= float64(general)
	specShare /= float64(specific)
	if genShare < 0.5 || specShare > 0.3 {
		t.Errorf("root-word share %.2f in general documents, %.2f in specific ones", genShare, specShare)
	}
}

func TestLinkStructure(t *testing.T) {
	cfg := Config{Docs: 20000, Vocab: 600, Depth: 3, Branching: 3, Links: 40000, MeanLength: 5, Seed: 7}
	g, tr := generate(t, cfg)
	sameLeaf, sameBranch := 0, 0
	for _, l := range g.Links {
		a, b := tr.Leaf[l[0]], tr.Leaf[l[1]]
		if a == b {
			sameLeaf++
		}
		if tr.Branch(a) == tr.Branch(b) {
			sameBranch++
		}
	}
	fl := float64(sameLeaf) / float64(len(g.Links))
	fb := float64(sameBranch) / float64(len(g.Links))
	// Expected: same leaf ≈ 0.7 + (0.2+0.1)·share, same branch ≈ 0.9 + 0.1·share.
	if fl < 0.7 || fl > 0.85 || fb < 0.9 || fb > 0.98 {
		t.Errorf("links inside a leaf %.3f (want 0.70-0.85), inside a branch %.3f (want 0.90-0.98)", fl, fb)
	}
	maxDeg, isolated := 0, 0
	for i := 0; i < g.NumDocs(); i++ {
		d := len(g.Neighbors(i))
		maxDeg = max(maxDeg, d)
		if d == 0 {
			isolated++
		}
	}
	meanDeg := 2 * float64(len(g.Links)) / float64(g.NumDocs())
	if isolated != 0 {
		t.Errorf("%d isolated documents with Links ≥ Docs", isolated)
	}
	// A Poisson graph of mean degree 4 over 20,000 nodes has a maximum
	// degree near 15; the heavy tail should reach far beyond.
	if float64(maxDeg) < 10*meanDeg {
		t.Errorf("maximum degree %d is not heavy-tailed (mean %.1f)", maxDeg, meanDeg)
	}
	t.Logf("same leaf %.3f, same branch %.3f, max degree %d, mean %.1f", fl, fb, maxDeg, meanDeg)
}

func TestLexiconDisjoint(t *testing.T) {
	seen := map[string]string{}
	var walk func(th *theme)
	walk = func(th *theme) {
		if len(th.words) < 45 {
			t.Errorf("theme %s has only %d words", th.name, len(th.words))
		}
		for _, w := range th.words {
			if prev, dup := seen[w]; dup {
				t.Errorf("word %q in both %s and %s", w, prev, th.name)
			}
			seen[w] = th.name
		}
		for i := range th.subs {
			walk(&th.subs[i])
		}
	}
	walk(&general)
	for i := range fields {
		walk(&fields[i])
	}
}

func TestAliasTable(t *testing.T) {
	w := []float64{5, 0, 1, 3, 1, 0.5}
	a := newAliasTable(len(w) + 2)
	scratch := make([]int32, 2*len(w))
	a.build(2, w, scratch[:len(w)], scratch[len(w):]) // a window at an offset
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	count := make([]float64, len(w))
	for range n {
		count[a.sample(rng, 2, len(w))]++
	}
	total := sum(w)
	for i := range w {
		p := w[i] / total
		sd := math.Sqrt(p * (1 - p) / n)
		if got := count[i] / n; math.Abs(got-p) > 5*sd+1e-9 {
			t.Errorf("index %d: frequency %.4f, want %.4f ± %.4f", i, got, p, 5*sd)
		}
	}
}

func TestGammaDirichletMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range []float64{0.3, 1, 4.5} {
		const n = 100000
		var m, m2 float64
		for range n {
			x := gamma(rng, shape)
			m += x
			m2 += x * x
		}
		m /= n
		v := m2/n - m*m
		// Gamma(k,1): mean k, variance k.
		if math.Abs(m-shape) > 5*math.Sqrt(shape/n) || math.Abs(v-shape)/shape > 0.05 {
			t.Errorf("Gamma(%v): mean %.4f variance %.4f, want %v and %v", shape, m, v, shape, shape)
		}
	}
	alpha := []float64{1, 2, 5}
	out := make([]float64, 3)
	mean := make([]float64, 3)
	for range 50000 {
		for i, x := range dirichlet(rng, alpha, out) {
			mean[i] += x / 50000
		}
	}
	for i := range alpha {
		if want := alpha[i] / 8; math.Abs(mean[i]-want) > 0.005 {
			t.Errorf("Dirichlet mean[%d] = %.4f, want %.4f", i, mean[i], want)
		}
	}
}

func ExampleGenerate() {
	g, truth, err := Generate(Default())
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Name, g.NumDocs(), "documents,", len(g.Links), "links,", len(g.Vocab), "words")
	fmt.Println("labels:", g.LabelNames)
	for _, k := range truth.Path(truth.Leaf[0]) {
		top := []string{}
		for _, w := range truth.Words[k][:3] {
			top = append(top, g.Vocab[w])
		}
		fmt.Println(truth.Names[k], top)
	}
	// Output:
	// builtin 1500 documents, 3000 links, 600 words
	// labels: [science sports cooking]
	// general [study result work]
	// sports [game player coach]
	// sports/cycling [bike bicycle cyclist]
}

func BenchmarkGenerate(b *testing.B) {
	for _, docs := range []int{1500, 50000} {
		cfg := Default()
		cfg.Docs, cfg.Links = docs, 2*docs
		b.Run(fmt.Sprintf("docs=%d", docs), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Generate(cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
