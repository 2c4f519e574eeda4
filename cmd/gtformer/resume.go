package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/train"
)

// resumeMayChange are the flags of modelFlags that --resume accepts with a
// value other than the checkpoint's, and why. Every other flag of
// modelFlags changes the numbers, so it must be given as the run had it or
// left out (it then keeps the checkpoint's value); the corpus flags are
// checked through the corpus fingerprint instead.
var resumeMayChange = map[string]string{
	"epochs": "extends or shortens the run: the learning-rate schedule is recomputed for the new total from the current step, so the numbers then match no uninterrupted run",
}

// numberFlags lists the flags modelFlags registers: the ones --resume
// checks against the checkpoint.
func numberFlags() []string {
	var mf modelFlags
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	mf.register(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// checkResumeFlags checks the flags given with --resume against the run the
// checkpoint records: each is applied to a copy of the recorded options and
// start configuration, and one that changes them is a conflict. Conflicts
// are a usage error naming every flag, its value here and in the
// checkpoint; --epochs may change and is applied. (--glove changes nothing
// on resume: the word rows come from the checkpoint.)
func checkResumeFlags(fs *flag.FlagSet, tr *train.Trainer, log io.Writer) error {
	names := numberFlags()
	var conflicts []string
	var epochs *flag.Flag
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			return
		}
		if _, ok := resumeMayChange[f.Name]; ok {
			epochs = f
			return
		}
		had, differs, err := recordedFlag(tr, f.Name, f.Value.String())
		switch {
		case err != nil:
			errs = append(errs, err)
		case differs:
			conflicts = append(conflicts, fmt.Sprintf("--%s %s (the checkpoint's run has %s)", f.Name, f.Value, had))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return usagef("--resume with flags that change the numbers: %s; give them as the run had them or leave them out (only --epochs may change)", strings.Join(conflicts, ", "))
	}
	if epochs != nil {
		var n int
		fmt.Sscan(epochs.Value.String(), &n)
		switch {
		case n < tr.State.Epoch:
			return usagef("--epochs %d: the checkpoint has trained %d epochs already", n, tr.State.Epoch)
		case n != tr.Opt.Epochs:
			fmt.Fprintf(log, "--epochs %d instead of the run's %d: %s\n", n, tr.Opt.Epochs, resumeMayChange["epochs"])
			tr.Opt.Epochs = n
		}
	}
	return nil
}

// recordedFlag applies flag name = value to a copy of the options and start
// configuration that tr's checkpoint records, and reports the flag's value
// there (had) and whether value changes them.
func recordedFlag(tr *train.Trainer, name, value string) (had string, differs bool, err error) {
	var mf modelFlags
	rfs := flag.NewFlagSet("", flag.ContinueOnError)
	mf.register(rfs)
	// The flags point into mf's fields, which now hold the run's values.
	mf.cfg, mf.opt = tr.Start, tr.Opt
	mf.cfg.SkipGate = clonePtr(tr.Start.SkipGate)
	mf.cfg.Tree.BackgroundLevels = slices.Clone(tr.Start.Tree.BackgroundLevels)
	f := rfs.Lookup(name)
	if had = f.Value.String(); had == "" {
		had = "it unset"
	}
	if err := rfs.Set(name, value); err != nil {
		return "", false, fmt.Errorf("--%s %s: %w", name, value, err)
	}
	fillInitScale(&mf.cfg)
	start := tr.Start
	fillInitScale(&start)
	return had, !reflect.DeepEqual(mf.cfg, start) || !reflect.DeepEqual(mf.opt, tr.Opt), nil
}

// fillInitScale sets an InitScale of 0 to the 1/√width it means (what
// model.New records).
func fillInitScale(c *model.Config) {
	if c.InitScale == 0 {
		c.InitScale = float32(1 / math.Sqrt(float64(c.Width)))
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// resumeError turns Resume's error for the command: a checkpoint trained
// on another corpus is a usage mistake (exit 2).
func resumeError(err error) error {
	var mismatch *corpus.MismatchError
	if errors.As(err, &mismatch) {
		return usagef("%v: resume with the --data and corpus flags the run was trained with", err)
	}
	return err
}

// watchSignals makes SIGINT and SIGTERM interrupt tr (it finishes its step
// and writes a checkpoint); a second signal ends the process at once (the
// last complete checkpoint stays: checkpoints are written as one unit).
// stop restores the default handling; got reports the first signal.
func watchSignals(tr *train.Trainer, stderr io.Writer) (stop func(), got func() os.Signal) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var first atomic.Int32 // the first signal's number; 0 before any
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if first.Load() == 0 {
					first.Store(int32(sig.(syscall.Signal)))
					fmt.Fprintf(stderr, "\n%v: finishing the current step and writing a checkpoint (again to quit at once)\n", sig)
					tr.Interrupt()
					interruptsHandled.Add(1)
					continue
				}
				fmt.Fprintf(stderr, "\n%v again: quitting without a checkpoint of this step (the last complete one stays)\n", sig)
				os.Exit(exitCodeFor(sig))
			}
		}
	}()
	return func() {
			signal.Stop(ch)
			close(done)
		}, func() os.Signal {
			if n := first.Load(); n != 0 {
				return syscall.Signal(n)
			}
			return nil
		}
}

// interruptsHandled counts the signals watchSignals has passed on, so that
// a test that signals its own process knows when the trainer has it.
var interruptsHandled atomic.Int32

// exitCodeFor is 128 + the signal's number, as a shell reports a process
// that a signal ended.
func exitCodeFor(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// interrupted is the command's error after an interrupt: where training
// stopped, and the command that continues it.
func interrupted(e *train.Interrupted, sig os.Signal, args []string) error {
	if sig == nil {
		sig = os.Interrupt
	}
	again := slices.Clone(args)
	if !slices.ContainsFunc(again, func(a string) bool {
		return a == "--resume" || a == "-resume" || strings.HasPrefix(a, "--resume=") || strings.HasPrefix(a, "-resume=")
	}) {
		again = append(again, "--resume")
	}
	quoted := make([]string, len(again))
	for i, a := range again {
		quoted[i] = shellQuote(a)
	}
	return exitError{code: exitCodeFor(sig), err: fmt.Errorf("%v\nto continue: gtformer train %s", e, strings.Join(quoted, " "))}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
