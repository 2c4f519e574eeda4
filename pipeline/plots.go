package pipeline

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/plots"
	"github.com/gtformer/gtformer/train"
	"github.com/gtformer/gtformer/tsne"
)

// drawCurves draws the learning curves of a run as curves.png and
// curves.svg in dir; drew says whether there was a curve to draw (none
// without a history).
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
		return false, fmt.Errorf("pipeline: learning curves: %w", err)
	}
	if err := fig.Save(filepath.Join(dir, "curves")); err != nil {
		return false, fmt.Errorf("pipeline: learning curves: %w", err)
	}
	return true, nil
}

func valueOrNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// mapDocs caps the documents of the document map: exact t-SNE needs N²
// float64 affinities (72 MB and about 12 s on two cores for 3000), so a
// larger test split is shown by an evenly spaced sample of that many.
const mapDocs = 3000

// drawMap lays out the test documents by t-SNE of their tangent vectors
// log_o d (Euclidean distances there are the model's geometry seen from the
// origin) and draws them coloured by label, as map.png and map.svg in dir.
// Corpora without labels or with too few test documents get no map; drew
// says whether there is one.
func drawMap(dir, title string, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, seed uint64) (drew bool, err error) {
	if g.Labels == nil || len(s.Test) < 10 {
		return false, nil
	}
	n := emb.Width
	docs := s.Test
	if len(docs) > mapDocs {
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
		return false, fmt.Errorf("pipeline: document map: %w", err)
	}
	fig, err := plots.DocumentMap(plots.Map{Title: title, XY: res.Y, Labels: labels, LabelNames: g.LabelNames})
	if err != nil {
		return false, fmt.Errorf("pipeline: document map: %w", err)
	}
	if err := fig.Save(filepath.Join(dir, "map")); err != nil {
		return false, fmt.Errorf("pipeline: document map: %w", err)
	}
	return true, nil
}
