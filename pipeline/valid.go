package pipeline

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/train"
)

// ValidReport is valid.json: what a validation-only run measured, without
// reading the test split.
type ValidReport struct {
	Dataset      string           `json:"dataset"`
	Seed         uint64           `json:"seed"`
	TrainSeconds float64          `json:"train_seconds"`
	Epochs       int              `json:"epochs"`
	KeptEpoch    int              `json:"kept_epoch"`
	Valid        *evaluate.Test   `json:"valid,omitempty"`
	Topics       evaluate.Topics  `json:"topics"`
	History      []train.EpochLog `json:"history"`
	Config       model.Config     `json:"config"`
	Options      train.Options    `json:"options"`
	// Notes name the metrics that are undefined for this corpus and
	// model, written as null.
	Notes []string `json:"notes,omitempty"`
}

// ValidFiles are the files a validation-only run writes.
var ValidFiles = []string{outputs.ValidFile, outputs.TopicsTextFile}

// finishValid writes valid.json and topics.txt of a validation-only run:
// the topics' quality (and, for a planted corpus, the recovery) is
// measured on the training documents outside validation (the holdout's),
// and nothing reads the test documents. An
// earlier run's other outputs in the folder are removed.
func finishValid(sp Spec, r *Result, log io.Writer) error {
	rep, topics, err := WriteValid(sp.Dir, sp.Dataset, r.Trainer, sp.Planted, r.Seconds)
	if err != nil {
		return err
	}
	r.Valid, r.Topics = rep, topics
	return removeStale(sp.Dir, ValidFiles, log)
}

// WriteValid writes into dir the ValidFiles of a trainer that has run
// (valid.json: dataset's name, its history, the kept epoch's validation
// scores, the topics' quality measured on the training documents outside
// validation, and with planted, one planted leaf per document, the
// recovery; topics.txt), reading no test document; seconds is the
// session's training time when the history holds none.
func WriteValid(dir, dataset string, tr *train.Trainer, planted []int32, seconds float64) (*ValidReport, []outputs.Topic, error) {
	g := tr.G
	emb := tr.HoldoutEmbeddings()
	rep := ValidReport{Dataset: dataset, Seed: tr.Opt.Seed, TrainSeconds: trainSeconds(tr.History, seconds), Epochs: tr.State.Epoch,
		History: tr.History, Config: tr.Model.Cfg, Options: tr.Opt}
	rep.KeptEpoch, rep.Valid = tr.Kept()
	if rep.Valid != nil {
		// Document completion, as the test's: θ from half of each
		// validation document's words, the other half scored.
		c := evaluate.Completion(tr.Model, g, tr.H, evaluate.Options{MaxNbrs: tr.Opt.MaxNbrs, EmbedBatch: tr.Opt.EmbedBatch})
		if !math.IsNaN(c) && !math.IsInf(c, 0) {
			rep.Valid.LogPerplexityCompletion = &c
		}
	}
	rep.Topics = evaluate.TopicQuality(tr.Model, g, tr.H, emb, tr.In.Len)
	if len(planted) == g.NumDocs() {
		if nmi := evaluate.Recovery(tr.Model, emb, planted, tr.H.Train); !math.IsNaN(nmi) {
			rep.Topics.RecoveryNMI = &nmi
		}
	}
	notes, err := outputs.UndefinedNotes(rep)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: %s: %w", outputs.ValidFile, err)
	}
	rep.Notes = notes
	if err := outputs.WriteJSON(filepath.Join(dir, outputs.ValidFile), rep); err != nil {
		return nil, nil, err
	}
	theta := make([]float32, 0, len(tr.H.Train)*emb.Topics)
	lens := make([]int, 0, len(tr.H.Train))
	for _, d := range tr.H.Train {
		theta = append(theta, emb.Theta[int(d)*emb.Topics:int(d+1)*emb.Topics]...)
		lens = append(lens, tr.In.Len[d])
	}
	topics := outputs.Topics(tr.Model, g, theta, lens)
	if err := atomicfile.WriteFile(filepath.Join(dir, outputs.TopicsTextFile), func(w io.Writer) error {
		return outputs.WriteTopicsText(w, topics, outputs.TextOptions{})
	}); err != nil {
		return nil, nil, fmt.Errorf("pipeline: %s: %w", outputs.TopicsTextFile, err)
	}
	return &rep, topics, nil
}
