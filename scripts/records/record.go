package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/experiment"
)

// recordColumns are the per-run figures of a record CSV, in table order,
// with the labels and decimals of the results.md tables that
// `gtformer experiment` wrote. F1 and AUC in percent, NPMI and PCC in
// percent, log-perplexities in nats per word.
var recordColumns = []column{
	{"knn_micro_f1", "kNN Micro-F1", 1},
	{"knn_macro_f1", "kNN Macro-F1", 1},
	{"sup_micro_f1", "sup. Micro-F1", 1},
	{"sup_macro_f1", "sup. Macro-F1", 1},
	{"link_auc", "link AUC", 1},
	{"log_perplexity", "log-perplexity", 2},
	{"log_perplexity_completion", "log-perplexity (completion)", 2},
	{"valid_knn_micro_f1", "valid kNN Micro-F1", 1},
	{"valid_link_auc", "valid link AUC", 1},
	{"npmi", "NPMI (%)", 1},
	{"diversity", "diversity", 3},
	{"level_share_min", "smallest level share", 3},
	{"specialization_root", "specialization, root", 3},
	{"specialization_deepest", "specialization, deepest level", 3},
	{"pcc", "PCC (%)", 1},
	{"pcd", "PCD", 3},
	{"sd", "SD", 3},
	{"pncd", "PnCD", 3},
	{"recovery_nmi", "planted tree recovery NMI", 3},
	{"topics", "topics", 1},
	{"depth", "depth", 1},
	{"train_seconds", "train time (s)", 1},
	{"docs_per_sec", "docs/s", 0},
}

// recordLevels are the per-level columns of a record CSV.
var recordLevels = []string{"level_share", "specialization"}

// pairedKeys are the figures the model is paired with LDA on.
var pairedKeys = []string{"knn_micro_f1", "link_auc", "npmi", "diversity", "log_perplexity", "log_perplexity_completion"}

func columnByKey(cols []column, key string) column {
	i := slices.IndexFunc(cols, func(c column) bool { return c.key == key })
	if i < 0 {
		return column{key, key, 3}
	}
	return cols[i]
}

// lowerBetter marks a label whose figure is better when lower.
func lowerBetter(c column) string {
	if strings.Contains(c.key, "log_perplexity") {
		return c.label + " ↓"
	}
	return c.label
}

// group is one table of a record: a dataset with or without the
// supervised head.
type group struct {
	dataset    string
	supervised string // "true" or "false"
	variants   []*series
	lda        *series // nil when the record has no LDA fits of the dataset
	baselines  []*series
}

func (g *group) title() string {
	if g.supervised == "true" {
		return g.dataset + " (supervised)"
	}
	return g.dataset + " (unsupervised)"
}

// find returns the variant named name ("lda" for the LDA fits).
func (g *group) find(name string) *series {
	if name == "lda" {
		return g.lda
	}
	for _, v := range g.variants {
		if strings.TrimPrefix(v.name, "gtformer ") == name {
			return v
		}
	}
	return nil
}

// groupRecord groups a record's rows: one group per dataset and
// supervision of its gtformer runs, in the order they first appear; LDA
// and baseline rows (supervised left empty) join every group of their
// dataset.
func groupRecord(t *table) ([]*group, error) {
	var groups []*group
	byKey := map[string]*group{}
	var others []map[string]string
	for _, row := range t.rows {
		if row["model"] != "gtformer" {
			others = append(others, row)
			continue
		}
		k := row["dataset"] + "/" + row["supervised"]
		g := byKey[k]
		if g == nil {
			g = &group{dataset: row["dataset"], supervised: row["supervised"]}
			byKey[k] = g
			groups = append(groups, g)
		}
		name := "gtformer " + row["variant"]
		i := slices.IndexFunc(g.variants, func(s *series) bool { return s.name == name })
		if i < 0 {
			g.variants = append(g.variants, newSeries(name))
			i = len(g.variants) - 1
		}
		if err := g.variants[i].add(row, recordColumns, recordLevels); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		for _, row := range others {
			if row["dataset"] != g.dataset || (row["supervised"] != "" && row["supervised"] != g.supervised) {
				continue
			}
			switch row["model"] {
			case "lda":
				if g.lda == nil {
					g.lda = newSeries(ldaLabel(row["variant"]))
				}
				if err := g.lda.add(row, recordColumns, nil); err != nil {
					return nil, err
				}
			case "baseline":
				b := newSeries("baseline " + row["variant"])
				if err := b.add(row, recordColumns, nil); err != nil {
					return nil, err
				}
				g.baselines = append(g.baselines, b)
			default:
				return nil, fmt.Errorf("model %q: want gtformer, lda or baseline", row["model"])
			}
		}
	}
	return groups, nil
}

