// Package shared locates the ../shared folder that sits beside the repository
// (datasets, spec, test vectors) for tests and benchmarks.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the shared folder: $GTFORMER_SHARED when
// set, else ../shared relative to the module root (the folder holding go.mod,
// found by walking up from the working directory). It returns "" when there
// is none.
func Dir() string {
	if d := os.Getenv("GTFORMER_SHARED"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			if fi, err := os.Stat(s); err == nil && fi.IsDir() {
				return s
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Path returns the path of rel inside the shared folder, skipping the test
// with a clear message when the folder or the file is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared folder not found (expected ../shared beside the repository, or $GTFORMER_SHARED); skipping")
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared file %s absent; skipping", p)
	}
	return p
}

// Dataset returns the folder of a shared dataset ("ml", "pl", "covid"),
// skipping the test when it is absent.
func Dataset(tb testing.TB, name string) string {
	tb.Helper()
	return Path(tb, filepath.Join("data", name))
}
