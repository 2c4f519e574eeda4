package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinyRecord = `dataset,supervised,model,variant,seed,knn_micro_f1,link_auc,npmi,log_perplexity,level_share
ml,false,gtformer,default,1,80,90,10,6.5,0.5/0.5
ml,false,gtformer,default,2,82,92,12,6.7,0.3/0.7
ml,false,gtformer,default,3,84,91,,6.6,0.4/0.6/0.2
ml,false,gtformer,euclidean,1,79,89,9,6.6,
ml,false,gtformer,euclidean,2,80,90,13,6.6,
ml,true,gtformer,default,1,85,93,11,6.4,
ml,,lda,T=13,1,60,80,12,6.2,
ml,,lda,T=13,2,64,84,13,6.3,
ml,,baseline,tfidf,,70,81,,,
`

const tinyValidation = `run,dataset,seed,build,command,last_knn_micro_f1,last_link_auc,kept_link_auc,npmi,level_share,npmi_per_level
ml-a-s1,ml,1,gt1,gtformer train --data ml --seed 1,80,90,91,10,0.5/0.5,1/20
ml-a-s2,ml,2,gt1,gtformer train --data ml --seed 2,84,94,94,14,0.3/0.7,3/22
ml-b-s1,ml,1,gt1,gtformer train --data ml --seed 1 --tree fixed,81,91,91,9,,
ml-b-s2,ml,2,gt1,gtformer train --data ml --seed 2 --tree fixed,82,90,92,11,,
pl-a-s1,pl,1,gt1,gtformer train --data pl --seed 1,70,85,85,12,,
`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tableAfter parses the first markdown table after the first line holding
// marker: row label → column label → cell.
func tableAfter(t *testing.T, out, marker string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := 0
	for i < len(lines) && !strings.Contains(lines[i], marker) {
		i++
	}
	for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
		i++
	}
	if i == len(lines) {
		t.Fatalf("no table after %q in:\n%s", marker, out)
	}
	split := func(l string) []string {
		parts := strings.Split(strings.Trim(l, "|"), "|")
		for k := range parts {
			parts[k] = strings.TrimSpace(parts[k])
		}
		return parts
	}
	header := split(lines[i])
	rows := map[string]map[string]string{}
	for _, l := range lines[i+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := split(l)
		rows[cells[0]] = map[string]string{}
		for k, c := range cells[1:] {
			rows[cells[0]][header[k+1]] = c
		}
	}
	return rows
}

func runOut(t *testing.T, args ...string) string {
	t.Helper()
	var b strings.Builder
	if err := run(args, &b); err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return b.String()
}

func TestRecordTables(t *testing.T) {
	path := writeFile(t, "tiny.csv", tinyRecord)
	out := runOut(t, "-pair", "default,euclidean", path)
	main := tableAfter(t, out, "## ml (unsupervised)")
	topics := tableAfter(t, out, "### ml (unsupervised): topics")
	lda := tableAfter(t, out, "gtformer − LDA (T = 13)")
	pair := tableAfter(t, out, "default − euclidean")
	sup := tableAfter(t, out, "## ml (supervised)")
	tests := []struct {
		name      string
		table     map[string]map[string]string
		row, col  string
		wantValue string
	}{
		// 80, 82, 84: mean 82, sample sd 2.
		{"mean ± sd", main, "gtformer default", "kNN Micro-F1", "82.0 ± 2.0 (3)"},
		{"digits of log-perplexity", main, "gtformer default", "log-perplexity", "6.60 ± 0.10 (3)"},
		// seed 3 has no NPMI: 10, 12 over two seeds.
		{"an empty cell is left out", main, "gtformer default", "NPMI (%)", "11.0 ± 1.4 (2)"},
		{"second variant", main, "gtformer euclidean", "NPMI (%)", "11.0 ± 2.8 (2)"},
		{"LDA row", main, "LDA (T = 13)", "link AUC", "82.0 ± 2.8 (2)"},
		{"baseline: one value", main, "baseline tfidf", "kNN Micro-F1", "70.0 (1)"},
		{"baseline without a figure", main, "baseline tfidf", "NPMI (%)", "–"},
		{"supervised group apart", sup, "gtformer default", "kNN Micro-F1", "85.0 (1)"},
		{"LDA joins the supervised group", sup, "LDA (T = 13)", "kNN Micro-F1", "62.0 ± 2.8 (2)"},
		// level 3 only in seed 3: averaged over the runs that have it.
		{"levels root first", topics, "gtformer default", "level share (root first)", "0.400 / 0.600 / 0.200"},
		{"LDA has no levels", topics, "LDA (T = 13)", "level share (root first)", "–"},
		// seeds 1, 2: 80−60, 82−64.
		{"paired with LDA", lda, "default", "Δ kNN Micro-F1", "+19.0 ± 1.4 (2), 2/2"},
		{"paired, lower is better", lda, "default", "Δ log-perplexity ↓", "+0.35 ± 0.07 (2), 2/2"},
		// seeds 1, 2: 80−79, 82−80.
		{"paired variants", pair, "default", "Δ kNN Micro-F1", "+1.5 ± 0.7 (2), 2/2"},
		// 10−9, 12−13: mean 0, no seed has its sign.
		{"paired, zero mean", pair, "default", "Δ NPMI (%)", "+0.0 ± 1.4 (2), 0/2"},
		// 90−89, 92−90.
		{"paired link AUC", pair, "default", "Δ link AUC", "+1.5 ± 0.7 (2), 2/2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.table[tc.row][tc.col]
			if !ok {
				t.Fatalf("no cell %q/%q in %v", tc.row, tc.col, tc.table)
			}
			if got != tc.wantValue {
				t.Errorf("%s / %s = %q, want %q", tc.row, tc.col, got, tc.wantValue)
			}
		})
	}
	reverse := tableAfter(t, runOut(t, "-pair", "euclidean,default", path), "euclidean − default")
	if got, want := reverse["euclidean"]["Δ kNN Micro-F1"], "−1.5 ± 0.7 (2), 2/2"; got != want {
		t.Errorf("euclidean − default kNN = %q, want %q (a true minus sign)", got, want)
	}
	if _, ok := lda["euclidean"]["Δ kNN Micro-F1"]; !ok {
		t.Errorf("the LDA pairing leaves out euclidean: %v", lda)
	}
}

