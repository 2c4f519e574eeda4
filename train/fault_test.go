//go:build !openblas

// The fault-injection suite (go test -run Fault ./...; docs/reliability.md
// lists what it covers). It tests files and processes, not arithmetic, so
// the OpenBLAS build, which CI runs for the compute packages, leaves it out.

package train

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/faultpoint"
	"github.com/gtformer/gtformer/internal/faultpoint/faulttest"
	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/model"
)

// Environment of a fault child: the test binary run again to train, stopped
// by the fault its parent asks for.
const (
	childEnv      = "GTFORMER_FAULT_CHILD" // the fault: "kill" or "sigint"
	childDirEnv   = "GTFORMER_FAULT_DIR"   // the checkpoint directory
	childPointEnv = "GTFORMER_FAULT_POINT" // the 1-based write point to stop at
	childStepEnv  = "GTFORMER_FAULT_STEP"  // or: interrupt before this step (and then the point counts from there)
	childFresh    = "GTFORMER_FAULT_FRESH" // "1": train afresh instead of resuming
	childStartEnv = "GTFORMER_FAULT_START" // "1": interrupt before training starts (during the topic start)
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(faultChild())
	}
	os.Exit(m.Run())
}

// faultData is the suite's corpus, model and options: the tiny corpus, a
// width-16 model whose tree grows after every epoch (so a checkpoint
// follows a change of the tree), three epochs, a short decoder warm-up.
func faultData() (*corpus.Graph, *corpus.Split, model.Config, Options, error) {
	g, err := tinyCorpus()
	if err != nil {
		return nil, nil, model.Config{}, Options{}, err
	}
	opt := tinyOptions(3, "cache", 11)
	opt.TopicWarmup = 30
	cfg := tinyConfig(g) // hop features, as by default
	// The overlap term's loss sum is part of a checkpoint written inside
	// an epoch: with it on, a lost sum would show in the history.
	cfg.LambdaDiv = 0.1
	return g, corpus.PaperSplit(g), cfg, opt, nil
}

// faultChild trains as the environment says and stops itself: kill -9 at
// the write point, or SIGINT (handled as gtformer train handles it) at the
// write point or before the step. Its exit code tells the parent what
// happened: 130 after an interrupt, 0 if training ended first, 3 if the
// fault was never reached, 1 on an error.
func faultChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "fault child:", err); return 1 }
	g, s, cfg, opt, err := faultData()
	if err != nil {
		return fail(err)
	}
	dir := os.Getenv(childDirEnv)
	env := Env{Checkpoint: dir}
	var tr *Trainer
	if os.Getenv(childFresh) == "1" {
		m, err := model.New(cfg, opt.Seed)
		if err != nil {
			return fail(err)
		}
		if tr, err = New(m, g, s, opt, env); err != nil {
			return fail(err)
		}
	} else if tr, err = Resume(dir, g, s, env); err != nil {
		return fail(err)
	}
	// SIGINT as the command handles it: the trainer finishes its step.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	go func() { <-sigs; tr.Interrupt() }()
	interrupt := func() {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		// Wait until the handler has run, so the fault lands where asked.
		for deadline := time.Now().Add(10 * time.Second); !tr.sess.stop.Load(); {
			if time.Now().After(deadline) {
				fmt.Fprintln(os.Stderr, "fault child: SIGINT not handled in 10 s")
				os.Exit(1)
			}
			time.Sleep(time.Millisecond)
		}
	}
	point, _ := strconv.Atoi(os.Getenv(childPointEnv))
	step, _ := strconv.ParseInt(os.Getenv(childStepEnv), 10, 64)
	counting := step == 0 // write points count from the start, or from the interrupt
	reached := 0
	if step > 0 {
		tr.beforeStep = func(n int64) {
			if n == step {
				interrupt()
				counting = true
			}
		}
	}
	fault := os.Getenv(childEnv)
	faultpoint.Set(func(p string) {
		if !counting || point == 0 || !strings.Contains(p, dir) {
			return
		}
		if reached++; reached != point {
			return
		}
		switch fault {
		case "kill":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute) // the signal is on its way
		case "sigint":
			interrupt()
		}
	})
	if os.Getenv(childStartEnv) == "1" {
		interrupt()
	}
	err = tr.Run()
	var stopped *Interrupted
	switch {
	case errors.As(err, &stopped):
		fmt.Fprintln(os.Stderr, err)
		if point > 0 && reached < point {
			return 3
		}
		return 130
	case err != nil:
		return fail(err)
	case point > 0 && reached < point, step > 0 && tr.State.Step < step:
		return 3
	}
	return 0
}

