// Package experiment runs GTFormer over a plan of datasets × seeds ×
// variants (the paper's Fig. 3 ablations among them), one output folder per
// run, and aggregates the runs into tables of mean ± standard deviation
// beside training-free baselines and the paper's figures (results.json,
// results.md, ablation charts).
//
// Layout of an experiment folder OUT:
//
//	OUT/runs/<dataset>/baselines.json          the baselines, once per dataset
//	OUT/runs/<dataset>/lda/seed<k>.json        LDA, once per dataset and seed
//	OUT/runs/<dataset>/<variant>/seed<k>/      one run: the files of `gtformer
//	                                           train --out`, plus run.json (its
//	                                           settings and command) and train.log
//	OUT/results.json, OUT/results.md, OUT/ablation_<dataset>.png/.svg
//
// Supervised runs use the folder <variant>-supervised, so one OUT can hold
// both. A run whose metrics.json exists is finished and skipped: outputs are
// written atomically with metrics.json last, so a run stopped midway has
// none, and it resumes from its checkpoint when a complete one exists.
// Results can be rebuilt from the run folders alone with Collect.
package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/lda"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/train"
)

// Dataset is a corpus of the plan. Load is called only when some run or the
// baselines of the dataset still have to be computed, so a finished plan
// restarts without reading any data.
type Dataset struct {
	Name string // folder name under OUT/runs and the name in the tables
	Load func() (*corpus.Graph, *corpus.Split, error)
	// Planted, for a corpus with a planted tree (the built-in one, or a
	// folder data synth wrote), is each
	// document's planted leaf: every run's metrics then carry the
	// recovery NMI (evaluate.Options.Planted).
	Planted []int32
}

// Plan is an experiment: every dataset × variant × seed is one training run.
type Plan struct {
	Out      string
	Datasets []Dataset
	Variants []Variant
	Seeds    []uint64

	// Config and Options are the settings every variant starts from; the
	// vocabulary and labels are filled in from each dataset, and Seed,
	// Checkpoint and Log are set per run.
	Config  model.Config
	Options train.Options
	// LDAIter is the EM iterations of the LDA fits (0: lda.DefaultMaxIter,
	// as `gtformer baseline --method lda`).
	LDAIter int
	// Glove initialises word rows from the dataset's word vectors, for the
	// datasets that have them (as gtformer train does by default).
	Glove bool

	// Command is the command line that made the plan; it is recorded in
	// each run's run.json and at the top of results.md.
	Command string
	// Progress receives one line per run and per dataset's baselines (nil:
	// discard).
	Progress io.Writer
	// TrainProgress receives the trainer's progress bar (nil: none); the
	// trainer's log lines go to each run's train.log.
	TrainProgress io.Writer
}

// RunDir is the folder of one run.
func RunDir(out, dataset, variant string, supervised bool, seed uint64) string {
	if supervised {
		variant += "-supervised"
	}
	return filepath.Join(out, "runs", dataset, variant, fmt.Sprintf("seed%d", seed))
}

// Files of a run folder beside those of `gtformer train --out`.
const (
	MetricsFile   = "metrics.json"
	RunFile       = "run.json"
	TrainLogFile  = "train.log"
	BaselinesFile = "baselines.json"
)

