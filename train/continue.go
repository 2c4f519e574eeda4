package train

import (
	"fmt"
	"path/filepath"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
)

// Continue prepares more training of a trained model m (loaded, or a
// trainer's) on g split by s: a corpus that holds the one m was trained on
// followed by new documents (gtformer update). Everything m learned is
// the start: the encoder, the topics' rows and tree (ids kept), the
// decoder, σ's radius and temperature, and the buffers fitted to the
// first corpus's training documents (idf, the hop features' basis, the
// background), through which the new documents are read. Run then skips
// the topic start and its refit; the tree grows and prunes as the options
// say, and training ends with the end-of-training fits. A background
// mixture switched on at the end of m's training is switched off for the
// steps, as a first run trains without it, and on again at their end
// (Options.BackgroundMixAtEnd). The optimiser starts afresh.
//
// env.Corpus (nil: computed from g and s) becomes m's corpus fingerprint.
func Continue(m *model.Model, g *corpus.Graph, s *corpus.Split, opt Options, env Env) (*Trainer, error) {
	if m.IDF == nil {
		return nil, fmt.Errorf("train: continue: the model carries no idf buffer: it was never trained")
	}
	if m.Topics.Mix != nil {
		m.StopMix()
	}
	m.Corpus = env.Corpus
	if m.Corpus == nil {
		m.Corpus = corpus.NewFingerprint(g, s, nil, g.Name)
	}
	t, err := setup(m, g, s, opt, env)
	if err != nil {
		return nil, err
	}
	t.Start = startOf(m.Cfg)
	t.continued = true
	return t, nil
}

// ContinueSteps is the default budget of continued training (gtformer
// update): as many steps as a first run of opt spends on the new part's
// training links (opt.Epochs passes of opt.BatchLinks links a step over
// newLinks links), and at least minSteps.
func ContinueSteps(opt Options, newLinks, minSteps int) int {
	steps := (opt.Epochs*newLinks + opt.BatchLinks - 1) / max(opt.BatchLinks, 1)
	return max(steps, minSteps)
}

// Finished reports whether a resumed trainer's run was complete: every
// epoch done and its model in the state the run kept (the last epoch's,
// or the best one's when that is the last), as the run's outputs hold it.
func (t *Trainer) Finished() bool {
	return t.State.Epoch == t.Opt.Epochs && (t.best == nil || t.State.BestEpoch == t.State.Epoch)
}

// Generation is the checkpoint generation folder a resumed trainer was
// read from (dir/NAME; "" for a trainer not resumed): a model folder.
func (t *Trainer) Generation(dir string) string {
	if t.sess.generation == "" {
		return ""
	}
	return filepath.Join(dir, t.sess.generation)
}

// SetGrowFrom sets GrowFrom to those of docs that growth reads (training
// documents outside validation, within Options.SampleDocs' sample); none:
// nil.
func (t *Trainer) SetGrowFrom(docs []int32) {
	in := make(map[int32]bool, len(docs))
	for _, d := range docs {
		in[d] = true
	}
	t.GrowFrom = nil
	for _, d := range t.vs.Train {
		if in[d] {
			t.GrowFrom = append(t.GrowFrom, d)
		}
	}
}

// growFirst is continued training's first tree update, before any step:
// the loaded model already says where the new documents (GrowFrom) sit,
// and a topic added now has every step to take them.
func (t *Trainer) growFirst() error {
	defer t.Env.Phases.Start("growth")()
	return t.growTree(t.scoreValidation(&EpochLog{}), true)
}