// runChild runs the fault child and returns its exit code
// (faulttest.Killed when SIGKILL ended it).
func runChild(t *testing.T, env ...string) (code int, stderr string) {
	t.Helper()
	code, stderr, err := faulttest.RunChild([]string{"-test.run=^$"}, env)
	if err != nil {
		t.Fatalf("running the fault child: %v", err)
	}
	return code, stderr
}

// outcome is what a run ends with: the final (kept) parameters bit by bit,
// the tree, the trainer state and the learning curve.
type outcome struct {
	params map[string][]uint32
	tree   string
	state  State
	curve  string
}

func outcomeOf(t testing.TB, tr *Trainer) outcome {
	return outcome{paramBits(tr.Model), treeJSON(t, tr.Model), tr.State, curve(t, tr.History)}
}

func (o outcome) diff(t testing.TB, want outcome) string {
	if d := diffBits(want.params, o.params); d != "" {
		return "parameters differ: " + d
	}
	switch {
	case o.tree != want.tree:
		return "trees differ"
	case o.state != want.state:
		return fmt.Sprintf("states differ: %+v vs %+v", o.state, want.state)
	case o.curve != want.curve:
		return fmt.Sprintf("learning curves differ:\n%s\nvs\n%s", o.curve, want.curve)
	}
	return ""
}

// faultSuite holds what every fault test starts from: the uninterrupted
// run's outcome, and a checkpoint directory after epoch 1 (the tree
// already grown or pruned once).
type faultSuite struct {
	g     *corpus.Graph
	s     *corpus.Split
	cfg   model.Config
	opt   Options
	want  outcome
	after string // checkpoint directory holding epoch 1's generation
}

var suiteOnce struct {
	sync.Once
	s   *faultSuite
	err error
}

func setupFaults(t *testing.T) *faultSuite {
	t.Helper()
	suiteOnce.Do(func() {
		g, s, cfg, opt, err := faultData()
		if err != nil {
			suiteOnce.err = err
			return
		}
		fs := &faultSuite{g: g, s: s, cfg: cfg, opt: opt}
		whole := Env{Checkpoint: filepath.Join(os.TempDir(), fmt.Sprintf("gtformer-fault-%d", os.Getpid()))}
		defer os.RemoveAll(whole.Checkpoint)
		m, err := model.New(cfg, opt.Seed)
		if err != nil {
			suiteOnce.err = err
			return
		}
		tr, err := New(m, g, s, opt, whole)
		if err == nil {
			err = tr.Run()
		}
		if err != nil {
			suiteOnce.err = err
			return
		}
		fs.want = outcomeOf(t, tr)
		var first Env
		fs.after, err = os.MkdirTemp("", "gtformer-fault-epoch1-")
		if err != nil {
			suiteOnce.err = err
			return
		}
		first.Checkpoint, first.StopAfter = fs.after, 1
		if m, err = model.New(cfg, opt.Seed); err == nil {
			if tr, err = New(m, g, s, opt, first); err == nil {
				err = tr.Run()
			}
		}
		if err == nil && m.Topics.Tree.NextID() == 13 && m.Topics.Tables().T == 13 {
			err = errors.New("the tree did not change after epoch 1: the suite would not cover a checkpoint after a change of the tree")
		}
		suiteOnce.s, suiteOnce.err = fs, err
	})
	if suiteOnce.err != nil {
		t.Fatal(suiteOnce.err)
	}
	return suiteOnce.s
}

// caseDir copies the epoch-1 checkpoint into a fresh directory.
func (fs *faultSuite) caseDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "ckpt")
	copyDir(t, fs.after, dir)
	return dir
}

// finish resumes from dir and trains to the end; the outcome must be the
// uninterrupted run's. It returns the generation resumed from.
func (fs *faultSuite) finish(t *testing.T, dir string) string {
	t.Helper()
	var env Env
	env.Checkpoint = dir
	tr, err := Resume(dir, fs.g, fs.s, env)
	if err != nil {
		t.Fatalf("resume after the fault: %v", err)
	}
	from := tr.sess.generation
	if err := tr.Run(); err != nil {
		t.Fatalf("training on after the fault: %v", err)
	}
	if d := outcomeOf(t, tr).diff(t, fs.want); d != "" {
		t.Fatalf("resumed from %s, the run ends otherwise than an uninterrupted one: %s", from, d)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("the checkpoint directory ends holding %v, want two generations", names)
	}
	return from
}

