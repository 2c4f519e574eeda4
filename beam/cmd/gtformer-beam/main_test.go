package main

import (
	"bytes"
	"context"
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
