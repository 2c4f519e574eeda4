package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/outputs"
)

// LDADir is the folder, under OUT/runs/<dataset>, of the LDA fits: one
// file seed<k>.json per seed of the plan, so that the model and LDA are
// paired by seed and an interrupted experiment computes only the missing
// fits.
const LDADir = "lda"

// LDAName is the LDA row's name in the tables.
const LDAName = "lda"

// LDAPath is the file of the LDA fit of dataset at seed.
func LDAPath(out, dataset string, seed uint64) string {
	return filepath.Join(out, "runs", dataset, LDADir, fmt.Sprintf("seed%d.json", seed))
}

// LDARecord is one LDA fit (baseline.RunLDA with the lda baseline's
// defaults and the run's seed), as lda/seed<k>.json holds it: kNN and link
// AUC on θ in percent (link AUC by cosine, as the other baselines), NPMI and
// diversity as fractions, log-perplexities in nats per word, as gtformer's
// metrics.json has them; null where a score cannot be computed.
type LDARecord struct {
	Dataset string `json:"dataset"`
	Seed    uint64 `json:"seed"`
	Topics  int    `json:"topics"`
	Iter    int    `json:"iter"`

	baseline.Scores
	baseline.TopicRecord

	// Seconds covers fitting, inference and scoring.
	Seconds float64 `json:"seconds"`
	// TopWords holds each topic's top-10 words.
	TopWords [][]string `json:"top_words"`
}

// computeLDA fits and scores LDA on the dataset's split with seed and
// iter EM iterations.
func computeLDA(name string, g *corpus.Graph, s *corpus.Split, seed uint64, iter int) (*LDARecord, error) {
	opt := baseline.LDAOptions{Topics: baseline.DefaultLDATopics, Iter: iter, Seed: seed}
	r, err := baseline.RunLDA(g, s, opt)
	if err != nil {
		return nil, err
	}
	met, tp := r.Metrics, r.Topics
	rec := &LDARecord{
		Dataset: name, Seed: seed, Topics: tp.Topics, Iter: opt.Iter,
		Scores: met.Scores(), TopicRecord: tp.Record(),
		Seconds: r.Elapsed.Seconds(), TopWords: tp.TopWords(g.Vocab),
	}
	return rec, nil
}

func (r *LDARecord) summary() string {
	f := func(p *float64, scale float64, format string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(format, *p*scale)
	}
	return fmt.Sprintf("kNN Micro-F1 %s  link AUC %s  NPMI %s%%  diversity %s  log-perplexity %s",
		f(r.MicroF1, 1, "%.1f"), f(r.LinkAUC, 1, "%.1f"), f(r.NPMI, 100, "%.1f"), f(r.Diversity, 1, "%.3f"), f(r.LogPerplexity, 1, "%.2f"))
}

// asMetrics presents the fit as a run's metrics.json, so the tables
// aggregate and pair it with the same Metrics as the model's runs. LDA is
// flat: depth 1, and no hierarchy measures.
func (r *LDARecord) asMetrics() *outputs.Metrics {
	nan := func(p *float64) float64 {
		if p == nil {
			return math.NaN() // Aggregate and the pairing leave NaN out
		}
		return *p
	}
	return &outputs.Metrics{
		Dataset: r.Dataset, Seed: r.Seed, Variant: LDAName, TrainSeconds: r.Seconds,
		Test: evaluate.Test{
			KNNMicroF1: r.MicroF1, KNNMacroF1: r.MacroF1, LinkAUC: r.LinkAUC,
			LogPerplexity: r.LogPerplexity, LogPerplexityCompletion: r.LogPerplexityCompletion,
		},
		Topics: evaluate.Topics{Count: r.Topics, Depth: 1, NPMI: nan(r.NPMI), NPMIRef: r.NPMIRef, Diversity: nan(r.Diversity)},
	}
}

var ldaFileName = regexp.MustCompile(`^seed([0-9]+)\.json$`)

// readLDA reads the LDA fits of a dataset folder, ordered by seed; a
// missing folder means none (an experiment made before LDA was part of it).
func readLDA(dsDir string) ([]*LDARecord, error) {
	ents, err := os.ReadDir(filepath.Join(dsDir, LDADir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*LDARecord
	for _, e := range ents {
		m := ldaFileName.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue // atomicfile's temporaries, files put there by hand
		}
		path := filepath.Join(dsDir, LDADir, e.Name())
		r, err := readLDAFile(path)
		if err != nil {
			return nil, err
		}
		if seed, _ := strconv.ParseUint(m[1], 10, 64); seed != r.Seed {
			return nil, fmt.Errorf("experiment: %s: holds seed %d, not the seed its name says", path, r.Seed)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out, nil
}

func readLDAFile(path string) (*LDARecord, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r LDARecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	return &r, nil
}