func TestValidationTables(t *testing.T) {
	path := writeFile(t, "validation.csv", tinyValidation)
	all := tableAfter(t, runOut(t, path), "Validation runs")
	if len(all) != 3 {
		t.Errorf("groups %v, want ml-a, ml-b, pl-a", all)
	}
	out := runOut(t, "-pair", "ml-a,ml-b", path, "ml-*")
	groups := tableAfter(t, out, "Validation runs")
	pair := tableAfter(t, out, "ml-a − ml-b")
	tests := []struct {
		name      string
		table     map[string]map[string]string
		row, col  string
		wantValue string
	}{
		{"seeds of a group", groups, "ml-a", "seeds", "1,2"},
		{"last state", groups, "ml-a", "kNN Micro-F1", "82.0 ± 2.8 (2)"},
		{"kept state", groups, "ml-b", "kept link AUC", "91.5 ± 0.7 (2)"},
		{"levels", groups, "ml-a", "level share (root first)", "0.400 / 0.600"},
		{"levels in their digits", groups, "ml-a", "NPMI per level (%)", "2.0 / 21.0"},
		{"no levels", groups, "ml-b", "level share (root first)", "–"},
		// seeds 1, 2: 80−81, 84−82.
		{"paired groups", pair, "ml-a", "Δ kNN Micro-F1", "+0.5 ± 2.1 (2), 1/2"},
		{"paired NPMI", pair, "ml-a", "Δ NPMI (%)", "+2.0 ± 1.4 (2), 2/2"},
		// 91−91, 94−92: a zero difference holds on no seed.
		{"paired kept state", pair, "ml-a", "Δ kept link AUC", "+1.0 ± 1.4 (2), 1/2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.table[tc.row][tc.col]
			if !ok {
				t.Fatalf("no cell %q/%q in %v", tc.row, tc.col, tc.table)
			}
			if got != tc.wantValue {
				t.Errorf("%s / %s = %q, want %q", tc.row, tc.col, got, tc.wantValue)
			}
		})
	}
	if _, ok := groups["pl-a"]; ok {
		t.Errorf("pattern ml-* kept pl-a: %v", groups)
	}
}

