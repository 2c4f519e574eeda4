package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readRepoFile reads a file at the repository's root.
func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMEMatchesCode: what the README tells a newcomer is what the code
// does: the Go version of go.mod, a build and an install command for the
// module's path, every default the built-in corpus's profile changes with
// its value (the README named three of six), and what --fd-temp 0 means.
func TestREADMEMatchesCode(t *testing.T) {
	readme := strings.Join(strings.Fields(readRepoFile(t, "README.md")), " ")
	gomod := readRepoFile(t, "go.mod")
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	module := regexp.MustCompile(`(?m)^module (\S+)`).FindStringSubmatch(gomod)[1]
	for _, want := range []string{
		"Go " + m[1] + " or later",
		"go build -o gtformer ./cmd/gtformer",
		"go install " + module + "/cmd/gtformer@latest",
		"`--fd-temp 0` means 1",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}

	// The profile, applied to defaults with no flag given.
	var mf modelFlags
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	mf.register(fs)
	before := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = f.Value.String() })
	mf.builtinProfile(fs)
	phrase := map[string]string{"width": "width %s", "layers": "%s layers", "heads": "%s heads", "mlp": "MLP width %s", "max-len": "maximum length %s", "epochs": "%s epochs"}
	const intro = "defaults shrink to "
	i := strings.Index(readme, intro)
	if i < 0 {
		t.Fatalf("README lacks %q", intro)
	}
	sentence := readme[i:]
	sentence = sentence[:strings.Index(sentence, ".")]
	changed := 0
	fs.VisitAll(func(f *flag.Flag) {
		if p, ok := phrase[f.Name]; ok && f.Value.String() == before[f.Name] &&
			regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(p), "%s", `[0-9]+`)).MatchString(sentence) {
			t.Errorf("README's built-in profile (%q) names --%s, which the profile leaves at its default %s", sentence, f.Name, f.Value)
		}
		if v := f.Value.String(); v != before[f.Name] {
			changed++
			p, ok := phrase[f.Name]
			if !ok {
				t.Errorf("the built-in profile changes --%s, and this test does not know how the README names it", f.Name)
				return
			}
			if !strings.Contains(sentence, fmt.Sprintf(p, v)) {
				t.Errorf("README's built-in profile (%q) does not say %q", sentence, fmt.Sprintf(p, v))
			}
		}
	})
	if changed == 0 {
		t.Error("the built-in profile changes no default, and the README says it shrinks some")
	}
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if !strings.Contains(help.String(), "0 also means 1") {
		t.Error("--fd-temp's help does not say what 0 means")
	}
}
