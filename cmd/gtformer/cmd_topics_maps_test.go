package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// checkTopicsMapsCmd runs `topics facets` and `topics links` on a model of
// the built-in corpus (labelled by its planted branches) in dir.
func checkTopicsMapsCmd(t *testing.T, dir string) {
	t.Helper()
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"topics", "facets", "--model", dir, "--field", "label"}, 0, []string{"topic 0, field label (string, bins by value)", "itself", "sports"}},
		{[]string{"topics", "facets", "--model", dir, "--field", "label", "--topic", "1", "--docs"}, 0, []string{"topic 1, field label", "share of each bin's documents"}},
		{[]string{"topics", "facets", "--model", dir, "--field", "year"}, 2, []string{`field "year": not found: the fields are label`}},
		{[]string{"topics", "facets", "--model", dir, "--field", "label", "--bin", "year"}, 2, []string{`holds strings: bin by value`}},
		{[]string{"topics", "facets", "--model", dir, "--field", "label", "--topic", "99"}, 2, []string{"topic 99: not found"}},
		{[]string{"topics", "links", "--model", dir}, 0, []string{"level 1: 3 topics, 3000 links; mean lift inside a branch", "strongest cross-branch pairs"}},
		{[]string{"topics", "links", "--model", dir, "--level", "2", "--top", "0"}, 0, []string{"level 2: 9 topics", "siblings"}},
		{[]string{"topics", "links", "--model", dir, "--level", "3"}, 2, []string{"--level 3: the tree has levels 1 to 2 below the root"}},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%v: output lacks %q:\n%s%s", tc.args, w, out, errs)
			}
		}
	}
	// The CSVs: a row per bin and series, a row per pair.
	code, out, errs := runCmd("topics", "facets", "--model", dir, "--field", "label", "--csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 1+3*5 || strings.Join(rows[0], ",") != "bin,lo,hi,docs,words,series,topic,word_share,doc_share" {
		t.Errorf("facets --csv: exit %d %v: %q %s", code, err, out, errs)
	}
	code, out, errs = runCmd("topics", "links", "--model", dir, "--level", "2", "--csv")
	rows, err = csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 1+9*10/2 || rows[1][4] != "true" {
		t.Errorf("links --csv: exit %d %v: %q %s", code, err, out, errs)
	}
}

func TestTopicsMapsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"topics", "facets", "--field", "year"}, "--model and --field are required"},
		{[]string{"topics", "facets", "--model", "m"}, "--model and --field are required"},
		{[]string{"topics", "facets", "--model", "m", "--field", "f", "--bin", "week"}, `--bin "week": want year, month, quantile or value`},
		{[]string{"topics", "facets", "--model", "m", "--field", "f", "--top", "0"}, "--top and --quantiles must be positive"},
		{[]string{"topics", "links"}, "--model is required"},
		{[]string{"topics", "links", "--model", "m", "--top", "-1"}, "--top must not be negative"},
		{[]string{"topics", "links", "--model", "m", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errs := runCmd(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