func TestErrors(t *testing.T) {
	record := writeFile(t, "tiny.csv", tinyRecord)
	valid := writeFile(t, "validation.csv", tinyValidation)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", nil, "no CSV file"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.csv")}, "no such file"},
		{"bad pair", []string{"-pair", "default", record}, "two names"},
		{"unknown kind", []string{writeFile(t, "x.csv", "a,b\n1,2\n")}, "neither a record"},
		{"bad number", []string{writeFile(t, "bad.csv", "dataset,supervised,model,variant,seed,link_auc\nml,false,gtformer,default,1,x\n")}, `cell "x"`},
		{"seed twice", []string{writeFile(t, "twice.csv", "dataset,supervised,model,variant,seed,link_auc\nml,false,gtformer,default,1,1\nml,false,gtformer,default,1,2\n")}, "seed 1 twice"},
		{"unknown model", []string{writeFile(t, "model.csv", "dataset,supervised,model,variant,seed,link_auc\nml,false,gtformer,default,1,1\nml,,hgtm,x,1,2\n")}, `model "hgtm"`},
		{"patterns on a record", []string{record, "ml-*"}, "validation.csv only"},
		{"bad pattern", []string{valid, "["}, "pattern"},
		{"unknown group", []string{"-pair", "ml-a,ml-z", valid}, "no such run group"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			err := run(tc.args, &b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run %v: error %v, want one naming %q", tc.args, err, tc.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "records: ") {
				t.Errorf("error %q lacks the records: prefix", err)
			}
		})
	}
}

// TestRepositoryRecords rebuilds every record of the repository: each CSV
// parses, every column is one the tables know (a renamed column would
// silently drop out of the tables), and the tables come out.
func TestRepositoryRecords(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "docs", "results", "records", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 2 {
		t.Fatalf("records: found %d CSVs under docs/results/records, want the records and validation.csv", len(paths))
	}
	known := map[string]bool{}
	for _, c := range []string{"dataset", "supervised", "model", "variant", "seed", "run", "build", "command",
		"epochs", "kept_epoch", "per_level", "specialization", "diversity_per_level",
		"last_knn_macro_f1", "kept_knn_macro_f1"} {
		known[c] = true
	}
	for _, cols := range [][]column{recordColumns, validationColumns, validationLevels} {
		for _, c := range cols {
			known[c.key] = true
		}
	}
	for _, k := range recordLevels {
		known[k] = true
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tab, err := readTable(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tab.header {
				if !known[c] {
					t.Errorf("column %q is not one the tables or docs/results/records/README.md know", c)
				}
			}
			if out := runOut(t, p); !strings.Contains(out, "|---|") {
				t.Errorf("no table rebuilt from %s:\n%s", p, out)
			}
		})
	}
}

// TestTTest: -ttest adds the paired t statistic, starred beyond the
// two-sided 5% critical value (4.303 at 2 degrees of freedom, 12.706 at 1).
func TestTTest(t *testing.T) {
	csvText := `run,dataset,seed,last_knn_micro_f1,last_link_auc,npmi
x-s1,ml,1,81.0,90,10
x-s2,ml,2,81.1,91,10
x-s3,ml,3,80.9,92,10
y-s1,ml,1,80,90,11
y-s2,ml,2,80,90,11
y-s3,ml,3,80,90,11
`
	path := writeFile(t, "validation.csv", csvText)
	defer func() { showT = false }()
	pair := tableAfter(t, runOut(t, "-ttest", "-pair", "x,y", path), "x − y")
	for col, want := range map[string]string{
		// 1.0, 1.1, 0.9: mean 1.0, sd 0.1, t = 1/(0.1/√3) = 17.32.
		"Δ kNN Micro-F1": "+1.0 ± 0.1 (3), 3/3, t = +17.32*",
		// 0, 1, 2: mean 1, sd 1, t = √3 = 1.73 < 4.303.
		"Δ link AUC": "+1.0 ± 1.0 (3), 2/3, t = +1.73",
		// −1 on every seed: sd 0, an infinite t.
		"Δ NPMI (%)": "−1.0 ± 0.0 (3), 3/3, t = −Inf*",
	} {
		if got := pair["x"][col]; got != want {
			t.Errorf("%s = %q, want %q", col, got, want)
		}
	}
	showT = false
	if got := tableAfter(t, runOut(t, "-pair", "x,y", path), "x − y")["x"]["Δ kNN Micro-F1"]; strings.Contains(got, "t =") {
		t.Errorf("without -ttest: %q has a t statistic", got)
	}
}

