//go:build !openblas

// The command's part of the fault-injection suite (go test -run Fault
// ./...): gtformer train killed or interrupted as a process, and resumed
// with the command it prints. The OpenBLAS build leaves it out: it tests
// processes and files, not arithmetic.

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gtformer/gtformer/internal/faultpoint"
	"github.com/gtformer/gtformer/internal/faultpoint/faulttest"
)

// Environment of a child: the test binary run as gtformer, with a fault at
// the nth write point whose name contains a string.
const (
	cmdChildEnv = "GTFORMER_CMD_CHILD"     // the fault: "kill", "SIGINT" or "SIGTERM"
	cmdVerbEnv  = "GTFORMER_CMD_FAULT_AT"  // the point's kind: "commit", "committed", "checkpoint rename", ...
	cmdDirEnv   = "GTFORMER_CMD_FAULT_DIR" // under this directory
	cmdNthEnv   = "GTFORMER_CMD_FAULT_NTH" // which matching point (1-based)
)

func TestMain(m *testing.M) {
	if fault := os.Getenv(cmdChildEnv); fault != "" {
		verb, dir := os.Getenv(cmdVerbEnv)+" ", os.Getenv(cmdDirEnv)
		nth, _ := strconv.Atoi(os.Getenv(cmdNthEnv))
		seen := 0
		faultpoint.Set(func(p string) {
			if !strings.HasPrefix(p, verb) || !strings.Contains(p, dir) {
				return
			}
			if seen++; seen != nth {
				return
			}
			switch fault {
			case "kill":
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			case "SIGINT", "SIGTERM":
				sig := syscall.SIGINT
				if fault == "SIGTERM" {
					sig = syscall.SIGTERM
				}
				syscall.Kill(os.Getpid(), sig)
				for deadline := time.Now().Add(10 * time.Second); interruptsHandled.Load() == 0; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						os.Stderr.WriteString("child: the signal was not handled in 10 s\n")
						os.Exit(1)
					}
				}
			}
		})
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runGtformer runs gtformer as a child process with a fault; code is
// faulttest.Killed when SIGKILL ended it.
func runGtformer(t *testing.T, fault, verb, dir string, nth int, args ...string) (code int, stderr string) {
	t.Helper()
	code, stderr, err := faulttest.RunChild(args, []string{cmdChildEnv + "=" + fault, cmdVerbEnv + "=" + verb, cmdDirEnv + "=" + dir, cmdNthEnv + "=" + strconv.Itoa(nth)})
	if err != nil {
		t.Fatalf("running gtformer: %v", err)
	}
	return code, stderr
}

// scores is metrics.json without its wall-clock fields.
func scores(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "train_seconds")
	delete(m, "docs_per_sec")
	delete(m, "phases")
	delete(m, "phase_peak_rss_gb")
	b, _ := json.Marshal(m)
	return string(b)
}

// TestFaultTrainCommand stops `gtformer train` on the built-in corpus (a
// tiny model, two epochs) as a user or the system would: SIGINT and SIGTERM
// while the first epoch's checkpoint is being written (exit 130 and 143;
// the message names the checkpoint and gives the command that continues),
// and kill -9 while the second epoch's is being switched in. Running the
// printed command, or the same command with --resume, ends with the
// uninterrupted run's metrics.
func TestFaultTrainCommand(t *testing.T) {
	flags := []string{"--epochs", "2", "--width", "8", "--heads", "2", "--layers", "2", "--mlp", "16", "--max-len", "16", "--topic-warmup", "20", "--seed", "3", "--quiet"}
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	if code, _, errs := runCmd(append([]string{"train", "--out", whole}, flags...)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, errs)
	}
	want := scores(t, whole)
	for _, tc := range []struct {
		fault, match string
		nth, code    int
	}{
		{"SIGINT", "commit", 3, 130},     // the first checkpoint's weights.safetensors
		{"SIGTERM", "committed", 1, 143}, // its config.json, in place
		{"kill", "checkpoint rename", 2, faulttest.Killed},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"train", "--out", out}, flags...)
			code, stderr := runGtformer(t, tc.fault, tc.match, filepath.Join(out, "checkpoint")+"/", tc.nth, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			again := append(args, "--resume")
			if tc.code > 0 {
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, "to continue: gtformer train ") || !strings.Contains(stderr, "training interrupted after epoch 1") || !strings.Contains(stderr, "000001.epoch-1") {
					t.Fatalf("the message does not name the checkpoint and the command that continues:\n%s", stderr)
				}
				again = strings.Fields(strings.TrimPrefix(last, "to continue: gtformer "))
			}
			if code, _, errs := runCmd(again...); code != 0 {
				t.Fatalf("%v: exit %d: %s", again, code, errs)
			}
			if got := scores(t, out); got != want {
				t.Errorf("after the fault and resuming:\n%s\nuninterrupted:\n%s", got, want)
			}
		})
	}
}

// validScores is valid.json without its wall-clock fields (the run's and
// each epoch's seconds and documents per second).
func validScores(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "valid.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "train_seconds")
	hist, _ := m["history"].([]any)
	if len(hist) == 0 {
		t.Fatalf("valid.json has no history: %s", raw)
	}
	for _, e := range hist {
		delete(e.(map[string]any), "seconds")
		delete(e.(map[string]any), "docs_per_sec")
		delete(e.(map[string]any), "elapsed_seconds")
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestFaultTrainValidOnly: a `gtformer train --valid-only` run interrupted
// (SIGINT while its first checkpoint is written) or killed (kill -9 while
// its second is switched in) and continued ends with the uninterrupted
// run's valid.json, and writes nothing else (no test-split outputs).
func TestFaultTrainValidOnly(t *testing.T) {
	flags := []string{"--valid-only", "--epochs", "2", "--width", "8", "--heads", "2", "--layers", "2", "--mlp", "16", "--max-len", "16", "--topic-warmup", "20", "--seed", "5", "--quiet"}
	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, errs := runCmd(append([]string{"train", "--out", whole}, flags...)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, errs)
	}
	want := validScores(t, whole)
	for _, tc := range []struct {
		fault, match string
		nth, code    int
	}{
		{"SIGINT", "commit", 3, 130},
		{"kill", "checkpoint rename", 2, faulttest.Killed},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"train", "--out", out}, flags...)
			code, stderr := runGtformer(t, tc.fault, tc.match, filepath.Join(out, "checkpoint")+"/", tc.nth, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			again := append(args, "--resume")
			if tc.code > 0 {
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, "to continue: gtformer train ") || !strings.Contains(last, "--valid-only") {
					t.Fatalf("the message does not give the command that continues the --valid-only run:\n%s", stderr)
				}
				again = strings.Fields(strings.TrimPrefix(last, "to continue: gtformer "))
			}
			if code, _, errs := runCmd(again...); code != 0 {
				t.Fatalf("%v: exit %d: %s", again, code, errs)
			}
			if got := validScores(t, out); got != want {
				t.Errorf("after the fault and resuming:\n%s\nuninterrupted:\n%s", got, want)
			}
			for _, name := range []string{"metrics.json", "doc_embeddings.npy", "map.png"} {
				if _, err := os.Stat(filepath.Join(out, name)); err == nil {
					t.Errorf("a --valid-only run wrote %s", name)
				}
			}
		})
	}
}