// writePoints lists the write points of one checkpoint: the one a trainer
// resumed from the epoch-1 checkpoint writes after epoch 2 (stepBefore 0),
// or the one it writes inside epoch 2 when interrupted before that step.
func (fs *faultSuite) writePoints(t *testing.T, stepBefore int64) []string {
	t.Helper()
	dir := fs.caseDir(t)
	var env Env
	env.Checkpoint, env.StopAfter = dir, 1
	tr, err := Resume(dir, fs.g, fs.s, env)
	if err != nil {
		t.Fatal(err)
	}
	if stepBefore > 0 {
		tr.beforeStep = func(n int64) {
			if n == stepBefore {
				tr.Interrupt()
			}
		}
	}
	var points []string
	defer faultpoint.Set(func(p string) {
		if strings.Contains(p, dir) {
			points = append(points, strings.ReplaceAll(p, dir, "CKPT"))
		}
	})()
	err = tr.Run()
	if stopped := (*Interrupted)(nil); stepBefore > 0 && !errors.As(err, &stopped) || stepBefore == 0 && err != nil {
		t.Fatalf("listing the write points: %v", err)
	}
	if len(points) < 19 {
		t.Fatalf("only %d write points: %q", len(points), points)
	}
	return points
}

// TestFaultKillAtEachCheckpointWrite kills the training process (SIGKILL,
// as kill -9) at every write point of a checkpoint, then resumes: the run
// must end exactly as an uninterrupted one. It covers the checkpoint
// written after epoch 2 (the previous one is epoch 1's; the tree changed
// in between, the case that once left a checkpoint that could not be
// resumed) and the one written inside epoch 2 when interrupted, where
// the fallback is epoch 1's. The first checkpoint of a run, which has no
// previous one, is TestFaultKillFirstCheckpoint's.
func TestFaultKillAtEachCheckpointWrite(t *testing.T) {
	fs := setupFaults(t)
	steps := int64(len(fs.s.Holdout(fs.g).TrainLinks)+fs.opt.BatchLinks-1) / int64(fs.opt.BatchLinks)
	for _, kind := range []struct {
		name string
		step int64 // interrupt before this step first (0: none)
	}{{"after epoch 2", 0}, {"inside epoch 2", steps + 3}} {
		points := fs.writePoints(t, kind.step)
		t.Logf("%s: %d write points", kind.name, len(points))
		for i, p := range points {
			t.Run(fmt.Sprintf("%s/%02d %s", kind.name, i+1, pointLabel(p)), func(t *testing.T) {
				dir := fs.caseDir(t)
				env := []string{childEnv + "=kill", childDirEnv + "=" + dir, childPointEnv + "=" + strconv.Itoa(i+1)}
				if kind.step > 0 {
					env = append(env, childStepEnv+"="+strconv.FormatInt(kind.step, 10))
				}
				code, stderr := runChild(t, env...)
				if code != faulttest.Killed {
					t.Fatalf("the child was not killed at point %d (exit %d):\n%s", i+1, code, stderr)
				}
				fs.finish(t, dir)
			})
		}
	}
}

// pointLabel shortens a write point for a subtest name.
func pointLabel(p string) string {
	words := strings.Fields(p)
	words[len(words)-1] = filepath.Base(words[len(words)-1])
	return strings.Join(words, " ")
}

