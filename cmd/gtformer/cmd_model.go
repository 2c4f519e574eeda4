package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpusstates"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/outputs"
)

func init() {
	register(&command{
		name:    "topics",
		summary: "print the topic tree of a trained model",
		run:     runTopics,
	})
	register(&command{
		name:    "embed",
		summary: "embed a corpus's documents with a trained model (.npy hyperboloid coordinates)",
		run:     runEmbed,
	})
}

func runTopics(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("topics", "--model DIR", stderr)
	dir := modelDirFlag(fs)
	asJSON := fs.Bool("json", false, "print topics.json instead of the indented tree")
	byLift := fs.Bool("by-lift", false, "list each topic's words by relevance to its parent (what it adds to the parent) instead of by weight")
	describe(fs, stderr, "--model DIR [--json] [--by-lift]", `
Prints the learned topic tree from DIR/topics.json (written by gtformer
train): each topic with its level, its share of the training words, its
label (the user's, from the folder's edit log, or an automatic one) and its
top-10 words, those that its parent's top 10 also holds last, after "·".
Curate the tree with gtformer topics label, merge, move, delete and reduce
(each writes a new model folder; -h for each).
--by-lift lists instead the words ranked by relevance to the parent,
0.6·log β_t(w) + 0.4·log(β_t(w)/β_parent(w)) (LDAvis's relevance).`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--model is required")
	}
	topics, err := outputs.ReadTopics(*dir)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := outputs.MarshalJSON(topics)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if err := outputs.WriteTopicsText(stdout, topics, outputs.TextOptions{ByLift: *byLift}); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(*dir, outputs.TopicsFile), err)
	}
	return nil
}

func runEmbed(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("embed", "--model DIR --data PATH --out FILE", stderr)
	d.register(fs)
	dir := modelDirFlag(fs)
	out := fs.String("out", "", "output `FILE` (.npy, float32 (N, n+1) hyperboloid coordinates)")
	topicsOut := fs.String("topics-out", "", "optional `FILE` for the documents' topic distributions θ (.npy, float32 (N, T))")
	batch := fs.Int("batch", 128, "documents per inference batch")
	maxNbrs := fs.Int("max-nbrs", 64, "neighbours a document aggregates at most")
	threads := threadsFlag(fs)
	newDocs := fs.String("new", "", "JSON Lines `FILE` of new documents ({\"id\", \"text\", \"links\"}; a \"label\" is accepted and not used) to embed instead, linked to the corpus's documents (by id, or for a folder corpus by 0-based document id, the line of contents.txt counted from 0) or to each other; a new id must not be a corpus document's")
	allow := allowCorpusFlag(fs, "embed")
	exportStates := fs.String("export-states", "", "instead of embedding, write what embedding new documents reads from the corpus (every document's words, links and own-text states) into `DIR` for gtformer-beam: "+corpusstates.MetaFile+" and "+corpusstates.RecordsFile+" (usually the model's DIR)")
	describe(fs, stderr, "--model DIR --data PATH [--new FILE.jsonl] --out FILE | --export-states DIR", `
Embeds every document of the corpus the model was trained on (same --data
and corpus flags: the model records the corpus's fingerprint and refuses
another, naming what differs, unless --allow-different-corpus), each through
its links to the corpus's other documents, and writes the hyperboloid
coordinates as .npy. With --new, embeds only the new documents of a JSON
Lines file instead: their text is tokenized into the model's vocabulary
(unknown words dropped) and each aggregates the documents it links to. Rows
follow the documents' order. With --export-states, writes the corpus's
neighbour states for gtformer-beam instead, which then embeds new documents
without the corpus.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	restore, err := useThreads(*threads)
	if err != nil {
		return err
	}
	defer restore()
	if *exportStates != "" {
		if *out != "" || *newDocs != "" || *topicsOut != "" {
			return usagef("--export-states writes its own files: --out, --topics-out and --new do not apply")
		}
		if *dir == "" {
			return usagef("--model is required")
		}
	} else if *dir == "" || *out == "" {
		return usagef("--model and --out are required")
	}
	// Zero would loop forever (batch) or leave documents without a
	// neighbour slot (max-nbrs).
	if *batch < 1 || *maxNbrs < 1 {
		return usagef("--batch and --max-nbrs must be positive, got %d and %d", *batch, *maxNbrs)
	}
	// An embedding does not depend on the split.
	m, _, g, _, err := loadModelAndCorpus(*dir, &d, *allow, stderr, "split")
	if err != nil {
		return err
	}
	if *exportStates != "" {
		if err := corpusstates.Export(*exportStates, *dir, m, g, *batch); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the neighbour states of %d documents into %s\n", g.NumDocs(), filepath.Join(*exportStates, corpusstates.RecordsFile))
		return nil
	}
	var emb *model.Embeddings
	if *newDocs != "" {
		nd, err := corpus.ReadNewDocs(*newDocs, g)
		if err != nil {
			return err
		}
		if nd.Unknown > 0 {
			fmt.Fprintf(stderr, "%s: %d words outside the model's vocabulary were dropped\n", *newDocs, nd.Unknown)
		}
		emb = m.EmbedNew(g, nd, *maxNbrs, *batch)
	} else {
		docs := make([]int32, g.NumDocs())
		for i := range docs {
			docs[i] = int32(i)
		}
		nbrs := func(i int32) []int32 { return g.Neighbors(int(i)) }
		emb = m.Embed(m.Inputs(g, nbrs), docs, nbrs, *maxNbrs, *batch)
	}
	rows := len(emb.Points) / (emb.Width + 1)
	if err := npy.Write(*out, []int{rows, emb.Width + 1}, emb.Points); err != nil {
		return err
	}
	if *topicsOut != "" {
		if err := npy.Write(*topicsOut, []int{rows, emb.Topics}, emb.Theta); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "embedded %d documents into %s (%d × %d)\n", rows, *out, rows, emb.Width+1)
	return nil
}
