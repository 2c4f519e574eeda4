package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gtformer/gtformer/preset"
)

var helpFlagLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)

// listedFlags are the flags a help text lists, in order.
func listedFlags(help string) []string {
	var names []string
	for _, m := range helpFlagLine.FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestTrainHelp: -h shows at most 25 flags under the five headings;
// --help-all lists every flag train registers.
func TestTrainHelp(t *testing.T) {
	code, _, short := runCmd("train", "-h")
	if code != 0 {
		t.Fatalf("train -h: exit %d\n%s", code, short)
	}
	if n := len(listedFlags(short)); n > 25 || n < 10 {
		t.Errorf("train -h lists %d flags, want 10 to 25:\n%s", n, short)
	}
	for _, h := range []string{"data", "outputs", "budget", "model size", "evaluation"} {
		if !strings.Contains(short, "\n"+h+":\n") {
			t.Errorf("train -h has no heading %q", h)
		}
	}
	code, _, all := runCmd("train", "--help-all")
	if code != 0 {
		t.Fatalf("train --help-all: exit %d\n%s", code, all)
	}
	var tf trainFlags
	fs := tf.flagSet(io.Discard, preset.DefaultSettings())
	listed := listedFlags(all)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != helpAllFlag && !slices.Contains(listed, f.Name) {
			t.Errorf("train --help-all does not list --%s", f.Name)
		}
	})
	if !strings.Contains(all, "research options") {
		t.Error("train --help-all has no research options")
	}
}

// TestHelpLines: every command's -h and --help-all exit 0 with lines of at
// most 120 characters.
func TestHelpLines(t *testing.T) {
	for name := range commands {
		for _, h := range []string{"-h", "--help-all"} {
			code, _, help := runCmd(append(strings.Fields(name), h)...)
			if code != 0 || !strings.Contains(help, "usage: gtformer "+name) {
				t.Errorf("%s %s: exit %d\n%s", name, h, code, help)
			}
			for _, line := range strings.Split(help, "\n") {
				if n := utf8.RuneCountInString(line); n > helpWidth {
					t.Errorf("%s %s: a line of %d characters: %s", name, h, n, line)
				}
			}
		}
	}
}

// TestFlagGroupsComplete: train and experiment place each of their flags
// in exactly one group, and their groups name only their flags; no
// command lists a flag twice.
func TestFlagGroupsComplete(t *testing.T) {
	for fsName, groups := range flagGroups {
		name := strings.TrimPrefix(fsName, "gtformer ")
		_, _, all := runCmd(append(strings.Fields(name), "--help-all")...)
		listed := listedFlags(all)
		seen := map[string]int{}
		for _, f := range listed {
			if seen[f]++; seen[f] == 2 {
				t.Errorf("%s --help-all lists --%s twice", name, f)
			}
		}
		if name != "train" && name != "experiment" {
			continue
		}
		if strings.Contains(all, "\nflags:\n") {
			t.Errorf("%s: flags in no group:\n%s", name, all[strings.Index(all, "\nflags:\n"):])
		}
		for _, g := range groups {
			for _, f := range g.flags {
				if !slices.Contains(listed, f) {
					t.Errorf("%s: group %q names --%s, which the command does not have", name, g.title, f)
				}
			}
		}
	}
}

// parseTrain parses train's flags as the command does.
func parseTrain(t *testing.T, args ...string) *trainFlags {
	t.Helper()
	var tf *trainFlags
	_, err := parseWithPreset(args, func(s preset.Settings) (*flag.FlagSet, *string) {
		tf = &trainFlags{}
		return tf.flagSet(io.Discard, s), &tf.preset
	})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return tf
}

// fieldDiff names the fields in which a and b (structs of one type)
// differ, by their path.
func fieldDiff(prefix string, a, b reflect.Value) []string {
	if a.Kind() == reflect.Struct {
		var out []string
		for i := range a.NumField() {
			out = append(out, fieldDiff(prefix+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
		}
		return out
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return []string{fmt.Sprintf("%s: %v, want %v", prefix, a.Interface(), b.Interface())}
	}
	return nil
}

// paperFlags is the paper's configuration as the README gave it in flags
// before --preset existed.
const paperFlags = "--feature-hops 0 --feature-skip=false --mask-targets=false --lambda-level 0 --prune-by subtree " +
	"--keep-depth=false --fd-contrast 0.95 --decoder-lr-scale 1 --background=false --fit-similarity none --decoder-refit 0 " +
	"--final-prune-below 0 --background-mix-at-end 0 --select best --hops 1 --topic-init random --steps-root 0"

// TestPresetPaper: --preset paper sets, field by field, what the paper's
// flag string sets; flags given with it override it; an unknown preset is
// a usage error.
func TestPresetPaper(t *testing.T) {
	got := parseTrain(t, "--preset", "paper")
	want := parseTrain(t, strings.Fields(paperFlags)...)
	for _, d := range append(fieldDiff("Config", reflect.ValueOf(got.mf.cfg), reflect.ValueOf(want.mf.cfg)),
		fieldDiff("Options", reflect.ValueOf(got.mf.opt), reflect.ValueOf(want.mf.opt))...) {
		t.Error("--preset paper: " + d)
	}
	def := parseTrain(t)
	if reflect.DeepEqual(def.mf.cfg, got.mf.cfg) {
		t.Error("--preset paper equals the default")
	}
	for _, c := range []struct {
		args []string
		hops int
	}{
		{[]string{"--preset", "paper", "--hops", "2"}, 2},
		{[]string{"--hops", "2", "--preset", "paper"}, 2},
		{[]string{"--preset", "paper"}, 1},
		{[]string{"--preset", "default"}, 2},
	} {
		if h := parseTrain(t, c.args...).mf.cfg.Hops; h != c.hops {
			t.Errorf("%v: hops %d, want %d", c.args, h, c.hops)
		}
	}
	if code, _, errs := runCmd("train", "--preset", "papers"); code != 2 || !strings.Contains(errs, `"papers"`) {
		t.Errorf("--preset papers: exit %d, %s", code, errs)
	}
	// A resumed run has its checkpoint's settings: a preset would be
	// silently ignored.
	if code, _, errs := runCmd("train", "--resume", "--preset", "paper", "--out", t.TempDir()); code != 2 || !strings.Contains(errs, "--preset with --resume") {
		t.Errorf("--resume --preset paper: exit %d, %s", code, errs)
	}
}

// TestCLIDocCurrent: docs/cli.md is what `gtformer help --markdown` writes.
func TestCLIDocCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := writeCLIDoc(&b); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/cli.md is missing or stale (%v): regenerate it with `%s`", err, cliDocCommand)
	}
}
