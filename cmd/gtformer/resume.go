package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/gtformer/gtformer/corpus"
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

// numberFlags lists the flags modelFlags registers: the ones a checkpoint
// records (Options.Flags) and --resume checks.
func numberFlags() []string {
	var mf modelFlags
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	mf.register(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// recordFlags is the value of every flag in names, as the run uses it.
func recordFlags(fs *flag.FlagSet, names []string) map[string]string {
	rec := make(map[string]string, len(names))
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			rec[n] = f.Value.String()
		}
	}
	return rec
}

// checkResumeFlags compares the flags given with --resume to the values the
// checkpoint records and applies the ones that may change (--epochs). A
// conflict is a usage error naming every flag, its value here and in the
// checkpoint.
func checkResumeFlags(fs *flag.FlagSet, tr *train.Trainer, log io.Writer) error {
	names := numberFlags()
	var conflicts []string
	var epochs *flag.Flag
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			return
		}
		if _, ok := resumeMayChange[f.Name]; ok {
			epochs = f
			return
		}
		want, ok := tr.Opt.Flags[f.Name]
		switch {
		case !ok:
			conflicts = append(conflicts, fmt.Sprintf("--%s (the checkpoint records no value for it)", f.Name))
		case f.Value.String() != want:
			conflicts = append(conflicts, fmt.Sprintf("--%s %s (the checkpoint's run has %s)", f.Name, f.Value, want))
		}
	})
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
			tr.Opt.Flags["epochs"] = epochs.Value.String()
		}
	}
	return nil
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
