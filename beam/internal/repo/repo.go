// Package repo locates, for the beam module's tests, the repository this
// module sits in (the main module, one level up) and the shared folder of
// datasets beside it. It follows the main module's internal/shared
// conventions, which a nested module cannot import: $GTFORMER_SHARED
// overrides the location, and a missing folder fails the test when
// $GTFORMER_REQUIRE_SHARED is set (CI) and skips it with a message
// otherwise.
package repo

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MainModule is the main module's path.
const MainModule = "github.com/gtformer/gtformer"

// Root returns the directory of the main module's go.mod, found by walking
// up from the working directory past this module's own go.mod.
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repo: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if modulePath(filepath.Join(d, "go.mod")) == MainModule {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("repo: no go.mod of " + MainModule + " above " + wd)
		}
	}
}

// modulePath returns the module path a go.mod declares ("" if none).
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// RequireEnv makes a missing shared folder an error (set by .ci/run).
const RequireEnv = "GTFORMER_REQUIRE_SHARED"

// Shared returns the path of rel inside the shared folder ($GTFORMER_SHARED,
// else ../shared beside the repository). When it is absent the test fails
// if $GTFORMER_REQUIRE_SHARED is set (and not "0"), and is skipped with a
// message otherwise.
func Shared(tb testing.TB, rel string) string {
	tb.Helper()
	dir := os.Getenv("GTFORMER_SHARED")
	if dir == "" {
		root, err := Root()
		if err != nil {
			missing(tb, err.Error())
		}
		dir = filepath.Join(filepath.Dir(root), "shared")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		missing(tb, "shared file "+p+" absent")
	}
	return p
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	if v := os.Getenv(RequireEnv); v != "" && v != "0" {
		tb.Fatalf("%s, and $%s is set: the tests that need it must run", what, RequireEnv)
	}
	tb.Skipf("%s; skipping (set $%s to make this an error)", what, RequireEnv)
}
