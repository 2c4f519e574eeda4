package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gtformer/gtformer/topicmap"
)

func init() {
	register(&command{
		name:    "topics links",
		summary: "the topic link map: how much the topics of a level link to each other against their sizes (lift)",
		run:     runTopicsLinks,
	})
}

const topicsLinksSynopsis = "--model DIR [--level L] [--top N] [--csv]"

func runTopicsLinks(args []string, stdout, stderr io.Writer) error {
	var mf mapsFlags
	fs := newFlagSet("topics links", topicsLinksSynopsis, stderr)
	mf.register(fs)
	level := fs.Int("level", 1, "tree `L`evel whose topics are mapped (1: the root's children)")
	top := fs.Int("top", 10, "strongest cross-branch pairs listed")
	asCSV := fs.Bool("csv", false, "print CSV, one row per pair of topics: a,b,parent_a,parent_b,inside,mass,expected,lift")
	describe(fs, stderr, topicsLinksSynopsis, `
Which topics cite which: for the topics of one level, the link mass between
each pair, Σ over links of θ_a θ_bᵀ (θ restricted to the level and
renormalised, both directions), against what the topics' sizes alone would
give, (Σ mass)·s_a·s_b with s the topics' share of the link ends. Prints the
lift matrix (mass / expected), the mean lift of pairs inside a branch (one
parent; at level 1 a topic with itself) and across, and the strongest
cross-branch pairs. Reads the corpus's links as gtformer report does.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *mf.dir == "" {
		return usagef("--model is required")
	}
	if *top < 0 {
		return usagef("--top must not be negative, got %d", *top)
	}
	ix, err := mf.open(stderr)
	if err != nil {
		return err
	}
	lm, err := ix.LinkMap(*level, *top)
	if errors.Is(err, topicmap.ErrBadRequest) {
		return usagef("--level %d: the tree has levels 1 to %d below the root", *level, ix.Info().Levels-1)
	}
	if err != nil {
		return err
	}
	if *asCSV {
		return writeLinksCSV(stdout, lm)
	}
	return writeLinksTable(stdout, lm)
}

// inside reports whether topics i and j of lm lie in one branch.
func inside(lm *topicmap.LinkMap, i, j int) bool {
	return i == j || (lm.Level > 1 && lm.Parents[i] == lm.Parents[j])
}

func writeLinksTable(w io.Writer, lm *topicmap.LinkMap) error {
	fmt.Fprintf(w, "level %d: %d topics, %d links; mean lift inside a branch %s, across %s (a topic with itself %s",
		lm.Level, len(lm.Topics), lm.Links, lift(lm.Inside), lift(lm.Across), lift(lm.Self))
	if lm.Level > 1 {
		fmt.Fprintf(w, ", siblings %s", lift(lm.Siblings))
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintln(w, "\nlift (link mass / what the topics' sizes give), rows and columns by topic id (parent):")
	tw := tabwriter.NewWriter(w, 4, 8, 2, ' ', tabwriter.AlignRight)
	head := []string{""}
	for k, id := range lm.Topics {
		head = append(head, fmt.Sprintf("%d (%d)", id, lm.Parents[k]))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i, id := range lm.Topics {
		row := []string{fmt.Sprintf("%d (%d)", id, lm.Parents[i])}
		for j := range lm.Topics {
			row = append(row, lift(lm.Lift[i][j]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(lm.Pairs) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nstrongest cross-branch pairs:")
	tw = tabwriter.NewWriter(w, 4, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "a\tb\tlift\tmass %\t")
	total := 2 * float64(lm.Links)
	for _, p := range lm.Pairs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t\n", p.A, p.B, lift(p.Lift), percent(2*p.Mass/total))
	}
	return tw.Flush()
}

func lift(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func writeLinksCSV(w io.Writer, lm *topicmap.LinkMap) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"a", "b", "parent_a", "parent_b", "inside", "mass", "expected", "lift"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for i := range lm.Topics {
		for j := i; j < len(lm.Topics); j++ {
			cw.Write([]string{strconv.Itoa(lm.Topics[i]), strconv.Itoa(lm.Topics[j]), strconv.Itoa(lm.Parents[i]), strconv.Itoa(lm.Parents[j]),
				strconv.FormatBool(inside(lm, i, j)), num(lm.Mass[i][j]), num(lm.Expected[i][j]), num(lm.Lift[i][j])})
		}
	}
	cw.Flush()
	return cw.Error()
}
