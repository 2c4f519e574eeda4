package train

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/model"
	"gonum.org/v1/gonum/stat"
)

// TestPlantedTreeRecovered trains on the built-in corpus (a planted 13-topic
// tree) with a small model and measures how well the learned paths recover
// the planted leaves (evaluate.Recovery, soft NMI). With the default topic
// start ("fit": topics at k-means clusters, σ calibrated, decoder warmed
// up) the recovery must clear a bar that the paper's start ("random": the
// configured σ = 1/(1+e^{d²})) stays far below, as it did before the fix
// (docs/design.md, "Topic start").
func TestPlantedTreeRecovered(t *testing.T) {
	if testing.Short() {
		t.Skip("trains twice on the built-in corpus")
	}
	g, truth, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	run := func(init string) (float64, string) {
		cfg := model.Default()
		cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 32, 2, 2, 64, 48
		cfg.Tree.Mode = "fixed"
		cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
		opt := DefaultOptions()
		opt.Epochs, opt.ValidEvery = 2, 2
		opt.TopicInit = TopicInit(init)
		tr := newTrainer(t, g, s, cfg, opt)
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		emb := tr.Model.Embed(tr.In, allDocs(g.NumDocs()), func(d int32) []int32 { return s.TrainNeighbors(int(d)) }, opt.MaxNbrs, opt.EmbedBatch)
		return evaluate.Recovery(tr.Model, emb, truth.Leaf, s.Train), fmt.Sprintf("r = %.3g, t = %.3g", tr.Model.Cfg.Tree.FDRadius, tr.Model.Cfg.Tree.FDTemp)
	}
	fit, sim := run("fit")
	paper, _ := run("random")
	t.Logf("recovery NMI: fit %.3f (σ %s), paper's random start %.3f", fit, sim, paper)
	if fit < 0.35 {
		t.Errorf("recovery with the fitted topic start is %.3f, want ≥ 0.35", fit)
	}
	if fit < paper+0.2 {
		t.Errorf("recovery with the fitted start (%.3f) is not clearly above the random start's (%.3f)", fit, paper)
	}
}

func allDocs(n int) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(i)
	}
	return d
}

// TopicRefit redoes the topic start after its epoch: the log says so, the
// topic inputs are replaced (k-means on the trained embeddings), and σ is
// calibrated anew; the run still reproduces itself.
func TestTopicRefit(t *testing.T) {
	g, s := tinyData(t)
	run := func(refit int, init string) (*Trainer, string) {
		opt := tinyOptions(2, "cache", 4)
		var env Env
		opt.TopicRefit, opt.TopicInit = refit, TopicInit(init)
		var log bytes.Buffer
		env.Log = &log
		tr := newTrainer(t, g, s, tinyConfig(g), opt, env)
		if err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		return tr, log.String()
	}
	plain, plainLog := run(0, "fit")
	a, aLog := run(1, "fit")
	b, _ := run(1, "fit")
	_, paperLog := run(1, "random") // the paper's start has nothing to redo
	if !strings.Contains(aLog, "epoch 1: topic start redone") || strings.Contains(plainLog, "redone") || strings.Contains(paperLog, "redone") {
		t.Errorf("refit log lines wrong:\nrefit:\n%s\nplain:\n%s\nrandom start:\n%s", aLog, plainLog, paperLog)
	}
	if strings.Count(aLog, "σ calibrated") != 2 {
		t.Errorf("want two calibrations with a refit, log:\n%s", aLog)
	}
	if d := diffBits(paramBits(plain.Model), paramBits(a.Model)); d == "" {
		t.Error("the refit changed nothing")
	}
	if d := diffBits(paramBits(a.Model), paramBits(b.Model)); d != "" {
		t.Errorf("refit runs with one seed differ: %s", d)
	}
}

