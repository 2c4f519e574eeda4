package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/internal/csvsafe"
	"github.com/gtformer/gtformer/topicmap"
)

func init() {
	register(&command{
		name:    "topics facets",
		summary: "a topic's share of the words per value of a document field (year, venue, label), its subtopics stacked",
		run:     runTopicsFacets,
	})
}

const topicsFacetsSynopsis = "--model DIR --field F [--topic ID] [--bin year|month|quantile|value] [--csv]"

func runTopicsFacets(args []string, stdout, stderr io.Writer) error {
	var mf mapsFlags
	fs := newFlagSet("topics facets", topicsFacetsSynopsis, stderr)
	mf.register(fs)
	field := fs.String("field", "", "the document field `F` (\"label\" for the labels; gtformer serve's /v1/info lists them)")
	topic := fs.Int("topic", -1, "topic `ID` whose share is shown (-1: the root, its branches stacked)")
	bin := fs.String("bin", "", "binning: year or month (dates; year also bins integer numbers), quantile (numbers, dates) or value (strings); empty: by the field")
	top := fs.Int("top", topicmap.DefaultTop, "string values with their own bin; the rest are one \"(other)\" bin")
	quant := fs.Int("quantiles", topicmap.DefaultQuantiles, "bins of --bin quantile")
	docs := fs.Bool("docs", false, "show the share of the documents (mean θ) instead of the words (Σ|d|θ/Σ|d|)")
	asCSV := fs.Bool("csv", false, "print CSV, one row per bin and series: bin,lo,hi,docs,words,series,topic,word_share,doc_share")
	describe(fs, stderr, topicsFacetsSynopsis, `
For one topic (the root by default) prints its share of the words of each
bin of a document field, and the share its own θ and each subtopic's subtree
take of it: which branches rise over the years, which venues write about
what. The fields are those of the corpus the model was trained on (the model
folder's meta.jsonl: JSON Lines "meta", a dataset folder's meta.jsonl, and
the labels as "label"). Dates are binned by year, or by month over under
three years; integer numbers one bin per integer; other numbers by quantile;
strings by value with the long tail as "(other)". Shares are percentages.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *mf.dir == "" || *field == "" {
		return usagef("--model and --field are required")
	}
	switch *bin {
	case topicmap.BinAuto, topicmap.BinYear, topicmap.BinMonth, topicmap.BinQuantile, topicmap.BinValue:
	default:
		return usagef("--bin %q: want year, month, quantile or value", *bin)
	}
	if *top < 1 || *quant < 1 {
		return usagef("--top and --quantiles must be positive")
	}
	ix, err := mf.open(stderr)
	if err != nil {
		return err
	}
	id := *topic
	if id < 0 {
		id = ix.Tree().Nodes[0].ID
	}
	f, err := ix.Facets(id, *field, topicmap.FacetOptions{Bin: *bin, Top: *top, Quantiles: *quant})
	switch {
	case errors.Is(err, explore.ErrNotFound):
		return usagef("%v: %s", err, fieldList(ix))
	case errors.Is(err, topicmap.ErrBadRequest):
		return usagef("%v", strings.TrimPrefix(err.Error(), "topicmap: bad request: "))
	case err != nil:
		return err
	}
	if *asCSV {
		return writeFacetCSV(stdout, f)
	}
	return writeFacetTable(stdout, f, *docs)
}

// mapsFlags are the flags topics facets and topics links share: the
// model folder and the corpus it was trained on.
type mapsFlags struct {
	d     dataFlags
	allow *bool
	dir   *string
}

func (f *mapsFlags) register(fs *flag.FlagSet) {
	f.d.registerLoad(fs)
	f.allow = allowCorpusFlag(fs, "use")
	f.dir = modelDirFlag(fs)
}

// open loads the model and its corpus into an explorer index, which
// computes the facets and the link map.
func (f *mapsFlags) open(stderr io.Writer) (*explore.Index, error) {
	// The documents' θ does not depend on the split.
	m, _, g, _, err := loadModelAndCorpus(*f.dir, &f.d, *f.allow, stderr, "split")
	if err != nil {
		return nil, err
	}
	return explore.Open(*f.dir, m, g)
}

// fieldList names the index's fields and topics for a usage message.
func fieldList(ix *explore.Index) string {
	var names []string
	for _, f := range ix.Info().Fields {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return "the corpus's documents have no fields"
	}
	return "the fields are " + strings.Join(names, ", ")
}

// writeFacetTable prints one row per bin: its documents, the topic's
// share, then its own and each subtopic's.
func writeFacetTable(w io.Writer, f *topicmap.Facet, docs bool) error {
	what := "words"
	if docs {
		what = "documents"
	}
	fmt.Fprintf(w, "topic %d, field %s (%s, bins by %s): share of each bin's %s in %%", f.Topic, f.Field, f.Kind, f.Bin, what)
	if f.Missing > 0 {
		fmt.Fprintf(w, "; %d documents without the field", f.Missing)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 4, 8, 2, ' ', tabwriter.AlignRight)
	head := []string{"bin", "docs", "topic " + strconv.Itoa(f.Topic)}
	for _, s := range f.Stack {
		if s.Self {
			head = append(head, "itself")
		} else {
			head = append(head, strconv.Itoa(s.ID))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	pick := func(s topicmap.Series) []float64 {
		if docs {
			return s.Docs
		}
		return s.Words
	}
	for k, b := range f.Bins {
		row := []string{b.Label, strconv.Itoa(b.Docs), percent(pick(f.Total)[k])}
		for _, s := range f.Stack {
			row = append(row, percent(pick(s)[k]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}

func percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }

// writeFacetCSV writes the facet in long form: a row per bin and series
// ("total" for the topic's subtree, "self" for its own θ, "child" for a
// subtopic's subtree).
func writeFacetCSV(w io.Writer, f *topicmap.Facet) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"bin", "lo", "hi", "docs", "words", "series", "topic", "word_share", "doc_share"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for k, b := range f.Bins {
		row := func(kind string, s topicmap.Series) {
			cw.Write([]string{csvsafe.Text(b.Label), num(b.Lo), num(b.Hi), strconv.Itoa(b.Docs), num(b.Words), kind,
				strconv.Itoa(s.ID), num(s.Words[k]), num(s.Docs[k])})
		}
		row("total", f.Total)
		for _, s := range f.Stack {
			if s.Self {
				row("self", s)
			} else {
				row("child", s)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
