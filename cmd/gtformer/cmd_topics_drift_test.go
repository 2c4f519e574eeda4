package main

import (
	"encoding/csv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"gonum.org/v1/gonum/stat"
)

// TestFacetsRecoverDrift: the built-in corpus with --years plants a branch
// whose documents grow in number over the years; a small model trained on
// it has, at level 1, a node matching that branch (the node holding most
// of the branch's label's words) whose share of the words rises with the
// year (correlation over five year bins above 0.8), and no other node's
// does (below 0.3).
func TestFacetsRecoverDrift(t *testing.T) {
	data := filepath.Join(t.TempDir(), "synth")
	if code, out, errs := runCmd("data", "synth", "--out", data, "--years", "2000-2020"); code != 0 {
		t.Fatalf("data synth: exit %d %s%s", code, out, errs)
	}
	g, err := corpus.LoadFolder(data, corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Fields) != 1 || g.Fields[0].Name != "year" || g.Fields[0].Kind != corpus.KindNumber {
		t.Fatalf("synth --years fields: %+v", g.Fields)
	}
	model := filepath.Join(t.TempDir(), "model")
	if code, out, errs := runCmd(append([]string{"train", "--data", data, "--out", model}, smallTrain...)...); code != 0 {
		t.Fatalf("train: exit %d %s%s", code, out, errs)
	}
	facet := func(args ...string) []map[string]string {
		t.Helper()
		code, out, errs := runCmd(append([]string{"topics", "facets", "--model", model, "--data", data, "--csv"}, args...)...)
		if code != 0 {
			t.Fatalf("topics facets %v: exit %d %s", args, code, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var out2 []map[string]string
		for _, r := range rows[1:] {
			m := map[string]string{}
			for k, name := range rows[0] {
				m[name] = r[k]
			}
			out2 = append(out2, m)
		}
		return out2
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	// The level-1 node holding most of the rising branch's words.
	label := g.LabelNames[synth.Rising-1]
	match, best := "", -1.0
	for _, r := range facet("--field", "label") {
		if r["bin"] == label && r["series"] == "child" && num(r["word_share"]) > best {
			match, best = r["topic"], num(r["word_share"])
		}
	}
	years := map[string][]float64{}
	shares := map[string][]float64{}
	for _, r := range facet("--field", "year", "--bin", "quantile", "--quantiles", "5") {
		if r["series"] != "child" {
			continue
		}
		id := r["topic"]
		years[id] = append(years[id], (num(r["lo"])+num(r["hi"]))/2)
		shares[id] = append(shares[id], num(r["word_share"]))
	}
	if len(shares) < 2 || shares[match] == nil {
		t.Fatalf("matched node %q (%.2f of %s's words); year facets %v", match, best, label, shares)
	}
	for id := range shares {
		r := stat.Correlation(years[id], shares[id], nil)
		t.Logf("node %s: share by year %.3v, correlation %.2f", id, shares[id], r)
		switch {
		case id == match && r <= 0.8:
			t.Errorf("node %s, matching the rising branch %q: correlation of its share with the year %.2f, want > 0.8", id, label, r)
		case id != match && r >= 0.3:
			t.Errorf("node %s, another branch: correlation of its share with the year %.2f, want < 0.3", id, r)
		}
	}
}
