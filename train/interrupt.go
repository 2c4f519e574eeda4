package train

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Interrupt asks Run to stop as soon as it can without losing work: after
// the step in progress (or, between epochs, the validation and checkpoint
// in progress), Run writes a checkpoint of that state (when
// Env.Checkpoint is set) and returns an *Interrupted error; Resume then
// continues from it to the same numbers as an uninterrupted run. It is safe
// to call from any goroutine (a signal handler's) and more than once. A
// trainer stays interrupted: Run called again stops at once.
func (t *Trainer) Interrupt() { t.sess.stop.Store(true) }

// Interrupted is Run's error after Interrupt: where training stopped, and
// the checkpoint generation that holds that state.
type Interrupted struct {
	Epoch   int   // epochs completed
	Step    int64 // optimiser steps taken
	InEpoch int   // steps of epoch Epoch+1 done (0: stopped between epochs)
	Steps   int64 // steps per epoch
	// Checkpoint is the generation's directory; "" when Env.Checkpoint
	// is empty (nothing was saved).
	Checkpoint string
}

func (e *Interrupted) Error() string {
	where := fmt.Sprintf("after epoch %d", e.Epoch)
	if e.InEpoch > 0 {
		where = fmt.Sprintf("in epoch %d after %d of its %d steps", e.Epoch+1, e.InEpoch, e.Steps)
	}
	if e.Checkpoint == "" {
		return "train: training interrupted " + where + "; no checkpoint directory was set, so nothing was saved"
	}
	return fmt.Sprintf("train: training interrupted %s (step %d); checkpoint %s", where, e.Step, e.Checkpoint)
}

// errStopped ends an epoch that Interrupt stopped (epoch to Run).
var errStopped = errors.New("stopped inside the epoch")

// stopInEpoch records where an interrupted epoch stands after batches of
// its steps, for the checkpoint Run then writes (Run adds the epoch's
// start).
func (t *Trainer) stopInEpoch(batches int, rec *EpochLog, docs int, began time.Time) error {
	st, err := t.Model.DropoutState()
	if err != nil {
		return err
	}
	t.sess.part = &partialEpoch{batches: batches, graph: rec.Graph, topic: rec.Topic, level: rec.Level, branch: rec.Branch, div: rec.Div, sup: rec.Sup,
		total: rec.Total, docs: docs, seconds: time.Since(began).Seconds(), dropout: st}
	// The cache still holds what this epoch built from its start: a Run
	// that continues in memory must not rebuild it from the current
	// weights.
	t.cacheFresh = true
	return errStopped
}

// resumeInEpoch continues an epoch from the position Resume or an
// interrupt left (none: it returns 0): the loss sums, the documents seen,
// the time spent, and the dropout source. It returns the steps already
// done.
func (t *Trainer) resumeInEpoch(rec *EpochLog, docs *int, began *time.Time) int {
	p := t.sess.part
	if p == nil {
		return 0
	}
	t.sess.part = nil
	rec.Graph, rec.Topic, rec.Level, rec.Branch, rec.Div, rec.Sup, rec.Total = p.graph, p.topic, p.level, p.branch, p.div, p.sup, p.total
	*docs = p.docs
	*began = began.Add(-time.Duration(p.seconds * float64(time.Second)))
	if err := t.Model.SetDropoutState(p.dropout); err != nil {
		panic("train: a dropout state this trainer saved does not load: " + err.Error())
	}
	return p.batches
}

// stopped ends Run after Interrupt: the current state goes into a
// checkpoint generation unless the newest one already holds it.
func (t *Trainer) stopped() error {
	e := &Interrupted{Epoch: t.State.Epoch, Step: t.State.Step, Steps: t.stepsPerEpoch()}
	if p := t.sess.part; p != nil {
		e.InEpoch = p.batches
	}
	if t.Env.Checkpoint == "" {
		return e
	}
	if !t.sess.saved {
		if t.sess.part == nil {
			// Between epochs with nothing on disk (before the first
			// epoch): a checkpoint at step 0 of the next epoch.
			t.Model.SeedDropout(t.Opt.Seed, uint64(t.State.Epoch))
			st, err := t.Model.DropoutState()
			if err != nil {
				return fmt.Errorf("train: dropout state: %w", err)
			}
			t.sess.part = &partialEpoch{dropout: st, start: t.snapshot()}
		}
		if err := t.saveGeneration(t.Env.Checkpoint); err != nil {
			return fmt.Errorf("train: training interrupted, but its checkpoint could not be written (the last complete one stays): %w", err)
		}
		t.sess.saved = true
	}
	e.Checkpoint = filepath.Join(t.Env.Checkpoint, t.sess.generation)
	return e
}
