package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainMemProfile: --memprofile writes a gzipped pprof heap profile
// (its sample types name inuse_space and alloc_space) at the end of the
// phase named; a phase that never runs (here on a --valid-only run) gets
// a note and the profile of the run's end; a FILE whose
// folder is missing, or a folder, is a usage error before training.
func TestTrainMemProfile(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		file     string // the profile written, relative to tmp
		stderr   string // what stderr contains
		noStderr bool   // --quiet: nothing on stderr
	}{
		{"features phase", []string{"--memprofile", filepath.Join(tmp, "features.pprof"), "--quiet"}, 0, "features.pprof", "", true},
		{"valid-only, a phase that never runs", []string{"--memprofile", filepath.Join(tmp, "end.pprof"), "--memprofile-phase", "no such phase", "--valid-only"}, 0, "end.pprof",
			`--memprofile-phase "no such phase" did not run (phases: load, split and sampler, tf-idf, features`, false},
		{"missing folder", []string{"--memprofile", filepath.Join(tmp, "none", "heap.pprof"), "--quiet"}, 2, "", "its folder " + filepath.Join(tmp, "none") + " does not exist", false},
		{"a folder", []string{"--memprofile", tmp, "--quiet"}, 2, "", "--memprofile: ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := []string{"train", "--out", out}
			for _, a := range tinyTrain {
				if a != "--quiet" { // the cases say
					args = append(args, a)
				}
			}
			args = append(args, tc.args...)
			code, stdout, errs := runCmd(args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, errs)
			}
			if tc.noStderr && errs != "" {
				t.Errorf("--quiet train wrote to stderr:\n%s", errs)
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errs)
			}
			if tc.file == "" {
				return
			}
			raw, err := os.ReadFile(filepath.Join(tmp, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("the profile is not gzipped: %v", err)
			}
			pb, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"inuse_space", "alloc_space"} {
				if !bytes.Contains(pb, []byte(want)) {
					t.Errorf("the profile has no %s samples", want)
				}
			}
		})
	}
}