// TestFromValid: -from-valid turns a --valid-only run folder into a
// validation.csv row that the tables read back.
func TestFromValid(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ml-x-s2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	valid := `{"dataset":"ml","seed":2,"train_seconds":90.5,"epochs":6,"kept_epoch":6,
"valid":{"knn_micro_f1":84.5,"knn_macro_f1":84.0,"link_auc":96.1,"log_perplexity":6.75},
"topics":{"count":11,"depth":3,"per_level":[1,3,7],"npmi":0.12,"diversity":0.7,"level_share":[0.4,0.25,0.35],
"specialization":[0.07,0.66,0.58],"npmi_per_level":[0.05,0.15,0.11],"diversity_per_level":[1,0.92,0.83],"pcc":-0.08},
"history":[{"epoch":6,"valid_knn_micro_f1":84.5,"valid_knn_macro_f1":84.0,"valid_link_auc":96.1,"valid_log_perplexity":6.75}]}`
	if err := os.WriteFile(filepath.Join(dir, "valid.json"), []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "command.txt"), []byte("gtformer train --valid-only --data ml --seed 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runOut(t, "-from-valid", "-build", "gt9", dir)
	tab, err := readTable(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.rows) != 1 {
		t.Fatalf("%d rows, want 1:\n%s", len(tab.rows), out)
	}
	row := tab.rows[0]
	for col, want := range map[string]string{
		"run": "ml-x-s2", "dataset": "ml", "seed": "2", "build": "gt9", "command": "gtformer train --valid-only --data ml --seed 2",
		"kept_knn_micro_f1": "84.5", "last_link_auc": "96.1", "npmi": "12", "pcc": "-8", "pcd": "", "per_level": "1/3/7",
		"npmi_per_level": "5/15/11", "topics": "11",
	} {
		if row[col] != want {
			t.Errorf("%s = %q, want %q", col, row[col], want)
		}
	}
	groups := tableAfter(t, runOut(t, writeFile(t, "v.csv", out)), "Validation runs")
	if got := groups["ml-x"]["NPMI (%)"]; got != "12.0 (1)" {
		t.Errorf("read back: NPMI %q, want 12.0 (1)", got)
	}
	if err := run([]string{"-from-valid", filepath.Join(t.TempDir(), "missing")}, io.Discard); err == nil {
		t.Error("a folder without valid.json gave no error")
	}
}

// TestFromExperiment: -from-experiment turns an experiment folder (a run,
// an LDA fit, the baselines) into record rows that the tables read back,
// gtformer's seeds in numeric order.
func TestFromExperiment(t *testing.T) {
	dir := t.TempDir()
	put := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"2", "10"} {
		put("runs/ml/default/seed"+s+"/metrics.json", `{"dataset":"ml","seed":`+s+`,"train_seconds":100,"variant":"default",
"test":{"knn_micro_f1":87,"knn_macro_f1":86,"link_auc":95.5,"log_perplexity":6.7,"log_perplexity_completion":6.75},
"valid":{"knn_micro_f1":85,"link_auc":95.4},"topics":{"count":12,"depth":3,"npmi":0.11,"diversity":0.6,
"level_share":[0.4,0.3,0.3],"specialization":[0.05,0.4,0.6],"pcc":-0.2}}`)
	}
	put("runs/ml/lda/seed2.json", `{"seed":2,"topics":13,"micro_f1":64,"macro_f1":61,"link_auc_cosine":82,"link_auc_neg_sq_dist":80,
"npmi":0.12,"diversity":0.6,"log_perplexity":6.54,"log_perplexity_completion":6.72,"seconds":7}`)
	put("runs/ml/baselines.json", `{"baselines":[{"method":"tfidf-sign","micro_f1":86.1,"macro_f1":85.6,"link_auc_cosine":95,"link_auc_neg_sq_dist":90}]}`)
	out := runOut(t, "-from-experiment", dir)
	tab, err := readTable(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.rows) != 4 {
		t.Fatalf("%d rows, want 4:\n%s", len(tab.rows), out)
	}
	for i, want := range []map[string]string{
		{"model": "gtformer", "seed": "2", "npmi": "11", "pcc": "-20", "level_share_min": "0.3", "specialization_deepest": "0.6", "valid_link_auc": "95.4"},
		{"model": "gtformer", "seed": "10", "knn_micro_f1": "87", "log_perplexity_completion": "6.75"},
		{"model": "lda", "variant": "T=13", "link_auc": "82", "npmi": "12"},
		{"model": "baseline", "variant": "tfidf-sign", "link_auc": "95", "seed": ""},
	} {
		for col, w := range want {
			if got := tab.rows[i][col]; got != w {
				t.Errorf("row %d: %s = %q, want %q", i, col, got, w)
			}
		}
	}
	if err := run([]string{"-from-experiment", t.TempDir()}, io.Discard); err == nil {
		t.Error("a folder without runs/ gave no error")
	}
}
