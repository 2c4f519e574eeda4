package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/experiment"
	"github.com/gtformer/gtformer/lda"
	"github.com/gtformer/gtformer/preset"
)

func init() {
	register(&command{
		name:    "experiment",
		summary: "run datasets × seeds × ablations, skipping finished runs, and tabulate mean ± std beside baselines and the paper",
		run:     runExperiment,
	})
}

const experimentSynopsis = "--data NAME[,NAME...] [--seeds N] [--ablation NAME[,NAME...]|all] [--out DIR] [--collect] [flags]"

// experimentGroups are experiment's help: the plan, then the training
// flags of gtformer train, hidden.
var experimentGroups = modelGroups([]flagGroup{
	{title: "plan", flags: []string{"data", "data-root", "seeds", "seed", "ablation", "supervised", "preset", "epochs"}},
	{title: "outputs", flags: []string{"out", "collect", "quiet"}},
	{title: "baselines", flags: []string{"lda-iter"}},
	{title: "data", hidden: true, flags: []string{"knn-links"}},
})

func init() { flagGroups["gtformer experiment"] = experimentGroups }

func runExperiment(args []string, stdout, stderr io.Writer) error {
	var (
		d                   dataFlags
		mf                  modelFlags
		presetName          string
		seeds, ldaIter      *int
		ablation, out, root *string
		collect, quiet      *bool
	)
	fs, err := parseWithPreset(args, func(st preset.Settings) (*flag.FlagSet, *string) {
		d, mf = dataFlags{}, modelFlags{}
		fs := newFlagSet("experiment", experimentSynopsis, stderr)
		d.register(fs)
		fs.Lookup("data").Usage = "comma-separated `NAMES` of corpora: a name is a folder under --data-root, a path (with a / or ending in .jsonl) is used as is, builtin is the built-in synthetic corpus"
		fs.Lookup("data").DefValue = "builtin"
		mf.registerFrom(fs, st)
		presetFlag(fs, &presetName)
		fs.Lookup("seed").Usage = "first seed: the runs use seeds seed, seed+1, ..., seed+N-1"
		seeds = fs.Int("seeds", 5, "seeds per dataset and variant (`N`)")
		ablation = fs.String("ablation", "", "variants to run beside default, comma-separated, or all: "+strings.Join(experiment.VariantNames()[1:], ", "))
		out = fs.String("out", "gtformer-experiment", "experiment `DIR`: runs/<dataset>/<variant>/seed<k>/ (the files of gtformer train --out), results.md, results.json, ablation charts")
		root = fs.String("data-root", "", "folder of the named corpora (default: the data folder of a shared folder beside the working folder, else ./data)")
		collect = fs.Bool("collect", false, "train nothing: rebuild results.md, results.json and the charts from the run folders in --out")
		ldaIter = fs.Int("lda-iter", lda.DefaultMaxIter, "EM iterations of the LDA fits (as gtformer baseline --method lda)")
		quiet = fs.Bool("quiet", false, "no training progress bar on stderr, only one line per run")
		describe(fs, stderr, experimentSynopsis, `
Trains GTFormer on every dataset × variant × seed, each run into
DIR/runs/<dataset>/<variant>/seed<k>/ (supervised runs: <variant>-supervised),
and prints one line per run. A run whose metrics.json exists is skipped, so
the command can be stopped and started again; an unfinished run resumes from
its checkpoint. A folder made with other settings is refused.

Variants (--ablation; default always runs):
`+variantHelp()+`

Per dataset it also scores the training-free baselines (tfidf, tfidf-graph,
glove-graph where the corpus has word vectors, tfidf-sign; once, on the same
split, into runs/<dataset>/baselines.json) and fits LDA once per seed (the
same seeds as the runs, so the model and LDA pair by seed; 13 topics and
--lda-iter iterations, as gtformer baseline --method lda; into
runs/<dataset>/lda/seed<k>.json). A rerun over an existing DIR computes only
what is missing.

Then it aggregates every run in DIR into results.md and results.json: per
dataset, mean ± sample standard deviation (n-1, as Excel's STDEV, which the
paper used) of each metric, wall time and documents per second, beside the
baselines, LDA (mean ± std over its seeds) and the paper's GTFormer and HGTM
figures, with an ablation chart per dataset when more than one variant ran;
then a topic-quality table (NPMI, diversity, both perplexities, topic count
and the hierarchy measures, gtformer's variants beside LDA) and the paired
differences gtformer − LDA by seed, with the number of seeds on which each
difference's sign holds.`)
		return fs, &presetName
	})
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	command := commandLine("gtformer experiment", args)
	if *collect {
		return collectResults(*out, command, stdout)
	}
	if *seeds < 1 {
		return usagef("--seeds must be at least 1, got %d", *seeds)
	}
	if *ldaIter < 1 {
		return usagef("--lda-iter must be at least 1, got %d", *ldaIter)
	}
	variants, err := experiment.ParseVariants(*ablation)
	if err != nil {
		return usagef("--ablation: %v", err)
	}
	if _, err := d.options(); err != nil {
		return err
	}
	list := d.path
	if list == "" {
		list = "builtin"
	}
	dataRoot := *root
	if dataRoot == "" {
		dataRoot = defaultDataRoot()
	}
	var datasets []experiment.Dataset
	allBuiltin := true
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		dsName, path, err := resolveDataset(name, dataRoot)
		if err != nil {
			return usagef("--data: %v", err)
		}
		dsName += d.harderSuffix()
		allBuiltin = allBuiltin && path == ""
		dd := d
		dd.path = path
		planted, err := dd.readPlanted()
		if err != nil {
			return err
		}
		datasets = append(datasets, experiment.Dataset{Name: dsName, Planted: planted, Load: func() (*corpus.Graph, *corpus.Split, error) {
			g, err := dd.load()
			if err != nil {
				return nil, nil, err
			}
			if err := dd.checkPlanted(planted, g.NumDocs()); err != nil {
				return nil, nil, err
			}
			return g, dd.makeSplit(g), nil
		}})
	}
	if allBuiltin {
		mf.builtinProfile(fs)
	}
	p := &experiment.Plan{
		Out: *out, Datasets: datasets, Variants: variants,
		Config: mf.cfg, Options: mf.opt, Glove: mf.glove, LDAIter: *ldaIter,
		Command: command, Progress: stdout,
	}
	for k := range *seeds {
		p.Seeds = append(p.Seeds, mf.opt.Seed+uint64(k))
	}
	if !*quiet {
		p.TrainProgress = stderr
	}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	fmt.Fprintf(stdout, "experiment: %d dataset(s) × %d variant(s) × %d seed(s) = %d runs into %s\n",
		len(datasets), len(variants), len(p.Seeds), len(datasets)*len(variants)*len(p.Seeds), *out)
	res, err := p.Run()
	if res != nil {
		fmt.Fprintf(stdout, "results in %s (%s)\n", filepath.Join(*out, "results.md"), describeResults(res))
	}
	return err
}

