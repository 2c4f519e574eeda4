package train

import (
	"io"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/phases"
)

// Env is where one training session runs: what it reports to, where it
// checkpoints, when it stops. None of it changes the numbers, so none of it
// is saved: a resumed session brings its own.
type Env struct {
	Log      io.Writer // change log, validation lines (nil: discard)
	Progress io.Writer // progress bar (nil: none)
	// Phases receives the wall time of each training phase (features,
	// topic start, cache refresh, steps, validation, growth, the
	// end-of-training fits); nil: not timed.
	Phases *phases.Record

	// Checkpoint is a directory where the state is saved after every
	// epoch (atomically) and from which Resume continues; "": none.
	Checkpoint string

	// StopAfter ends this session after that many epochs, leaving the
	// model at its current state; with Checkpoint set, Resume continues
	// from there ("train N more epochs"). 0: run to Options.Epochs.
	StopAfter int

	// Corpus is the fingerprint of the corpus as the caller read it, its
	// settings (tokenizer flags and the like) included. New stores it in
	// the model (config.json); nil: New computes one from the corpus and
	// split without settings. Resume refuses a checkpoint that recorded
	// another.
	Corpus *corpus.Fingerprint

	// Began is when the run began (reading the corpus included), from
	// which Options.Budget counts; zero: when the trainer was set up.
	Began time.Time

	// Planted is each document's planted leaf for a corpus with a
	// planted tree (evaluate.Options.Planted): every validation then
	// records the recovery NMI. nil: none.
	Planted []int32
}

// log is Log, or io.Discard when it is nil.
func (e *Env) log() io.Writer {
	if e.Log == nil {
		return io.Discard
	}
	return e.Log
}
