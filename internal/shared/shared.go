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

// RequireEnv names the environment variable that makes a missing shared
// folder an error: CI (.ci/run) sets it, so the tests that read the
// datasets and reference vectors always run there. Outside CI they skip
// with a message.
const RequireEnv = "GTFORMER_REQUIRE_SHARED"

// Required reports whether a missing shared file fails the test
// ($GTFORMER_REQUIRE_SHARED is set and not "0").
func Required() bool {
	v := os.Getenv(RequireEnv)
	return v != "" && v != "0"
}

// Path returns the path of rel inside the shared folder. When the folder
// or the file is absent it fails the test if Required, and otherwise skips
// it with a message saying what is missing.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		missing(tb, "shared folder not found (expected ../shared beside the repository, or $GTFORMER_SHARED)")
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		missing(tb, "shared file "+p+" absent")
	}
	return p
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s, and $%s is set: the tests that need it must run", what, RequireEnv)
	}
	tb.Skipf("%s; skipping (set $%s to make this an error)", what, RequireEnv)
}

// Dataset returns the folder of a shared dataset ("ml", "pl", "covid"),
// skipping the test when it is absent.
func Dataset(tb testing.TB, name string) string {
	tb.Helper()
	return Path(tb, filepath.Join("data", name))
}
