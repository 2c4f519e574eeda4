package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

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
	out := fs.String("out", "", "where to write metrics.json (default: the model directory)")
	k := fs.Int("k", 5, "kNN neighbours")
	describe(fs, stderr, "--model DIR [--data PATH] [--out DIR]", `
Embeds the corpus the model was trained on (same --data and split flags),
scores the test split by the paper's protocol (kNN Micro-/Macro-F1, the
supervised head, link AUC, log-perplexity, NPMI, diversity) and prints a table
and writes metrics.json.`)
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
	m, seed, g, err := loadModelAndCorpus(*dir, &d)
	if err != nil {
		return err
	}
	s := d.makeSplit(g)
	res := evaluate.Run(m, g, s, m.Inputs(g, s.TrainNeighbors32), evaluate.Options{K: *k})
	met := outputs.Metrics{Dataset: datasetName(g.Name, d.path), Seed: seed, Supervised: m.Cfg.Supervised, BLAS: tensor.BLASName(), Test: res.Test, Topics: res.Topics}
	if *out == "" {
		*out = *dir
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := outputs.WriteMetrics(filepath.Join(*out, "metrics.json"), met); err != nil {
		return err
	}
	printMetrics(stdout, res)
	return nil
}

// writeCurves draws the learning curves of a run as curves.png and
// curves.svg in dir.
func writeCurves(dir, title string, h []train.EpochLog) error {
	if len(h) == 0 {
		return nil
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
		return fmt.Errorf("learning curves: %w", err)
	}
	return fig.Save(filepath.Join(dir, "curves"))
}

func valueOrNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// loadModelAndCorpus loads a saved model and the corpus the data flags name,
// and checks that the corpus uses the model's vocabulary (word ids into the
// same voc.txt) and that the weights carry the training idf.
func loadModelAndCorpus(dir string, d *dataFlags) (*model.Model, uint64, *corpus.Graph, error) {
	m, seed, err := model.Load(dir)
	if err != nil {
		return nil, 0, nil, err
	}
	g, err := d.load()
	if err != nil {
		return nil, 0, nil, err
	}
	if len(g.Vocab) != m.Cfg.Vocab {
		return nil, 0, nil, fmt.Errorf("%s has %d words, the model was trained on %d: use the corpus the model was trained on (its voc.txt)", d.source(), len(g.Vocab), m.Cfg.Vocab)
	}
	if m.IDF == nil {
		return nil, 0, nil, fmt.Errorf("%s: the weights carry no idf buffer", dir)
	}
	return m, seed, g, nil
}

// writeMap lays out the test documents by t-SNE of their tangent vectors
// log_o d (Euclidean distances there are the model's geometry seen from the
// origin) and draws them coloured by label, as map.png and map.svg in dir.
// Corpora without labels or with too few test documents get no map.
// mapDocs caps the documents of the document map: exact t-SNE needs N²
// float64 affinities (72 MB and about 12 s on two cores for 3000), so a
// larger test split is shown by an evenly spaced sample of that many.
const mapDocs = 3000

func writeMap(dir, title string, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, seed uint64) error {
	if g.Labels == nil || len(s.Test) < 10 {
		return nil
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
		return fmt.Errorf("document map: %w", err)
	}
	fig, err := plots.DocumentMap(plots.Map{Title: title, XY: res.Y, Labels: labels, LabelNames: g.LabelNames})
	if err != nil {
		return fmt.Errorf("document map: %w", err)
	}
	return fig.Save(filepath.Join(dir, "map"))
}
