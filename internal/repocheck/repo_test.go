package repocheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

// The patterns are put together from pieces so that this file, which is
// tracked too, does not match them.
var (
	// machineRoots are top-level folders that exist only on some machine:
	// the work and home folders the project's runs and notes were made in.
	machineRoots = []string{"work", "home", "root", "Users"}
	// scratchPrefix is the start of the scratch binaries and run folders
	// the validation rounds used under the system's temporary folder
	// (gt8, gt-q17, gtformer-ci, ...). A bare temporary folder (mktemp,
	// t.TempDir, a TMPDIR default) does not match: only a named file in it
	// is a machine path.
	scratchPrefix = "/" + "tmp" + "/gt"
	// machinePath matches one of them where a path starts: at the start of
	// a line or after a space, quote, bracket or separator, so that URL
	// paths (https://host/work/...) and relative paths (docs/work/...) do not.
	machinePath = regexp.MustCompile("(^|[\\s\"'`(\\[{<=,;:|])(/(" + strings.Join(machineRoots, "|") + ")/|" + regexp.QuoteMeta(scratchPrefix) + ")")
)

// findMachinePaths returns the lines of text that hold a machine path, as
// "line: text".
func findMachinePaths(text []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), len(text)+1)
	for n := 1; sc.Scan(); n++ {
		if machinePath.Match(sc.Bytes()) {
			line := sc.Text()
			if len(line) > 160 {
				line = line[:160] + "..."
			}
			out = append(out, fmt.Sprintf("%d: %s", n, line))
		}
	}
	return out
}

// isText reports whether data looks like text: no NUL byte in its first
// 8000 bytes, as git decides.
func isText(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) < 0
}

func TestFindMachinePaths(t *testing.T) {
	// <w> stands for the work root, <h> the home root, <t> the scratch
	// prefix: see the var block on why they are not written out.
	expand := strings.NewReplacer("<w>", "/"+"work/", "<h>", "/"+"home/", "<t>", scratchPrefix).Replace
	tests := []struct {
		text string
		want bool
	}{
		{"gtformer train --data <w>shared/data/ml", true},
		{"<w>gt8 --data ml --seed 1", true},
		{"binary <t>-q17 (main 5df2d8d)", true},
		{"(cd <h>alice/gtformer && go test)", true},
		{"`<w>exp/idle.sh`", true},
		{"--out=<w>exp/rec", true},
		{"path: '<h>bob/x'", true},
		{"W=$(mktemp -d -t gtformer-scale.XXXXXX)", false},
		{"dir := t.TempDir()", false},
		{"TMP=${TMPDIR:-/" + "tmp}", false},
		{"mktemp -p /" + "tmp", false},
		{"see https://example.org<w>index.html", false},
		{"GET /v1<h>x", false},
		{"docs<w>notes.md", false},
		{"--data data/ml --out ml-model", false},
		{"an empty line follows\n\nthen <w>x on line 3", true},
	}
	for _, tc := range tests {
		text := expand(tc.text)
		if got := len(findMachinePaths([]byte(text))) > 0; got != tc.want {
			t.Errorf("findMachinePaths(%q) found %v, want %v", text, got, tc.want)
		}
	}
	if got := findMachinePaths([]byte(expand("a\n\nthen <w>x"))); len(got) != 1 || !strings.HasPrefix(got[0], "3: ") {
		t.Errorf("findMachinePaths gives %q, want the match on line 3", got)
	}
}

// repoRoot returns the top of the git work tree holding this package, and
// fails the test (CI: $GTFORMER_REQUIRE_SHARED set) or skips it when git or
// the repository is missing.
func repoRoot(t *testing.T) string {
	t.Helper()
	fail := t.Skipf
	if shared.Required() {
		fail = t.Fatalf
	}
	if _, err := exec.LookPath("git"); err != nil {
		fail("repocheck: git not found (%v): cannot list the tracked files; $%s makes this an error", err, shared.RequireEnv)
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		fail("repocheck: not in a git work tree (%v): cannot list the tracked files; $%s makes this an error", err, shared.RequireEnv)
	}
	return strings.TrimSpace(string(out))
}

func TestNoMachinePaths(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("repocheck: git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 10 {
		t.Fatalf("repocheck: git ls-files lists %d files: not the repository", len(files))
	}
	var bad []string
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatalf("repocheck: %v", err)
		}
		if !isText(data) {
			continue
		}
		checked++
		for _, hit := range findMachinePaths(data) {
			bad = append(bad, f+":"+hit)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d lines of tracked files name a folder of a particular machine; "+
			"write them relative to the repository, with a placeholder (DIR, $TMP) or by what they are:\n%s",
			len(bad), strings.Join(bad, "\n"))
	}
	t.Logf("checked %d tracked text files", checked)
}
