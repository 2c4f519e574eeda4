package repo

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestRootIsTheMainModule(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "beam", "go.mod")); err != nil {
		t.Errorf("root %s has no beam/go.mod: %v", root, err)
	}
	if got := modulePath(filepath.Join(root, "beam", "go.mod")); got != MainModule+"/beam" {
		t.Errorf("beam/go.mod declares %q", got)
	}
}

// TestSharedMissing: an absent shared file fails the test in CI and skips
// it otherwise, each with a message naming the file.
func TestSharedMissing(t *testing.T) {
	t.Setenv("GTFORMER_SHARED", t.TempDir())
	for _, tc := range []struct {
		require         string
		failed, skipped bool
	}{{"1", true, false}, {"", false, true}, {"0", false, true}} {
		t.Setenv(RequireEnv, tc.require)
		rec := &recorder{TB: t}
		done := make(chan struct{})
		go func() { // Fatalf and Skipf end the goroutine, as they end a test
			defer close(done)
			Shared(rec, "data/none")
		}()
		<-done
		if rec.failed != tc.failed || rec.skipped != tc.skipped || rec.msg == "" {
			t.Errorf("$%s=%q: failed %v skipped %v (%q)", RequireEnv, tc.require, rec.failed, rec.skipped, rec.msg)
		}
	}
}

// recorder records Fatalf and Skipf instead of ending the test.
type recorder struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, a ...any) {
	r.failed, r.msg = true, format
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, a ...any) {
	r.skipped, r.msg = true, format
	runtime.Goexit()
}