// TestFaultKillFirstCheckpoint kills a fresh run at every write point of
// its first checkpoint: either the generation is complete and resumes to
// the state the write was saving, or there is none and resuming says
// exactly why; a fresh run into the same directory then leaves no trace of
// the stopped write.
func TestFaultKillFirstCheckpoint(t *testing.T) {
	fs := setupFaults(t)
	// The epoch-1 generation is what the first checkpoint must hold.
	ref, err := Resume(fs.after, fs.g, fs.s, Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := outcomeOf(t, ref)
	// The first checkpoint has the files of any other written after an
	// epoch.
	points := len(fs.writePoints(t, 0))
	for i := 1; i <= points; i++ {
		t.Run(fmt.Sprintf("point %02d", i), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ckpt")
			code, stderr := runChild(t, childEnv+"=kill", childFresh+"=1", childDirEnv+"="+dir, childPointEnv+"="+strconv.Itoa(i))
			if code != faulttest.Killed {
				t.Fatalf("the child was not killed at point %d (exit %d):\n%s", i, code, stderr)
			}
			tr, err := Resume(dir, fs.g, fs.s, Env{})
			switch {
			case errors.Is(err, ErrNoCheckpoint):
				if !strings.Contains(err.Error(), "the run stopped while writing its first checkpoint") {
					t.Errorf("resume says %q", err)
				}
				m, err := model.New(fs.cfg, fs.opt.Seed)
				if err != nil {
					t.Fatal(err)
				}
				fresh, err := New(m, fs.g, fs.s, fs.opt, Env{})
				if err != nil {
					t.Fatal(err)
				}
				if err := fresh.SaveCheckpoint(dir); err != nil {
					t.Fatal(err)
				}
				if names := dirNames(t, dir); len(names) != 1 || strings.HasPrefix(names[0], ".") {
					t.Errorf("after a fresh checkpoint the directory holds %v", names)
				}
			case err != nil:
				t.Fatalf("resume: %v", err)
			default:
				if d := outcomeOf(t, tr).diff(t, want); d != "" {
					t.Errorf("the first checkpoint does not hold epoch 1: %s", d)
				}
			}
		})
	}
}

// TestFaultSIGINTAtEachCheckpointWrite sends SIGINT at every write point
// of the checkpoint after epoch 2: the write completes, the process exits
// 130 with a message naming the checkpoint, and resuming ends as the
// uninterrupted run.
func TestFaultSIGINTAtEachCheckpointWrite(t *testing.T) {
	fs := setupFaults(t)
	points := fs.writePoints(t, 0)
	for i, p := range points {
		t.Run(fmt.Sprintf("%02d %s", i+1, pointLabel(p)), func(t *testing.T) {
			dir := fs.caseDir(t)
			code, stderr := runChild(t, childEnv+"=sigint", childDirEnv+"="+dir, childPointEnv+"="+strconv.Itoa(i+1))
			if code != 130 || !strings.Contains(stderr, "training interrupted after epoch 2") || !strings.Contains(stderr, "000002.epoch-2") {
				t.Fatalf("exit %d, want 130 and a message naming epoch 2's checkpoint:\n%s", code, stderr)
			}
			if from := fs.finish(t, dir); from != "000002.epoch-2" {
				t.Errorf("resumed from %s, want 000002.epoch-2", from)
			}
		})
	}
}

// TestFaultSIGINTInsideEpoch sends SIGINT before the run starts (it lands
// during the topic start) and before chosen steps: the first, a middle and
// the last step of epoch 2. The step in progress finishes, a checkpoint is
// written (inside the epoch, except after its last step, where the epoch
// ends as usual), the exit code is 130, and resuming ends as the
// uninterrupted run.
func TestFaultSIGINTInsideEpoch(t *testing.T) {
	fs := setupFaults(t)
	steps := int64(len(fs.s.Holdout(fs.g).TrainLinks)+fs.opt.BatchLinks-1) / int64(fs.opt.BatchLinks)
	for _, tc := range []struct {
		name  string
		step  int64
		fresh bool
		gen   string // the generation resumed from
	}{
		{"before the run starts", 0, true, "000001.epoch-1.step-0"},
		{"first step of epoch 2", steps + 1, false, fmt.Sprintf("000002.epoch-2.step-%d", steps+1)},
		{"middle of epoch 2", steps + steps/2, false, fmt.Sprintf("000002.epoch-2.step-%d", steps+steps/2)},
		{"last step of epoch 2", 2 * steps, false, "000002.epoch-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fs.caseDir(t)
			env := []string{childEnv + "=sigint", childDirEnv + "=" + dir, childStepEnv + "=" + strconv.FormatInt(tc.step, 10)}
			if tc.fresh {
				dir = filepath.Join(t.TempDir(), "fresh")
				env = []string{childEnv + "=sigint", childFresh + "=1", childDirEnv + "=" + dir, childStartEnv + "=1"}
			}
			code, stderr := runChild(t, env...)
			if code != 130 || !strings.Contains(stderr, "training interrupted") || !strings.Contains(stderr, tc.gen) {
				t.Fatalf("exit %d, want 130 and a message naming %s:\n%s", code, tc.gen, stderr)
			}
			if from := fs.finish(t, dir); from != tc.gen {
				t.Errorf("resumed from %s, want %s", from, tc.gen)
			}
		})
	}
}