// plantedResult is what TestPlantedHierarchyRecovered measures of a model
// trained on the built-in corpus: metrics.json's figures and, per
// document, where its θ sits against where the generator planted its words.
type plantedResult struct {
	NMI   float64   // topics.recovery_nmi: planted leaves vs learned paths (evaluate.Recovery)
	Share []float64 // topics.level_share: the training words per learned level, root first
	// Per training document: the learned root's θ and the planted root
	// weight δ₀; the learned θ above the deepest level and the planted δ
	// above the leaf level.
	Root, PlantedRoot   []float64
	Upper, PlantedUpper []float64
	Topics              int
}

// plantedStats summarises a plantedResult: Pearson correlations over
// documents of the learned root θ with δ₀ and of the learned upper-level θ
// with the planted upper-level δ, and the mean learned upper-level θ of the
// planted general documents (planted upper δ ≥ 1/2) and of the others.
type plantedStats struct {
	CorrRoot, CorrUpper         float64
	GeneralUpper, SpecificUpper float64
	GeneralDocs, SpecificDocs   int
}

func (r plantedResult) stats() plantedStats {
	st := plantedStats{CorrRoot: stat.Correlation(r.Root, r.PlantedRoot, nil), CorrUpper: stat.Correlation(r.Upper, r.PlantedUpper, nil)}
	for d, p := range r.PlantedUpper {
		if p >= 0.5 {
			st.GeneralUpper += r.Upper[d]
			st.GeneralDocs++
		} else {
			st.SpecificUpper += r.Upper[d]
			st.SpecificDocs++
		}
	}
	st.GeneralUpper /= float64(st.GeneralDocs)
	st.SpecificUpper /= float64(st.SpecificDocs)
	return st
}

// Bounds of TestPlantedHierarchyRecovered (see there).
const (
	minRecoveryNMI     = 0.8  // mean over the seeds
	minSeedRecoveryNMI = 0.65 // any one seed
	minLevelShare      = 0.1
	minRootCorr        = 0.5
	minGeneralUpper    = 0.5
	minGeneralMargin   = 0.1
)

// problems lists what falls short of the planted hierarchy in r, beyond
// the recovery NMI (recoveryProblems, over seeds). Every
// comparison is written so that NaN fails: a root that takes no mass has
// no correlation with δ₀, and that is a failure, not a pass.
func (r plantedResult) problems() []string {
	var out []string
	if len(r.Share) < 2 {
		out = append(out, fmt.Sprintf("level shares %.2f: want a tree of at least two levels", r.Share))
	}
	for l, v := range r.Share {
		if !(v >= minLevelShare) {
			out = append(out, fmt.Sprintf("level %d holds %.1f%% of the words, want ≥ %g%% (levels %.2f)", l, 100*v, 100*minLevelShare, r.Share))
		}
	}
	st := r.stats()
	if !(st.CorrRoot >= minRootCorr) {
		out = append(out, fmt.Sprintf("corr(root θ, planted root weight δ₀) = %.3f, want ≥ %g: general documents do not sit at the root", st.CorrRoot, minRootCorr))
	}
	if !(st.GeneralUpper >= minGeneralUpper && st.GeneralUpper >= st.SpecificUpper+minGeneralMargin) {
		out = append(out, fmt.Sprintf("the %d planted general documents put %.3f of their θ above the deepest level, the %d specific ones %.3f: want ≥ %g and ≥ %g more",
			st.GeneralDocs, st.GeneralUpper, st.SpecificDocs, st.SpecificUpper, minGeneralUpper, minGeneralMargin))
	}
	return out
}

