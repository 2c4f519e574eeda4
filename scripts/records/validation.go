package main

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
)

// validationColumns are the figures of validation.csv the tables show:
// the last epoch's validation scores, the kept state's where early
// stopping kept an earlier one, and the final tree's topic figures. F1 and
// AUC in percent, NPMI and PCC in percent, log-perplexity in nats per word.
var validationColumns = []column{
	{"last_knn_micro_f1", "kNN Micro-F1", 1},
	{"last_knn_macro_f1", "kNN Macro-F1", 1},
	{"last_link_auc", "link AUC", 1},
	{"last_log_perplexity", "log-perplexity", 3},
	{"kept_knn_micro_f1", "kept kNN Micro-F1", 1},
	{"kept_link_auc", "kept link AUC", 1},
	{"kept_log_perplexity", "kept log-perplexity", 3},
	{"kept_log_perplexity_completion", "completion log-perplexity", 3},
	{"npmi", "NPMI (%)", 1},
	{"diversity", "diversity", 3},
	{"pcc", "PCC (%)", 1},
	{"pcd", "PCD", 3},
	{"sd", "SD", 3},
	{"pncd", "PnCD", 3},
	{"topics", "topics", 1},
	{"depth", "depth", 1},
	{"train_seconds", "train time (s)", 0},
}

// validationLevels are validation.csv's per-level columns the table shows.
var validationLevels = []column{
	{"level_share", "level share (root first)", 3},
	{"npmi_per_level", "NPMI per level (%)", 1},
}

// seedSuffix is the end of a run's name that numbers its seed: runs that
// differ only there form a group ("ml-abl-grow-s1" … "-s3": "ml-abl-grow").
var seedSuffix = regexp.MustCompile(`-s[0-9]+$`)

// groupRuns groups validation.csv's runs by name without the seed suffix,
// in the order they first appear, keeping the groups a pattern matches
// (every group when there is no pattern).
func groupRuns(t *table, patterns []string) ([]*series, error) {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
	}
	var levelKeys []string
	for _, l := range validationLevels {
		levelKeys = append(levelKeys, l.key)
	}
	var groups []*series
	for _, row := range t.rows {
		name := seedSuffix.ReplaceAllString(row["run"], "")
		if len(patterns) > 0 && !slices.ContainsFunc(patterns, func(p string) bool {
			ok, _ := path.Match(p, name)
			return ok
		}) {
			continue
		}
		i := slices.IndexFunc(groups, func(s *series) bool { return s.name == name })
		if i < 0 {
			groups = append(groups, newSeries(name))
			i = len(groups) - 1
		}
		if err := groups[i].add(row, validationColumns, levelKeys); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

func writeValidation(w io.Writer, t *table, patterns []string, a, b string) error {
	groups, err := groupRuns(t, patterns)
	if err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("Validation runs grouped by name without the seed; each cell is the mean ± sample standard deviation (denominator n − 1) over the n seeds. Validation figures are the last epoch's unless marked kept.\n\n")
	cols := present(validationColumns, groups)
	sb.WriteString("| runs | seeds |")
	for _, c := range cols {
		fmt.Fprintf(&sb, " %s |", c.label)
	}
	for _, l := range validationLevels {
		fmt.Fprintf(&sb, " %s |", l.label)
	}
	sb.WriteString("\n|---|---|" + strings.Repeat("---|", len(cols)+len(validationLevels)) + "\n")
	for _, g := range groups {
		seeds := make([]string, len(g.seeds))
		for i, s := range g.seeds {
			seeds[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(&sb, "| %s | %s |", g.name, strings.Join(seeds, ","))
		for _, c := range cols {
			if s, ok := g.stat(c.key); ok {
				fmt.Fprintf(&sb, " %s |", s.format(c.digits))
			} else {
				sb.WriteString(" – |")
			}
		}
		for _, l := range validationLevels {
			fmt.Fprintf(&sb, " %s |", formatLevels(levelMeans(g.levels[l.key]), l.digits))
		}
		sb.WriteString("\n")
	}
	if a != "" {
		find := func(name string) *series {
			i := slices.IndexFunc(groups, func(s *series) bool { return s.name == name })
			if i < 0 {
				return nil
			}
			return groups[i]
		}
		x, y := find(a), find(b)
		if x == nil || y == nil {
			return fmt.Errorf("-pair %s,%s: no such run group (among those the patterns keep)", a, b)
		}
		fmt.Fprintf(&sb, "\nPaired by seed, %s − %s: mean ± sd of the differences (n seeds), and on how many of the n seeds the difference has the mean's sign.\n\n", a, b)
		writePaired(&sb, []*series{x}, y, validationColumns)
	}
	_, err = io.WriteString(w, sb.String())
	return err
}