// TestFaultNaNAfterResumeInsideEpoch: a run resumed inside an epoch that
// then meets a NaN rolls back to the epoch's start as the uninterrupted
// run does: the start state saved with the checkpoint is the real one.
func TestFaultNaNAfterResumeInsideEpoch(t *testing.T) {
	fs := setupFaults(t)
	steps := int64(len(fs.s.Holdout(fs.g).TrainLinks)+fs.opt.BatchLinks-1) / int64(fs.opt.BatchLinks)
	poisonAt := steps + steps/2 + 1
	poisonRun := func(tr *Trainer) { poison(t, tr, "tree.decoder.u", poisonAt, 1) }
	// Uninterrupted from epoch 1, with the NaN.
	dir := fs.caseDir(t)
	var env Env
	env.Checkpoint = dir
	a, err := Resume(dir, fs.g, fs.s, env)
	if err != nil {
		t.Fatal(err)
	}
	poisonRun(a)
	if err := a.Run(); err != nil {
		t.Fatal(err)
	}
	if a.State.Rollbacks != 1 {
		t.Fatalf("%d roll-backs, want 1", a.State.Rollbacks)
	}
	// Interrupted two steps before the NaN, resumed, then the NaN.
	dir = fs.caseDir(t)
	env.Checkpoint = dir
	b, err := Resume(dir, fs.g, fs.s, env)
	if err != nil {
		t.Fatal(err)
	}
	b.beforeStep = func(n int64) {
		if n == poisonAt-2 {
			b.Interrupt()
		}
	}
	var stopped *Interrupted
	if err := b.Run(); !errors.As(err, &stopped) || stopped.InEpoch == 0 {
		t.Fatalf("Run: %v, want an interrupt inside the epoch", err)
	}
	if b, err = Resume(dir, fs.g, fs.s, env); err != nil {
		t.Fatal(err)
	}
	poisonRun(b)
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if d := outcomeOf(t, b).diff(t, outcomeOf(t, a)); d != "" {
		t.Errorf("a roll-back after resuming inside the epoch ends otherwise: %s", d)
	}
}

// TestFaultDiskFullAtEachCheckpointWrite fills the disk at every write
// point of the checkpoint after epoch 2 (the checkpoint directory is on a
// small tmpfs, which needs root: without it the test is skipped, saying
// why). Training fails with an error naming a file and "no space left on
// device", leaves no temporary directory behind, and once space is freed,
// resuming ends as the uninterrupted run.
func TestFaultDiskFullAtEachCheckpointWrite(t *testing.T) {
	fs := setupFaults(t)
	if os.Geteuid() != 0 {
		const why = "filling a disk needs a small tmpfs, and mounting one needs root (CI runs as root)"
		if shared.Required() {
			t.Fatalf("%s, and $%s is set (CI): the disk-full cases must run", why, shared.RequireEnv)
		}
		t.Skipf("skipped: %s; set $%s to make this an error", why, shared.RequireEnv)
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Fatalf("mounting a tmpfs at %s as root: %v", mnt, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmounting %s: %v", mnt, err)
		}
	})
	points := fs.writePoints(t, 0)
	for i, p := range points {
		t.Run(fmt.Sprintf("%02d %s", i+1, pointLabel(p)), func(t *testing.T) {
			dir := filepath.Join(mnt, fmt.Sprintf("case%02d", i+1))
			copyDir(t, fs.after, dir)
			defer os.RemoveAll(dir)
			filler := filepath.Join(mnt, "filler")
			defer os.Remove(filler)
			var env Env
			env.Checkpoint = dir
			tr, err := Resume(dir, fs.g, fs.s, env)
			if err != nil {
				t.Fatal(err)
			}
			reached := 0
			restore := faultpoint.Set(func(p string) {
				if strings.Contains(p, dir) {
					if reached++; reached == i+1 {
						fillDisk(t, filler)
					}
				}
			})
			err = tr.Run()
			restore()
			if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Run with a full disk: %v, want an error naming a file in %s and ENOSPC", err, dir)
			}
			for _, name := range dirNames(t, dir) {
				if strings.HasPrefix(name, ".") {
					t.Errorf("a temporary directory %s was left behind", name)
				}
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			fs.finish(t, dir)
		})
	}
}

// fillDisk writes path until the file system has no space left.
func fillDisk(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("filling the disk: %v", err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatalf("filling the disk: %v", err)
		}
	}
}