// collectResults is --collect: the results rebuilt from the run folders.
func collectResults(out, command string, stdout io.Writer) error {
	if _, err := os.Stat(filepath.Join(out, "runs")); err != nil {
		return fmt.Errorf("--collect: %w (no experiment in %s)", err, out)
	}
	res, err := experiment.Collect(out)
	if err != nil {
		return err
	}
	res.Command = command
	if err := res.Write(out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "results in %s (%s)\n", filepath.Join(out, "results.md"), describeResults(res))
	return nil
}

func describeResults(r *experiment.Results) string {
	runs, tables := 0, len(r.Groups)
	for _, g := range r.Groups {
		for _, v := range g.Variants {
			runs += len(v.Seeds)
		}
	}
	return fmt.Sprintf("%d finished runs in %d tables", runs, tables)
}

func variantHelp() string {
	var b strings.Builder
	// Wrapped here with a hanging indent: help wraps a longer line at
	// its spaces, which would lose the column.
	const col = 22
	for _, v := range experiment.Variants {
		for i, line := range wrap(v.About, helpWidth-col) {
			name := ""
			if i == 0 {
				name = v.Name
			}
			fmt.Fprintf(&b, "  %-*s%s\n", col-2, name, line)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// defaultDataRoot is the data folder of a folder named shared beside the
// working folder when there is one (where checkouts keep their corpora),
// else ./data.
func defaultDataRoot() string {
	if st, err := os.Stat(filepath.Join("..", "shared", "data")); err == nil && st.IsDir() {
		return filepath.Join("..", "shared", "data")
	}
	return "data"
}

// resolveDataset turns an entry of --data into the dataset's name in the
// tables and the path to load ("" for the built-in corpus): "builtin"; a
// path (it has a separator or ends in .jsonl), used as is and named by its
// base name; or a name, looked up under root.
func resolveDataset(name, root string) (dsName, path string, err error) {
	switch {
	case name == "":
		return "", "", errors.New("empty dataset name")
	case name == "builtin":
		return "builtin", "", nil
	case strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".jsonl"):
		path = name
		dsName = strings.TrimSuffix(filepath.Base(filepath.Clean(name)), ".jsonl")
	default:
		path, dsName = filepath.Join(root, name), name
	}
	if _, err := os.Stat(path); err != nil {
		if path != name {
			return "", "", fmt.Errorf("dataset %s: %w (names are looked up under --data-root %s)", name, err, root)
		}
		return "", "", fmt.Errorf("dataset %s: %w", name, err)
	}
	if dsName == "" || dsName == "." || dsName == ".." || dsName == string(filepath.Separator) {
		return "", "", fmt.Errorf("dataset %s: cannot name it by its path; give a folder", name)
	}
	return dsName, path, nil
}

// commandLine renders args as a command a POSIX shell would run: arguments
// with characters the shell treats specially are single-quoted.
func commandLine(prog string, args []string) string {
	parts := []string{prog}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
