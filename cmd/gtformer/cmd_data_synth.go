package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/npy"
)

func init() {
	register(&command{
		name:    "data synth",
		summary: "generate a corpus with a planted topic tree (the built-in corpus, or larger) as a dataset folder",
		run:     runDataSynth,
	})
}

// Files written beside the dataset by data synth, describing the planted
// structure.
const (
	truthJSON    = "truth.json"
	truthLeafNpy = "truth_doc_leaf.npy"
	truthMixNpy  = "truth_doc_mix.npy"
)

func runDataSynth(args []string, stdout, stderr io.Writer) error {
	def := synth.Default()
	fs := newFlagSet("data synth", "--out DIR [flags]", stderr)
	out := fs.String("out", "", "`DIR` to write the dataset folder to (created if needed)")
	docs := fs.Int("docs", def.Docs, "number of documents")
	vocab := fs.Int("vocab", def.Vocab, "vocabulary size")
	depth := fs.Int("depth", def.Depth, "levels of the planted topic tree, root included")
	branching := fs.Int("branching", def.Branching, "children per non-leaf topic")
	links := fs.Int("links", -1, "number of undirected links; -1: 2 per document (a mean degree of 4)")
	length := fs.Int("length", def.MeanLength, "mean document length in tokens")
	seed := fs.Uint64("seed", def.Seed, "random seed: the same seed gives the same corpus")
	years := fs.String("years", "", "`FROM-TO`: also write a \"year\" field (meta.jsonl) with a planted drift: one branch's documents grow in number over the years")
	labels := fs.String("labels", "field", "`KIND` of document label: field (the level-1 topic above the document's leaf) or leaf (its planted leaf)")
	truth := fs.Bool("truth", true, "also write the planted tree ("+truthJSON+") and each document's leaf and level mixture ("+truthLeafNpy+", "+truthMixNpy+")")
	describe(fs, stderr, "--out DIR [flags]", `
Generates a document graph with a planted topic tree and writes it in the
dataset folder format (contents.txt, links.txt, voc.txt, labels.txt,
label_names.txt). With the default flags this is the built-in corpus that
commands use when no --data is given: 1,500 documents over 600 readable
English words, a tree of 13 topics (root, 3 fields, 9 sub-fields), 3,000
links, labels = the field (--labels leaf: the planted leaf). Documents mix the topics on one root-to-leaf
path; links fall mostly inside a leaf or field, with heavy-tailed degrees.
Large corpora for scale tests: --docs 500000 --links 1000000. --years
2000-2020 gives every document a year (meta.jsonl): the first branch's
documents per year grow linearly from 1/3 to 3 times their mean, the others'
are flat, so that its share rises (gtformer topics facets --field year).`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return usagef("--out DIR is required")
	}
	cfg := synth.Config{Docs: *docs, Vocab: *vocab, Depth: *depth, Branching: *branching,
		Links: *links, MeanLength: *length, Seed: *seed}
	if cfg.Links < 0 {
		cfg.Links = 2 * cfg.Docs
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	if *labels != "field" && *labels != "leaf" {
		return usagef("--labels %q: want field or leaf", *labels)
	}
	from, to, err := parseYears(*years)
	if err != nil {
		return err
	}

	if err := claimSynthDir(*out); err != nil {
		return err
	}
	start := time.Now()
	g, tr, err := synth.Generate(cfg)
	if err != nil {
		return err
	}
	if *labels == "leaf" {
		tr.LabelByLeaf(g)
	}
	var drift *truthDrift
	if *years != "" {
		f, err := synth.Years(tr, from, to, cfg.Seed)
		if err != nil {
			return err
		}
		g.Fields = []corpus.Field{f}
		drift = &truthDrift{Field: f.Name, From: from, To: to, Rising: synth.Rising,
			Note: "the rising topic's documents per year grow linearly from 1/3 to 3 times their mean over the years; the other branches' are flat"}
	}
	if err := corpus.WriteFolder(g, *out); err != nil {
		return err
	}
	if *truth {
		if err := writeTruth(*out, cfg, g, tr, drift, *labels); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d documents, %d links, %d words, %d tokens, %d topics, %d labels (%.1fs)\n",
		*out, g.NumDocs(), len(g.Links), len(g.Vocab), len(g.Tokens), tr.NumTopics(), len(g.LabelNames),
		time.Since(start).Seconds())
	return nil
}

// truthFile is the JSON form of the planted tree.
type truthFile struct {
	Config    synth.Config `json:"config"`
	Leak      float64      `json:"leak"`
	Zipf      float64      `json:"zipf_exponent"`
	Topics    []truthTopic `json:"topics"`
	DocLeaf   string       `json:"doc_leaf_file"`
	DocMix    string       `json:"doc_mix_file"`
	LabelNote string       `json:"labels"`
	// Drift describes --years' planted drift; absent without --years.
	Drift *truthDrift `json:"drift,omitempty"`
}

// truthDrift is the planted drift of --years.
type truthDrift struct {
	Field  string `json:"field"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Rising int    `json:"rising_topic"`
	Note   string `json:"note"`
}

// parseYears reads --years FROM-TO ("" is none).
func parseYears(s string) (from, to int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "-")
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || from > to || from < 0 || to-from > 1000 {
		return 0, 0, usagef("--years %q: want FROM-TO, two years such as 2000-2020 (at most 1,000 years apart)", s)
	}
	return from, to, nil
}

type truthTopic struct {
	ID       int      `json:"id"`
	Parent   int      `json:"parent"`
	Level    int      `json:"level"`
	Name     string   `json:"name"`
	Words    int      `json:"words"`     // number of words the topic owns
	TopWords []string `json:"top_words"` // its 10 most probable words
}

// writeTruth writes truth.json and the per-document arrays.
func writeTruth(dir string, cfg synth.Config, g *corpus.Graph, tr *synth.Truth, drift *truthDrift, labels string) error {
	note := "labels.txt holds each document's level-1 topic, numbered 0..branching-1 (topic id - 1)"
	if labels == "leaf" {
		note = "labels.txt holds each document's planted leaf, numbered 0..leaves-1 in topic id order"
	}
	tf := truthFile{Config: cfg, Leak: synth.Leak, Zipf: synth.ZipfExponent, Drift: drift,
		DocLeaf:   truthLeafNpy + ": int32 (docs,), each document's planted leaf topic id",
		DocMix:    truthMixNpy + ": float32 (docs, depth), each document's level mixture, root first",
		LabelNote: note}
	for k := range tr.NumTopics() {
		top := []string{}
		for _, w := range tr.Words[k][:min(10, len(tr.Words[k]))] {
			top = append(top, g.Vocab[w])
		}
		tf.Topics = append(tf.Topics, truthTopic{ID: k, Parent: int(tr.Parent[k]), Level: int(tr.Level[k]),
			Name: tr.Names[k], Words: len(tr.Words[k]), TopWords: top})
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, truthJSON), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(tf)
	}); err != nil {
		return err
	}
	if err := npy.Write(filepath.Join(dir, truthLeafNpy), []int{len(tr.Leaf)}, tr.Leaf); err != nil {
		return err
	}
	return npy.Write(filepath.Join(dir, truthMixNpy), []int{len(tr.Leaf), tr.Depth}, tr.Mix)
}

// synthMarker marks a folder that data synth wrote, whose files a later
// data synth may replace.
const synthMarker = ".gtformer-synth"

// claimSynthDir refuses a non-empty folder that data synth did not write
// (its files are never replaced), and marks the folder as synth's.
func claimSynthDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		ours := false
		var names []string
		for _, e := range entries {
			ours = ours || e.Name() == synthMarker
			names = append(names, e.Name())
		}
		if len(names) > 0 && !ours {
			if len(names) > 5 {
				names = append(names[:5], "...")
			}
			return fmt.Errorf("%s holds files that data synth did not write (%s): not replacing them; choose an empty or new folder", dir, strings.Join(names, ", "))
		}
	}
	return os.WriteFile(filepath.Join(dir, synthMarker), []byte("written by gtformer data synth\n"), 0o644)
}
