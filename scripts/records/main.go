// Command records rebuilds the markdown tables of a run record from its
// per-seed CSV (docs/results/records/<record>.csv): mean ± sample standard
// deviation by dataset and variant, the topic table and the paired
// differences by seed. The layout of the CSVs is in
// docs/results/records/README.md.
//
//	go run ./scripts/records docs/results/records/experiment-2026-11-28d.csv
//	go run ./scripts/records -pair default,lda docs/results/records/experiment.csv
//	go run ./scripts/records docs/results/records/validation.csv 'ml-abl-*'
//	go run ./scripts/records -pair ml-abl-grow,ml-abl-fixed docs/results/records/validation.csv
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("records", flag.ContinueOnError)
	pair := fs.String("pair", "", "A,B: also print the paired differences A − B by seed (variants of a record, \"lda\" for LDA; run groups of validation.csv)")
	ttest := fs.Bool("ttest", false, "with -pair: add each paired difference's t statistic, starred when beyond the two-sided 5% critical value")
	fromValid := fs.Bool("from-valid", false, "print validation.csv rows (header first) for the --valid-only run folders given instead of a CSV")
	build := fs.String("build", "", "with -from-valid: the build column (the binary's name)")
	fromExperiment := fs.String("from-experiment", "", "print a record CSV (header first) for this experiment folder (gtformer experiment --out) instead of reading a CSV")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: records [-pair A,B [-ttest]] FILE.csv [GROUP-PATTERN...]\n       records -from-valid [-build NAME] RUN-FOLDER...\n       records -from-experiment DIR\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fromExperiment != "" {
		if err := writeFromExperiment(w, *fromExperiment); err != nil {
			return fmt.Errorf("records: %w", err)
		}
		return nil
	}
	if *fromValid {
		if err := writeFromValid(w, *build, fs.Args()); err != nil {
			return fmt.Errorf("records: %w", err)
		}
		return nil
	}
	showT = *ttest
	if fs.NArg() < 1 {
		return errors.New("records: no CSV file given; usage: records [-pair A,B] FILE.csv [GROUP-PATTERN...]")
	}
	var a, b string
	if *pair != "" {
		var ok bool
		a, b, ok = strings.Cut(*pair, ",")
		if !ok || a == "" || b == "" {
			return fmt.Errorf("records: -pair %q: want two names separated by a comma", *pair)
		}
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("records: %w", err)
	}
	defer f.Close()
	t, err := readTable(f)
	if err != nil {
		return fmt.Errorf("records: %s: %w", fs.Arg(0), err)
	}
	switch {
	case t.has("run"):
		err = writeValidation(w, t, fs.Args()[1:], a, b)
	case t.has("model"):
		if fs.NArg() > 1 {
			return errors.New("records: group patterns apply to validation.csv only")
		}
		err = writeRecord(w, t, a, b)
	default:
		err = errors.New("neither a record (column model) nor validation.csv (column run)")
	}
	if err != nil {
		return fmt.Errorf("records: %s: %w", fs.Arg(0), err)
	}
	return nil
}

// table is a CSV file: its header and its rows, each row a map from column
// name to cell ("" where the run has no such figure).
type table struct {
	header []string
	rows   []map[string]string
}

func (t *table) has(col string) bool { return slices.Contains(t.header, col) }

func readTable(r io.Reader) (*table, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errors.New("empty file")
	}
	t := &table{header: recs[0]}
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, c := range t.header {
			row[c] = rec[i]
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}
