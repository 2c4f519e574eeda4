package train_test

import (
	"fmt"
	"os"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/train"
)

// Train a small model in two sessions: the first stops after one epoch
// (StopAfter), the second resumes from the checkpoint directory and
// finishes, ending with the same numbers as one uninterrupted run.
func Example() {
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.Links, sc.MeanLength = 200, 150, 400, 30
	g, _, err := synth.Generate(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := corpus.PaperSplit(g)

	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 16, 2, 2, 32, 24
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	opt := train.DefaultOptions()
	opt.Epochs, opt.ValidEvery, opt.GrowEvery = 2, 1, 1
	dir, err := os.MkdirTemp("", "gtformer-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	// The first session stops after one epoch; the second resumes.
	env := train.Env{Checkpoint: dir, StopAfter: 1}

	m, err := model.New(cfg, opt.Seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := train.New(m, g, s, opt, env)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := tr.Run(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("first session: epoch %d of %d\n", tr.State.Epoch, tr.Opt.Epochs)

	tr, err = train.Resume(dir, g, s, train.Env{Checkpoint: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := tr.Run(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("resumed: epoch %d of %d, %d learning-curve points, kept the %s state\n",
		tr.State.Epoch, tr.Opt.Epochs, len(tr.History), tr.Opt.Select)
	// Output:
	// first session: epoch 1 of 2
	// resumed: epoch 2 of 2, 2 learning-curve points, kept the last state
}