// Validate checks the plan before anything runs; its errors are mistakes
// of the caller's settings (usage errors on the command line).
func (p *Plan) Validate() error {
	var errs []error
	if p.Out == "" {
		errs = append(errs, errors.New("experiment: no output folder"))
	}
	if len(p.Datasets) == 0 {
		errs = append(errs, errors.New("experiment: no datasets"))
	}
	if len(p.Seeds) == 0 {
		errs = append(errs, errors.New("experiment: no seeds"))
	}
	if len(p.Variants) == 0 {
		errs = append(errs, errors.New("experiment: no variants"))
	}
	if p.LDAIter < 0 {
		errs = append(errs, fmt.Errorf("experiment: LDA iterations %d: want at least 1 (0: the default)", p.LDAIter))
	}
	names := map[string]bool{}
	for _, d := range p.Datasets {
		if d.Name == "" || d.Name != filepath.Base(d.Name) || d.Name == "." || d.Name == ".." {
			errs = append(errs, fmt.Errorf("experiment: dataset name %q is not a plain folder name", d.Name))
		}
		if names[d.Name] {
			errs = append(errs, fmt.Errorf("experiment: dataset %q listed twice", d.Name))
		}
		names[d.Name] = true
	}
	if len(slices.Compact(slices.Sorted(slices.Values(p.Seeds)))) != len(p.Seeds) {
		errs = append(errs, fmt.Errorf("experiment: seeds %v repeat", p.Seeds))
	}
	for _, v := range p.Variants {
		cfg, opt := p.settings(v, 0)
		// The data fills these in; stand-ins let Validate check the rest.
		cfg.Vocab, cfg.NumLabels = 1, 2
		if err := cfg.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("experiment: variant %s: %w", v.Name, err))
		}
		if err := opt.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("experiment: variant %s: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}

// settings returns the configuration and options of variant v at seed.
func (p *Plan) settings(v Variant, seed uint64) (model.Config, train.Options) {
	cfg, opt := p.Config, p.Options
	v.Apply(&cfg, &opt)
	opt.Seed = seed
	return cfg, opt
}

// runSpec is run.json: what a run folder was made with. A restart compares
// it with the plan, so that changed flags never mix silently with finished
// runs made under others.
type runSpec struct {
	Dataset    string        `json:"dataset"`
	Variant    string        `json:"variant"`
	Seed       uint64        `json:"seed"`
	Supervised bool          `json:"supervised"`
	Glove      bool          `json:"glove"`
	Config     model.Config  `json:"config"` // vocab and labels as 0: they come from the data
	Options    train.Options `json:"options"`
	Command    string        `json:"command"`
}

func (p *Plan) spec(ds string, v Variant, seed uint64) runSpec {
	cfg, opt := p.settings(v, seed)
	cfg.Vocab, cfg.NumLabels = 0, 0
	return runSpec{Dataset: ds, Variant: v.Name, Seed: seed, Supervised: cfg.Supervised, Glove: p.Glove, Config: cfg, Options: opt, Command: p.Command}
}

// checkSpec compares a run folder's run.json (if any) with want and names
// the settings that differ.
func checkSpec(dir string, want runSpec) error {
	raw, err := os.ReadFile(filepath.Join(dir, RunFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil // a folder from before run.json, or copied in by hand
	}
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	// Compared as raw JSON, not through runSpec: a setting missing from
	// the file must stay missing, not become its zero value.
	var have map[string]any
	if err := json.Unmarshal(raw, &have); err != nil {
		return fmt.Errorf("experiment: %s: %w", filepath.Join(dir, RunFile), err)
	}
	delete(have, "command")
	want.Command = ""
	// A setting removed from gtformer since the run was made is not
	// compared (nothing reads it now). A setting added since is absent
	// from the old file, which means its zero value: gtformer's options
	// are added so that zero is the behaviour from before they existed
	// (and the JSON omits zero values), so a run made before a new
	// setting agrees with a plan that leaves it at zero, and differs from
	// one whose value (or new default) is not.
	a, b := flatten(have), flatten(want)
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if bk, ok := b[k]; ok && a[k] != bk {
			diff = append(diff, fmt.Sprintf("%s %s, now %s", k, a[k], bk))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok && !zeroJSON(b[k]) {
			diff = append(diff, fmt.Sprintf("%s absent (made before it, so its zero value), now %s", k, b[k]))
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("experiment: %s was made with other settings (%s): use another --out, or delete the folder to redo the run", dir, strings.Join(diff, "; "))
	}
	return nil
}

// zeroJSON reports whether v (one value of flatten) is a JSON zero value.
func zeroJSON(v string) bool {
	switch v {
	case "0", `""`, "false", "null", "[]", "{}":
		return true
	}
	return false
}

// flatten maps a value, as JSON, to dotted paths and the JSON text of each
// leaf.
func flatten(v any) map[string]string {
	raw, _ := json.Marshal(v)
	var tree any
	_ = json.Unmarshal(raw, &tree)
	out := map[string]string{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		if m, ok := x.(map[string]any); ok {
			for k, y := range m {
				walk(strings.TrimPrefix(prefix+"."+k, "."), y)
			}
			return
		}
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
	walk("", tree)
	return out
}

// Run carries out the plan: for each dataset its baselines and its LDA fits
// (one per seed) where missing, then every variant × seed not finished yet;
// then it collects all runs in Out (including earlier ones) and writes
// results.json, results.md and the ablation charts. A failed run, or a
// dataset that does not load, is reported and the others go on; Run then
// returns an error naming the failures, after writing the results of the
// runs that finished.
func (p *Plan) Run() (*Results, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkOut(p.Out); err != nil {
		return nil, err
	}
	logw := p.Progress
	if logw == nil {
		logw = io.Discard
	}
	var failures []error
datasets:
	for _, ds := range p.Datasets {
		var g *corpus.Graph
		var s *corpus.Split
		load := func() error {
			if g != nil {
				return nil
			}
			var err error
			g, s, err = ds.Load()
			if err != nil {
				return fmt.Errorf("dataset %s: %w", ds.Name, err)
			}
			return nil
		}
		bpath := filepath.Join(p.Out, "runs", ds.Name, BaselinesFile)
		if _, err := os.Stat(bpath); err != nil {
			if err := load(); err != nil {
				fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s %v\n", ds.Name, "", "", "failed", err)
				failures = append(failures, err)
				continue datasets
			}
			began := time.Now()
			rec, err := computeBaselines(ds.Name, g, s)
			if err == nil {
				err = writeJSON(bpath, rec)
			}
			if err != nil {
				fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s %v\n", ds.Name, "baselines", "", "failed", err)
				failures = append(failures, fmt.Errorf("%s baselines: %w", ds.Name, err))
			} else {
				fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s %s %5.1f s\n", ds.Name, "baselines", "", "done", rec.summary(), time.Since(began).Seconds())
			}
		}
		// LDA, once per seed of the plan, so that each run has its LDA fit
		// of the same seed to be paired with.
		for _, seed := range p.Seeds {
			lpath := LDAPath(p.Out, ds.Name, seed)
			if have, err := readLDAFile(lpath); err == nil {
				if have.Iter != p.ldaIter() {
					return nil, fmt.Errorf("experiment: %s was fitted with %d iterations, now %d: use another --out, or delete the file to redo the fit", lpath, have.Iter, p.ldaIter())
				}
				continue
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			if err := load(); err != nil {
				fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s %v\n", ds.Name, "", "", "failed", err)
				failures = append(failures, err)
				continue datasets
			}
			head := fmt.Sprintf("%-8s %-20s seed %-2d", ds.Name, LDAName, seed)
			rec, err := computeLDA(ds.Name, g, s, seed, p.ldaIter())
			if err == nil {
				err = writeJSON(lpath, rec)
			}
			if err != nil {
				fmt.Fprintf(logw, "%s %-8s %v\n", head, "failed", err)
				failures = append(failures, fmt.Errorf("%s lda seed %d: %w", ds.Name, seed, err))
				continue
			}
			fmt.Fprintf(logw, "%s %-8s %s %5.1f s\n", head, "done", rec.summary(), rec.Seconds)
		}
		for vi, v := range p.Variants {
			// Same seed, same numbers: a variant that changes nothing here
			// (lambda-topic-1 when λ_topic is already 1) would only repeat
			// an earlier variant's runs.
			if same := p.sameAs(vi); same != "" {
				fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s same settings as %s: its rows are %s's\n", ds.Name, v.Name, "", "skipped", same, same)
				continue
			}
			for _, seed := range p.Seeds {
				want := p.spec(ds.Name, v, seed)
				dir := RunDir(p.Out, ds.Name, v.Name, want.Supervised, seed)
				head := fmt.Sprintf("%-8s %-20s seed %-2d", ds.Name, v.Name, seed)
				if met, err := readMetrics(filepath.Join(dir, MetricsFile)); err == nil {
					if err := checkSpec(dir, want); err != nil {
						return nil, err
					}
					fmt.Fprintf(logw, "%s %-8s %s %5.0f s (metrics.json exists)\n", head, "skipped", keyMetrics(met), met.TrainSeconds)
					continue
				} else if !errors.Is(err, os.ErrNotExist) {
					return nil, err
				}
				if err := checkSpec(dir, want); err != nil {
					return nil, err
				}
				if err := load(); err != nil {
					fmt.Fprintf(logw, "%-8s %-20s %-7s %-8s %v\n", ds.Name, "", "", "failed", err)
					failures = append(failures, err)
					continue datasets
				}
				began := time.Now()
				met, resumed, err := p.runOne(ds.Name, g, s, ds.Planted, v, seed, dir, want)
				secs := time.Since(began).Seconds()
				if err != nil {
					fmt.Fprintf(logw, "%s %-8s %v\n", head, "failed", err)
					failures = append(failures, fmt.Errorf("%s %s seed %d: %w", ds.Name, v.Name, seed, err))
					continue
				}
				state := "done"
				if resumed > 0 {
					state = fmt.Sprintf("done (resumed after epoch %d)", resumed)
				}
				fmt.Fprintf(logw, "%s %-8s %s %5.0f s\n", head, state, keyMetrics(met), secs)
			}
		}
	}
	res, err := Collect(p.Out)
	if err != nil {
		return nil, err
	}
	res.Command = p.Command
	if err := res.Write(p.Out); err != nil {
		return res, err
	}
	if len(failures) > 0 {
		return res, fmt.Errorf("experiment: %d failure(s): %w", len(failures), errors.Join(failures...))
	}
	return res, nil
}

func (p *Plan) ldaIter() int {
	if p.LDAIter > 0 {
		return p.LDAIter
	}
	return lda.DefaultMaxIter
}

// sameAs returns the name of an earlier variant of the plan whose settings
// equal those of variant i, or "".
func (p *Plan) sameAs(i int) string {
	spec := func(v Variant) string {
		s := p.spec("", v, 0)
		s.Variant = ""
		b, _ := json.Marshal(s)
		return string(b)
	}
	mine := spec(p.Variants[i])
	for _, v := range p.Variants[:i] {
		if spec(v) == mine {
			return v.Name
		}
	}
	return ""
}

// keyMetrics formats the scores a progress line shows.
func keyMetrics(m *outputs.Metrics) string {
	f := func(p *float64) string {
		if p == nil {
			return "  -  "
		}
		return fmt.Sprintf("%5.1f", *p)
	}
	s := fmt.Sprintf("kNN Micro-F1 %s  Macro-F1 %s  link AUC %s", f(m.Test.KNNMicroF1), f(m.Test.KNNMacroF1), f(m.Test.LinkAUC))
	if m.Supervised {
		s += fmt.Sprintf("  sup. Micro-F1 %s", f(m.Test.SupMicroF1))
	}
	return s
}

// runOne trains, evaluates and writes one run (pipeline.Run, as
// `gtformer train`, without the document map); resumed is the epoch its
// checkpoint had reached (0: started afresh).
func (p *Plan) runOne(dataset string, g *corpus.Graph, s *corpus.Split, planted []int32, v Variant, seed uint64, dir string, spec runSpec) (met *outputs.Metrics, resumed int, err error) {
	cfg, opt := p.settings(v, seed)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, fmt.Errorf("experiment: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RunFile)); errors.Is(err, os.ErrNotExist) {
		if err := writeJSON(filepath.Join(dir, RunFile), spec); err != nil {
			return nil, 0, err
		}
	}
	logf, err := os.OpenFile(filepath.Join(dir, TrainLogFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("experiment: %w", err)
	}
	defer logf.Close()
	// A checkpoint is complete or absent (train writes each as one unit):
	// without one the run starts afresh.
	r, err := pipeline.Run(pipeline.Spec{
		Dir: dir, Dataset: dataset, Variant: v.Name, Source: fmt.Sprintf("%s, variant %s, seed %d", dataset, v.Name, seed),
		Graph: g, Split: s, Planted: planted, Config: cfg, Options: opt, Glove: p.Glove,
		Env: train.Env{Log: logf, Progress: p.TrainProgress}, Resume: pipeline.ResumeIfPresent, OwnFiles: []string{RunFile, TrainLogFile},
	})
	if r != nil {
		resumed = r.Resumed
	}
	if err != nil {
		return nil, resumed, err
	}
	return &r.Metrics, resumed, nil
}

func readMetrics(path string) (*outputs.Metrics, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var m outputs.Metrics
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	return &m, nil
}

// writeJSON writes v atomically, making the folder first.
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := atomicfile.WriteJSON(path, v); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// BaselineRecord is one baseline's scores in baselines.json, in percent;
// null where a score cannot be computed.
type BaselineRecord struct {
	Method string `json:"method"`
	baseline.Scores
	Seconds float64 `json:"seconds"`
}

// baselinesFile is baselines.json.
type baselinesFile struct {
	Dataset   string           `json:"dataset"`
	Baselines []BaselineRecord `json:"baselines"`
	Skipped   []string         `json:"skipped,omitempty"`
}

func (b *baselinesFile) summary() string {
	var parts []string
	for _, r := range b.Baselines {
		f := "-"
		if r.MicroF1 != nil {
			f = fmt.Sprintf("%.1f", *r.MicroF1)
		}
		parts = append(parts, fmt.Sprintf("%s Micro-F1 %s", r.Method, f))
	}
	return strings.Join(parts, "  ")
}

// computeBaselines scores every baseline on the dataset's split; glove-graph
// is skipped where the corpus has no word vectors.
func computeBaselines(name string, g *corpus.Graph, s *corpus.Split) (*baselinesFile, error) {
	rec := &baselinesFile{Dataset: name}
	for _, m := range baseline.Methods {
		r, err := baseline.Run(g, s, m)
		if errors.Is(err, baseline.ErrNoWordVectors) {
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		if err != nil {
			return nil, err
		}
		met := r.Metrics
		rec.Baselines = append(rec.Baselines, BaselineRecord{
			Method: string(m), Scores: met.Scores(), Seconds: r.Elapsed.Seconds(),
		})
	}
	return rec, nil
}
