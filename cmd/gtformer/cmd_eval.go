package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/plots"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/train"
	"github.com/gtformer/gtformer/tsne"
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
	dir := fs.String("model", "", "model `DIR` written by gtformer train --out")
	out := fs.String("out", "", "`DIR` to write "+outputs.EvalFile+" into (default: the model directory; training's metrics.json is never replaced)")
	k := fs.Int("k", 5, "kNN neighbours (at most the number of training documents)")
	queries := evalQueriesFlag(fs, "the model's seed")
	allow := fs.Bool("allow-different-corpus", false, "evaluate on a corpus other than the one the model was trained on (its vocabulary must still be the model's)")
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
	m, seed, g, s, err := loadModelAndCorpus(*dir, &d, *allow, stderr)
	if err != nil {
		return err
	}
	if *k > len(s.Train) {
		return usagef("--k %d: the kNN classifier is fitted on the %d training documents, so k can be at most %d", *k, len(s.Train), len(s.Train))
	}
	res := evaluate.Run(m, g, s, m.Inputs(g, s.TrainNeighbors32), evaluate.Options{K: *k, Planted: d.planted(), Queries: nq, Seed: seed})
	met := outputs.Metrics{Dataset: datasetName(g.Name, d.path), Seed: seed, Supervised: m.Cfg.Supervised, BLAS: tensor.BLASName(), Test: res.Test, Topics: res.Topics}
	if *out == "" {
		*out = *dir
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := outputs.WriteMetrics(filepath.Join(*out, outputs.EvalFile), met); err != nil {
		return err
	}
	printMetrics(stdout, res, m)
	fmt.Fprintf(stdout, "written to %s\n", filepath.Join(*out, outputs.EvalFile))
	return nil
}

// evalQueriesFlag registers --eval-queries, whose sample is drawn from
// seedFrom (the run's seed).
func evalQueriesFlag(fs *flag.FlagSet, seedFrom string) *int {
	return fs.Int("eval-queries", evaluate.DefaultQueries, "kNN and link AUC score at most `N` test documents as queries: with more, a uniform sample of N drawn from "+seedFrom+" (the same seed, the same sample), each still scored against every training document (kNN) and every test document (link ranking), so the two become estimates with standard errors, at a cost linear in the corpus (0: every test document, quadratic)")
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

// writeCurves draws the learning curves of a run as curves.png and
// curves.svg in dir (none without a learning curve).
func writeCurves(dir, title string, h []train.EpochLog) error {
	_, err := drawCurves(dir, title, h)
	return err
}

// drawCurves is writeCurves; drew says whether there was a curve to draw.
func drawCurves(dir, title string, h []train.EpochLog) (drew bool, err error) {
	if len(h) == 0 {
		return false, nil
	}
	c := plots.Curves{Title: title}
	var graph, topic, sup, total, f1, supF1, auc []float64
	anySup := false
	for _, e := range h {
		c.Epoch = append(c.Epoch, e.Epoch)
		graph = append(graph, e.Graph)
		topic = append(topic, e.Topic)
		sup = append(sup, e.Sup)
		total = append(total, e.Total)
		anySup = anySup || e.Sup != 0
		f1 = append(f1, valueOrNaN(e.ValidF1))
		auc = append(auc, valueOrNaN(e.ValidAUC))
		supF1 = append(supF1, valueOrNaN(e.ValidSupF1))
	}
	c.Loss = []plots.Series{{Name: "graph", Values: graph}, {Name: "topic", Values: topic}}
	if anySup {
		c.Loss = append(c.Loss, plots.Series{Name: "sup", Values: sup})
	}
	c.Loss = append(c.Loss, plots.Series{Name: "total", Values: total})
	c.Validation = []plots.Series{{Name: "valid kNN Micro-F1", Values: f1}, {Name: "valid link AUC", Values: auc}}
	if anySup {
		c.Validation = append(c.Validation, plots.Series{Name: "valid supervised Micro-F1", Values: supF1})
	}
	fig, err := plots.LearningCurves(c)
	if err != nil {
		return false, fmt.Errorf("learning curves: %w", err)
	}
	return true, fig.Save(filepath.Join(dir, "curves"))
}

func valueOrNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
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

// writeMap lays out the test documents by t-SNE of their tangent vectors
// log_o d (Euclidean distances there are the model's geometry seen from the
// origin) and draws them coloured by label, as map.png and map.svg in dir.
// Corpora without labels or with too few test documents get no map; drew
// says whether there is one.
// mapDocs caps the documents of the document map: exact t-SNE needs N²
// float64 affinities (72 MB and about 12 s on two cores for 3000), so a
// larger test split is shown by an evenly spaced sample of that many.
const mapDocs = 3000

func writeMap(dir, title string, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, seed uint64) (drew bool, err error) {
	if g.Labels == nil || len(s.Test) < 10 {
		return false, nil
	}
	n := emb.Width
	docs := s.Test
	if len(docs) > mapDocs {
		// Exact t-SNE holds N² affinities: above the cap the map shows
		// an evenly spaced sample of the test documents.
		docs = make([]int32, mapDocs)
		for i := range docs {
			docs[i] = s.Test[int64(i)*int64(len(s.Test))/mapDocs]
		}
		title += fmt.Sprintf(", %d of %d", mapDocs, len(s.Test))
	}
	x := make([]float32, 0, len(docs)*n)
	labels := make([]int, len(docs))
	for i, d := range docs {
		x = append(x, emb.Tangent[int(d)*n:int(d+1)*n]...)
		labels[i] = int(g.Labels[d])
	}
	cfg := tsne.Config{Seed: seed, Perplexity: math.Min(30, float64(len(docs)-2)/3)}
	res, err := tsne.Embed32(x, len(docs), n, cfg)
	if err != nil {
		return false, fmt.Errorf("document map: %w", err)
	}
	fig, err := plots.DocumentMap(plots.Map{Title: title, XY: res.Y, Labels: labels, LabelNames: g.LabelNames})
	if err != nil {
		return false, fmt.Errorf("document map: %w", err)
	}
	return true, fig.Save(filepath.Join(dir, "map"))
}
