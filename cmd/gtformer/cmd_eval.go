package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/tensor"
)

func init() {
	register(&command{
		name:    "eval",
		summary: "evaluate a trained model on the test split and write metrics.json",
		run:     runEval,
	})
}

func runEval(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("eval", "--model DIR [--data PATH]", stderr)
	d.register(fs)
	dir := modelDirFlag(fs)
	out := fs.String("out", "", "`DIR` to write "+outputs.EvalFile+" into (default: the model directory; training's metrics.json is never replaced)")
	k := fs.Int("k", 5, "kNN neighbours (at most the number of training documents)")
	queries := evalQueriesFlag(fs, "the model's seed")
	threads := threadsFlag(fs)
	allow := allowCorpusFlag(fs, "evaluate on")
	describe(fs, stderr, "--model DIR [--data PATH] [--out DIR]", `
Embeds the corpus the model was trained on (same --data and corpus flags:
the model records the corpus's fingerprint and refuses another, naming what
differs), scores the test split by the paper's protocol (kNN Micro-/Macro-F1,
the supervised head, link AUC, log-perplexity, NPMI, diversity), prints a
table and writes `+outputs.EvalFile+` (never over the training run's
metrics.json).`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--model is required")
	}
	if *k < 1 {
		return usagef("--k must be positive")
	}
	nq, err := evalQueries(*queries)
	if err != nil {
		return err
	}
	restore, err := useThreads(*threads)
	if err != nil {
		return err
	}
	defer restore()
	m, seed, g, s, err := loadModelAndCorpus(*dir, &d, *allow, stderr)
	if err != nil {
		return err
	}
	if *k > len(s.Train) {
		return usagef("--k %d: the kNN classifier is fitted on the %d training documents, so k can be at most %d", *k, len(s.Train), len(s.Train))
	}
	planted, err := d.planted(g.NumDocs())
	if err != nil {
		return err
	}
	res := evaluate.Run(m, g, s, m.Inputs(g, s.TrainNeighbors32), evaluate.Options{K: *k, Planted: planted, Queries: nq, Seed: seed})
	met := outputs.Metrics{Dataset: datasetName(g.Name, d.path), Seed: seed, Supervised: m.Cfg.Supervised, BLAS: tensor.BLASName(), Test: res.Test, Topics: res.Topics}
	if *out == "" {
		*out = *dir
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := pipeline.Replaceable(*out, outputs.EvalFile); err != nil {
		return err
	}
	if err := outputs.WriteMetrics(filepath.Join(*out, outputs.EvalFile), met); err != nil {
		return err
	}
	if err := pipeline.Record(*out, outputs.EvalFile); err != nil {
		return err
	}
	printMetrics(stdout, res, m)
	fmt.Fprintf(stdout, "written to %s\n", filepath.Join(*out, outputs.EvalFile))
	return nil
}

// evalQueriesFlag registers --eval-queries, whose sample is drawn from
// seedFrom (the run's seed).
func evalQueriesFlag(fs *flag.FlagSet, seedFrom string) *int {
	return fs.Int("eval-queries", evaluate.DefaultQueries, "kNN and link AUC score at most `N` test documents as queries, a uniform sample drawn from "+seedFrom+
		", each against every reference document: estimates with standard errors, at a cost linear in the corpus (0: all, quadratic)")
}

// evalQueries checks --eval-queries and returns it as
// evaluate.Options.Queries (0, all, as evaluate.AllQueries).
func evalQueries(n int) (int, error) {
	switch {
	case n < 0:
		return 0, usagef("--eval-queries %d: give the number of test documents to score as queries (at least 1), or 0 for all of them", n)
	case n == 0:
		return evaluate.AllQueries, nil
	}
	return n, nil
}

// modelDirFlag registers --model, the folder of a trained model that a
// command reads.
func modelDirFlag(fs *flag.FlagSet) *string {
	return fs.String("model", "", "model `DIR` written by gtformer train --out")
}

// allowCorpusFlag registers --allow-different-corpus for a command that
// reads a trained model with a corpus (loadModelAndCorpus); use says what
// the command does with it ("evaluate on", "serve").
func allowCorpusFlag(fs *flag.FlagSet, use string) *bool {
	return fs.Bool("allow-different-corpus", false, use+" a corpus other than the one the model was trained on (its vocabulary must still be the model's)")
}

// loadModelAndCorpus loads a saved model and the corpus and split the data
// flags name, and checks that the corpus is the one the model was trained
// on: its fingerprint against the one config.json records (a usage error
// naming what differs, or with allow a note on stderr; ignore leaves out
// what does not matter to the caller, as "split" for embedding), that it
// uses the model's vocabulary (word ids into the same voc.txt), and that
// the weights carry the training idf.
func loadModelAndCorpus(dir string, d *dataFlags, allow bool, stderr io.Writer, ignore ...string) (*model.Model, uint64, *corpus.Graph, *corpus.Split, error) {
	m, seed, err := model.Load(dir)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	g, err := d.load()
	if err != nil {
		return nil, 0, nil, nil, err
	}
	s := d.makeSplit(g)
	var note string // said once nothing else is wrong
	if m.Corpus == nil {
		note = fmt.Sprintf("note: %s records no corpus fingerprint (a model saved before models recorded one, or never trained): the corpus cannot be checked", filepath.Join(dir, model.ConfigFile))
	} else {
		fp := d.fingerprint(g, s)
		if slices.Contains(ignore, "split") {
			// The split's flags do not matter either: take the model's.
			for _, key := range []string{"split", "split-seed"} {
				if v, ok := m.Corpus.Settings[key]; ok {
					fp.Settings[key] = v
				} else {
					delete(fp.Settings, key)
				}
			}
		}
		if err := m.Corpus.Check(fp, ignore...); err != nil {
			if !allow {
				return nil, 0, nil, nil, usagef("%v; give the corpus and corpus flags the model was trained with, or --allow-different-corpus", err)
			}
			note = fmt.Sprintf("note (--allow-different-corpus): %v", err)
		}
	}
	if len(g.Vocab) != m.Cfg.Vocab {
		return nil, 0, nil, nil, fmt.Errorf("%s has %d words, the model was trained on %d: use the corpus the model was trained on (its voc.txt)", d.source(), len(g.Vocab), m.Cfg.Vocab)
	}
	if m.IDF == nil {
		return nil, 0, nil, nil, fmt.Errorf("%s: the weights carry no idf buffer", dir)
	}
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	return m, seed, g, s, nil
}
