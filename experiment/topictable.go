package experiment

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ldaLabel is the LDA row's name in the tables.
func ldaLabel(g *Group) string {
	if g.LDATopics > 0 {
		return fmt.Sprintf("LDA (T = %d)", g.LDATopics)
	}
	return "LDA"
}

// ldaCaption says what the LDA row is.
func ldaCaption(g *Group) string {
	seeds := make([]string, len(g.LDA.Seeds))
	for i, s := range g.LDA.Seeds {
		seeds[i] = fmt.Sprint(s)
	}
	return fmt.Sprintf("%s: latent Dirichlet allocation (batch variational Bayes, as scikit-learn's) with %d topics, the default of `gtformer baseline --method lda`, "+
		"fitted on the training documents' words once per seed of the runs (seeds %s), so it pairs with the model by seed; "+
		"θ of a document is inferred from its words alone, and its kNN and link AUC are computed on θ (link AUC by cosine, as the baselines'). "+
		"NPMI, diversity and both perplexities come from the same code as gtformer's; its time covers fitting and evaluation.",
		ldaLabel(g), g.LDATopics, strings.Join(seeds, ", "))
}

// TopicColumn is a column of the topic tables (this package's and the
// records script's): a figure's key, or with Levels a per-level figure's,
// and its heading.
type TopicColumn struct {
	Key, Label string
	Levels     bool
}

// TopicColumns are the topic tables' columns, in order: keys of Metrics,
// or of VariantResult.Levels (Levels: true).
var TopicColumns = []TopicColumn{
	{"npmi", "NPMI (%)", false},
	{"diversity", "diversity", false},
	{"log_perplexity", "log-perplexity ↓", false},
	{"log_perplexity_completion", "log-perplexity (completion) ↓", false},
	{"topics", "topics", false},
	{"level_share", "level share (root first)", true},
	{"specialization", "specialization (root first)", true},
	{"pcc", "PCC (%)", false},
	{"pcd", "PCD", false},
	{"sd", "SD", false},
	{"pncd", "PnCD", false},
}

// TopicRow is a row of a topic table: its name and its cell in a column,
// ok false where the row has no such figure (a dash).
type TopicRow struct {
	Name string
	Cell func(c TopicColumn) (text string, ok bool)
}

// FilledTopicColumns returns the columns of TopicColumns that some row
// fills, in order.
func FilledTopicColumns(rows []TopicRow) []TopicColumn {
	var cols []TopicColumn
	for _, c := range TopicColumns {
		if slices.ContainsFunc(rows, func(r TopicRow) bool { _, ok := r.Cell(c); return ok }) {
			cols = append(cols, c)
		}
	}
	return cols
}

// WriteTopicRows writes the Markdown table of rows under cols: the
// heading "| model | … |", the rule and a line per row.
func WriteTopicRows(w io.Writer, cols []TopicColumn, rows []TopicRow) {
	fmt.Fprint(w, "| model |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.Label)
	}
	fmt.Fprint(w, "\n|---|"+strings.Repeat("---|", len(cols))+"\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |", r.Name)
		for _, c := range cols {
			if text, ok := r.Cell(c); ok {
				fmt.Fprintf(w, " %s |", text)
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprint(w, "\n")
	}
}

func metricByKey(key string) Metric {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		panic(fmt.Sprintf("experiment: unknown metric %q", key))
	}
	return Metrics[i]
}

// writeTopicTable writes the group's topic-quality table, the gtformer
// variants beside LDA (LDA has no levels: a dash), and the paired
// differences variant − LDA by seed. Nothing when no row has a topic
// score.
func writeTopicTable(b *bytes.Buffer, g *Group) {
	row := func(name string, v *VariantResult) TopicRow {
		return TopicRow{Name: name, Cell: func(c TopicColumn) (string, bool) {
			if c.Levels {
				var parts []string
				for _, s := range v.Levels[c.Key] {
					parts = append(parts, fmt.Sprintf("%.3f", s.Mean))
				}
				return strings.Join(parts, " / "), len(parts) > 0
			}
			s, ok := v.Values[c.Key]
			if !ok {
				return "", false
			}
			return formatStat(s, metricByKey(c.Key).Digits), true
		}}
	}
	var rows []TopicRow
	for i := range g.Variants {
		rows = append(rows, row("gtformer "+g.Variants[i].Name, &g.Variants[i]))
	}
	if g.LDA != nil {
		rows = append(rows, row(ldaLabel(g), g.LDA))
	}
	cols := FilledTopicColumns(rows)
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: topics beside LDA\n\n", g.title())
	WriteTopicRows(b, cols, rows)
	b.WriteString("\n↓ lower is better.")
	if slices.ContainsFunc(cols, func(c TopicColumn) bool { return c.Levels }) {
		b.WriteString(" Level share and specialization: the mean over seeds of each level, root first (a level absent from some runs is averaged over those that have it).")
	}
	if g.LDA != nil {
		b.WriteString(" LDA is flat: it has no levels, so no hierarchy measures (–).")
	}
	b.WriteString("\n")
	if g.LDA == nil {
		b.WriteString("\nNo LDA fits in this folder (an experiment made before LDA was part of it): run the same `gtformer experiment` command again to compute them; it trains nothing that is finished.\n")
		return
	}
	if len(g.Paired) == 0 {
		return
	}
	fmt.Fprintf(b, "\nPaired by seed, gtformer − %s: mean ± sd of the differences (n seeds), and on how many of the n seeds the difference has the mean's sign. A gain counts when it holds on ≥ 3 paired seeds.\n\n| variant |", ldaLabel(g))
	for _, key := range PairedMetrics {
		m := metricByKey(key)
		label := m.Label
		if strings.HasPrefix(key, "log_perplexity") {
			label += " ↓"
		}
		fmt.Fprintf(b, " Δ %s |", label)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(PairedMetrics)) + "\n")
	for _, pv := range g.Paired {
		fmt.Fprintf(b, "| %s |", pv.Variant)
		for _, key := range PairedMetrics {
			i := slices.IndexFunc(pv.Diffs, func(p Paired) bool { return p.Metric == key })
			if i < 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(b, " %s |", formatPaired(pv.Diffs[i], metricByKey(key).Digits))
		}
		b.WriteString("\n")
	}
}

// formatPaired renders "+mean ± sd (n), holds/n".
func formatPaired(p Paired, digits int) string {
	s := signed(p.Diff.Mean, digits)
	if p.Diff.N > 1 {
		s += fmt.Sprintf(" ± %.*f", digits, p.Diff.Std)
	}
	return fmt.Sprintf("%s (%d), %d/%d", s, p.Diff.N, p.Holds, p.Diff.N)
}
