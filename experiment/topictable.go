package experiment

import (
	"bytes"
	"fmt"
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

// topicColumns are the topic table's columns: keys of Metrics, or of
// VariantResult.Levels (levels: true).
var topicColumns = []struct {
	key, label string
	levels     bool
}{
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
	type row struct {
		name string
		v    *VariantResult
	}
	var rows []row
	for i := range g.Variants {
		rows = append(rows, row{"gtformer " + g.Variants[i].Name, &g.Variants[i]})
	}
	if g.LDA != nil {
		rows = append(rows, row{ldaLabel(g), g.LDA})
	}
	has := func(r row, key string, levels bool) bool {
		if levels {
			return len(r.v.Levels[key]) > 0
		}
		_, ok := r.v.Values[key]
		return ok
	}
	var cols []int
	for c, col := range topicColumns {
		for _, r := range rows {
			if has(r, col.key, col.levels) {
				cols = append(cols, c)
				break
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: topics beside LDA\n\n| model |", g.title())
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", topicColumns[c].label)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s |", r.name)
		for _, c := range cols {
			col := topicColumns[c]
			switch {
			case !has(r, col.key, col.levels):
				b.WriteString(" – |")
			case col.levels:
				var parts []string
				for _, s := range r.v.Levels[col.key] {
					parts = append(parts, fmt.Sprintf("%.3f", s.Mean))
				}
				fmt.Fprintf(b, " %s |", strings.Join(parts, " / "))
			default:
				fmt.Fprintf(b, " %s |", formatStat(r.v.Values[col.key], metricByKey(col.key).Digits))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n↓ lower is better.")
	if slices.ContainsFunc(cols, func(c int) bool { return topicColumns[c].levels }) {
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