// ldaLabel names the LDA row from its variant cell, "T=13" for 13 topics.
func ldaLabel(variant string) string {
	if t, ok := strings.CutPrefix(variant, "T="); ok {
		return "LDA (T = " + t + ")"
	}
	return "LDA"
}

func writeRecord(w io.Writer, t *table, a, b string) error {
	groups, err := groupRecord(t)
	if err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("Each cell is the mean ± sample standard deviation (denominator n − 1) over n runs (seeds); the number in brackets is n.\n")
	for _, g := range groups {
		writeMain(&sb, g)
		writeTopics(&sb, g)
		if g.lda != nil {
			fmt.Fprintf(&sb, "\nPaired by seed, gtformer − %s: mean ± sd of the differences (n seeds), and on how many of the n seeds the difference has the mean's sign.\n\n", g.lda.name)
			var cols []column
			for _, k := range pairedKeys {
				cols = append(cols, columnByKey(recordColumns, k))
			}
			writePaired(&sb, g.variants, g.lda, cols)
		}
		if a != "" {
			x, y := g.find(a), g.find(b)
			if x == nil || y == nil {
				fmt.Fprintf(&sb, "\nNo pair %s − %s in %s.\n", a, b, g.title())
				continue
			}
			fmt.Fprintf(&sb, "\nPaired by seed, %s − %s:\n\n", a, b)
			writePaired(&sb, []*series{x}, y, recordColumns)
		}
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// writeMain writes the group's main table: every figure any row has.
func writeMain(sb *strings.Builder, g *group) {
	rows := slices.Clone(g.variants)
	if g.lda != nil {
		rows = append(rows, g.lda)
	}
	rows = append(rows, g.baselines...)
	cols := present(recordColumns, rows)
	fmt.Fprintf(sb, "\n## %s\n\n| model |", g.title())
	for _, c := range cols {
		fmt.Fprintf(sb, " %s |", c.label)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, r := range rows {
		writeRow(sb, r, cols)
	}
}

func writeRow(sb *strings.Builder, r *series, cols []column) {
	fmt.Fprintf(sb, "| %s |", r.name)
	for _, c := range cols {
		if s, ok := r.stat(c.key); ok {
			fmt.Fprintf(sb, " %s |", s.format(c.digits))
		} else {
			sb.WriteString(" – |")
		}
	}
	sb.WriteString("\n")
}

// writeTopics writes the topic table: the variants beside LDA, with the
// columns of experiment's topic tables.
func writeTopics(sb *strings.Builder, g *group) {
	series := slices.Clone(g.variants)
	if g.lda != nil {
		series = append(series, g.lda)
	}
	var rows []experiment.TopicRow
	for _, r := range series {
		rows = append(rows, experiment.TopicRow{Name: r.name, Cell: func(c experiment.TopicColumn) (string, bool) {
			if c.Levels {
				lv := r.levels[c.Key]
				return formatLevels(levelMeans(lv), 3), len(lv) > 0
			}
			if len(r.values[c.Key]) == 0 {
				return "", false
			}
			s, _ := r.stat(c.Key)
			return s.format(columnByKey(recordColumns, c.Key).digits), true
		}})
	}
	cols := experiment.FilledTopicColumns(rows)
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n### %s: topics\n\n", g.title())
	experiment.WriteTopicRows(sb, cols, rows)
}

// writePaired writes one row per series of rows: its paired differences
// with ref over the figures of all, leaving out figures no row pairs on.
func writePaired(sb *strings.Builder, rows []*series, ref *series, all []column) {
	var cols []column
	for _, c := range all {
		if slices.ContainsFunc(rows, func(r *series) bool {
			_, ok := pairBySeed(r.values[c.key], ref.values[c.key])
			return ok
		}) {
			cols = append(cols, c)
		}
	}
	sb.WriteString("| variant |")
	for _, c := range cols {
		fmt.Fprintf(sb, " Δ %s |", lowerBetter(c))
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(sb, "| %s |", strings.TrimPrefix(r.name, "gtformer "))
		for _, c := range cols {
			if p, ok := pairBySeed(r.values[c.key], ref.values[c.key]); ok {
				fmt.Fprintf(sb, " %s |", p.format(c.digits))
			} else {
				sb.WriteString(" – |")
			}
		}
		sb.WriteString("\n")
	}
}
