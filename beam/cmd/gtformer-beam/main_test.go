package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/beam/embedpipe"
)

// TestEmbedRefusesBeforeRunning: a problem Prepare finds is exit 1 with
// one message naming it, and nothing runs. (The pipeline itself is tested
// in package embedpipe.)
func TestEmbedRefusesBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(o *embedpipe.Options)
		want string
	}{
		{"no input", func(o *embedpipe.Options) {}, "no file matches"},
		{"bad batch", func(o *embedpipe.Options) { o.Batch = 0 }, "must be positive"},
	} {
		o := embedpipe.Defaults()
		o.Input, o.Model, o.Out = filepath.Join(dir, "*.jsonl"), filepath.Join(dir, "model"), filepath.Join(dir, "out")
		tc.edit(&o)
		var stdout, stderr bytes.Buffer
		if code := embed(context.Background(), o, false, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, stdout.String(), stderr.String())
		}
	}
	if c := counters(nil); len(c) != 0 {
		t.Errorf("counters of no result: %v", c)
	}
}

// TestRetryHelpers: the race is recognised by its trace, and only the
// pipeline's files are removed before a job runs again.
func TestRetryHelpers(t *testing.T) {
	race := errors.New("panic in stage.Execute bundle processing goroutine: runtime error: invalid memory address or nil pointer dereference\n" +
		"worker.(*W).sendInstruction(0x0, {0x2ea5aa0, 0x1}, 0x2)\nworker.(*B).Progress(0x3, {0x4, 0x5}, 0x0)")
	if !prismProgressRace(race) || prismProgressRace(errors.New("panic in stage.Execute: nil pointer dereference in a DoFn")) {
		t.Error("prismProgressRace does not tell the race from other failures")
	}
	dir := t.TempDir()
	mine := []string{"embeddings-00000-of-00004.jsonl", "embeddings-00001-of-00004.npy.tmp-abcdef", "deadletters-00000-of-00001.jsonl", "topic_counts.json"}
	theirs := []string{"notes.txt", "embeddings.md"}
	for _, f := range append(append([]string{}, mine...), theirs...) {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeOutputs(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range mine {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
	for _, f := range theirs {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}