// trainPlanted trains the defaults at the built-in profile's size (as
// `gtformer train` with no flags) for epochs epochs with seed on the
// built-in corpus and measures the recovered hierarchy as metrics.json
// reports it (evaluate.Run with the planted leaves).
func trainPlanted(t testing.TB, seed uint64, epochs int) plantedResult {
	t.Helper()
	g, truth, err := synth.Generate(synth.Default())
	if err != nil {
		t.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 64, 2, 2, 128, 64
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	opt := DefaultOptions()
	opt.Epochs, opt.Seed = epochs, seed
	tr := newTrainer(t, g, s, cfg, opt)
	if err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	res := evaluate.Run(tr.Model, g, s, tr.In, evaluate.Options{MaxNbrs: opt.MaxNbrs, EmbedBatch: opt.EmbedBatch, Planted: truth.Leaf})
	if res.Topics.RecoveryNMI == nil {
		t.Fatal("evaluate.Run with the planted leaves set no recovery NMI")
	}
	emb := res.Emb
	r := plantedResult{NMI: *res.Topics.RecoveryNMI, Share: res.Topics.LevelShare, Topics: emb.Topics}
	tab := tr.Model.Topics.Tables()
	N, T, D := len(s.Train), emb.Topics, truth.Depth
	r.Root, r.PlantedRoot = make([]float64, N), make([]float64, N)
	r.Upper, r.PlantedUpper = make([]float64, N), make([]float64, N)
	for i, d32 := range s.Train {
		d := int(d32)
		for k := 0; k < T; k++ {
			th := float64(emb.Theta[d*T+k])
			if tab.Level[k] == 0 {
				r.Root[i] += th
			}
			if int(tab.Level[k]) < tab.Depth-1 {
				r.Upper[i] += th
			}
		}
		r.PlantedRoot[i] = float64(truth.Mix[d*D])
		r.PlantedUpper[i] = 1 - float64(truth.Mix[d*D+D-1])
	}
	return r
}

// TestPlantedHierarchyRecovered trains the default configuration (growing
// tree, hop features, the level prior, path pruning with the depth kept,
// contrast 0.999) on the built-in corpus at the built-in profile's size
// with seeds 1-6 and checks the hierarchy, not only the leaves, on the
// training documents (the tree is fitted to them): the learned paths
// recover the planted leaves (soft NMI, the figure metrics.json carries as
// topics.recovery_nmi: mean over the seeds ≥ 0.8, every seed ≥ 0.65), and
// on every seed (plantedResult.problems) every level of the tree holds
// ≥ 10% of the words (no level left hollow), documents written mostly from
// the planted root's general words put more of their θ on the learned root
// (Pearson correlation over documents between the root's θ and the planted
// root weight δ₀ ≥ 0.5), and the planted general documents land at the
// upper levels (at least half their θ above the deepest level, and clearly
// more than the specific documents). A model whose general words leak into
// every leaf, or whose inner levels are empty, fails
// (TestPlantedHierarchyProblems).
//
// One seed is no gate: the topic start's level-1 k-means can split one
// planted branch in two and merge two others (seed 2), and growth, which
// adds topics only under existing parents, cannot move a branch. Measured
// (defaults of 2026-11-29, identical on go-avx512, go-avx2, go and
// openblas-runtime): NMI 0.851 / 0.689 / 0.846 / 0.785 / 0.774 / 0.856,
// mean 0.800; level shares about 0.19 / 0.29 / 0.51; correlation
// 0.75-0.83; upper-level θ 0.62-0.67 for the general documents against
// 0.19-0.45 for the specific ones. A change that moves the built-in run
// needs these re-measured, not the bounds lowered.
func TestPlantedHierarchyRecovered(t *testing.T) {
	if testing.Short() {
		t.Skip("trains six times on the built-in corpus")
	}
	var nmi []float64
	for seed := uint64(1); seed <= plantedSeeds; seed++ {
		r := trainPlanted(t, seed, plantedEpochs)
		st := r.stats()
		t.Logf("seed %d: recovery NMI %.3f; level shares %.2f; corr(root θ, δ₀) %.3f; upper-level θ of general documents %.3f, of specific ones %.3f; %d topics",
			seed, r.NMI, r.Share, st.CorrRoot, st.GeneralUpper, st.SpecificUpper, r.Topics)
		for _, p := range r.problems() {
			t.Errorf("seed %d: %s", seed, p)
		}
		nmi = append(nmi, r.NMI)
	}
	for _, p := range recoveryProblems(nmi) {
		t.Error(p)
	}
}

// recoveryProblems lists what falls short in the recovery NMIs of several
// seeds: their mean under minRecoveryNMI, or any seed under
// minSeedRecoveryNMI. NaN fails.
func recoveryProblems(nmi []float64) []string {
	var out []string
	mean := stat.Mean(nmi, nil)
	if len(nmi) == 0 || !(mean >= minRecoveryNMI) {
		out = append(out, fmt.Sprintf("mean recovery NMI %.4f over %d seeds %.3f, want ≥ %g", mean, len(nmi), nmi, minRecoveryNMI))
	}
	for i, v := range nmi {
		if !(v >= minSeedRecoveryNMI) {
			out = append(out, fmt.Sprintf("seed %d: recovery NMI %.3f, want ≥ %g", i+1, v, minSeedRecoveryNMI))
		}
	}
	return out
}

// TestPlantedHierarchyProblems: the checks of TestPlantedHierarchyRecovered
// pass a planted-like hierarchy and fail each way of missing it, a root
// that takes no mass included (its correlation is NaN).
func TestPlantedHierarchyProblems(t *testing.T) {
	// Four documents: two general (planted upper δ 0.8, root δ₀ 0.5, 0.4),
	// two specific.
	good := func() plantedResult {
		return plantedResult{NMI: 0.9, Share: []float64{0.3, 0.3, 0.4},
			Root: []float64{0.4, 0.35, 0.1, 0.05}, PlantedRoot: []float64{0.5, 0.4, 0.1, 0.05},
			Upper: []float64{0.7, 0.65, 0.3, 0.2}, PlantedUpper: []float64{0.8, 0.8, 0.2, 0.1}}
	}
	for _, c := range []struct {
		name  string
		edit  func(r *plantedResult)
		wants []string // substrings of the problems, none for a pass
	}{
		{"planted hierarchy", func(r *plantedResult) {}, nil},
		{"hollow level", func(r *plantedResult) { r.Share = []float64{0.05, 0.35, 0.6} }, []string{"level 0 holds 5.0%"}},
		{"one level", func(r *plantedResult) { r.Share = []float64{1} }, []string{"at least two levels"}},
		{"root takes no mass", func(r *plantedResult) {
			r.Root = []float64{0, 0, 0, 0}
			r.Upper = []float64{0.3, 0.3, 0.3, 0.2}
			r.Share = []float64{0, 0.3, 0.7}
		}, []string{"level 0 holds 0.0%", "corr(root θ, planted root weight δ₀) = NaN", "general documents put 0.300"}},
		{"general words in the leaves", func(r *plantedResult) {
			r.Root = []float64{0.05, 0.1, 0.35, 0.4}
			r.Upper = []float64{0.2, 0.3, 0.65, 0.7}
		}, []string{"corr(root θ", "general documents put 0.250"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good()
			c.edit(&r)
			got := r.problems()
			if len(got) != len(c.wants) {
				t.Fatalf("problems %q, want %d containing %q", got, len(c.wants), c.wants)
			}
			for i, w := range c.wants {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// plantedEpochs and plantedSeeds are the training length and the seeds
// (1 to plantedSeeds) of TestPlantedHierarchyRecovered.
const (
	plantedEpochs = 4
	plantedSeeds  = 6
)

// TestRecoveryProblems: the seeds' recovery passes on a mean at the bound
// with every seed above the floor, and fails on a low mean, on one seed
// under the floor however high the mean, on NaN and on no seeds.
func TestRecoveryProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		nmi  []float64
		want []string
	}{
		{"at the bound", []float64{0.85, 0.69, 0.85, 0.785, 0.775, 0.855}, nil},
		{"low mean", []float64{0.75, 0.75, 0.8}, []string{"mean recovery NMI 0.7667"}},
		{"one seed under the floor", []float64{0.95, 0.95, 0.6}, []string{"seed 3: recovery NMI 0.600"}},
		{"NaN", []float64{0.9, math.NaN()}, []string{"mean recovery NMI NaN", "seed 2: recovery NMI NaN"}},
		{"no seeds", nil, []string{"over 0 seeds"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := recoveryProblems(c.nmi)
			if len(got) != len(c.want) {
				t.Fatalf("problems %q, want %d containing %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
