package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/npy"
)

// dataFlags are the flags of every command that reads a corpus (data stats,
// data validate, and later train, baseline, eval): where the corpus is, how
// to read it, and how to split it.
type dataFlags struct {
	path      string
	knnLinks  bool
	knnK      int
	knnBudget int64
	// dropLinks and cutWords make the corpus harder on purpose
	// (corpus.Graph.Harder): the stress variants that check defaults beyond
	// the corpora they were chosen on.
	dropLinks float64
	cutWords  int
	minDF     int
	maxDF     float64
	maxVocab  int
	// split is paper, random, or the path of a split file
	// (corpus.ReadSplit); "" until options resolves it: the folder's
	// split.txt when the corpus is a dataset folder that holds one, else
	// paper.
	split     string
	splitSeed uint64
	// roles is the split file's content, read by load (nil: no file).
	roles []corpus.Role
}

// register adds the corpus and split flags to fs.
func (d *dataFlags) register(fs *flag.FlagSet) {
	d.registerLoad(fs)
	d.registerSplit(fs)
}

// registerLoad adds only the flags that say where and how to read the
// corpus, for commands that do not split it.
func (d *dataFlags) registerLoad(fs *flag.FlagSet) {
	d.registerLoadAs(fs, "data", "`PATH` of the corpus: a dataset folder (contents.txt, links.txt, voc.txt, ...) or a .jsonl file of raw text; empty: the built-in synthetic corpus")
}

// registerLoadAs is registerLoad with the corpus's path under the flag
// name (gtformer update's --data is the new documents; its corpus is
// --corpus).
func (d *dataFlags) registerLoadAs(fs *flag.FlagSet, name, usage string) {
	d.split = "paper" // the default when registerSplit is not called
	tok := corpus.DefaultTokenizer()
	fs.StringVar(&d.path, name, "", usage)
	fs.BoolVar(&d.knnLinks, "knn-links", false, "link a corpus that has no links to its tf-idf nearest neighbours (as the paper did for COVID)")
	fs.IntVar(&d.knnK, "knn-k", corpus.DefaultKNN, "neighbours per document for --knn-links (κ)")
	fs.Int64Var(&d.knnBudget, "knn-budget", corpus.DefaultKNNBudget, "work bound of --knn-links, Σ df² multiply-adds; the graph is exact below it, approximate above (the most frequent words propose no neighbours)")
	fs.Float64Var(&d.dropLinks, "drop-links", 0, "stress test: drop each link with this probability (seeded by --split-seed) after loading")
	fs.IntVar(&d.cutWords, "cut-words", 0, "stress test: cut every document to its first N words after loading (0: no cut)")
	fs.IntVar(&d.minDF, "min-df", tok.MinDF, "JSON Lines: keep words in at least this many documents")
	fs.Float64Var(&d.maxDF, "max-df", tok.MaxDF, "JSON Lines: drop words in more than this fraction of documents (0: no limit)")
	fs.IntVar(&d.maxVocab, "max-vocab", tok.MaxVocab, "JSON Lines: keep at most this many words, the most document-frequent (0: no limit)")
}

// registerSplit adds the split flags.
func (d *dataFlags) registerSplit(fs *flag.FlagSet) {
	d.split = ""
	fs.StringVar(&d.split, "split", "", "document split `NAME`: paper (first 80% train, last 10% of those validation, last 20% test), random, "+
		"or a split FILE (one role per document line: train, valid, test); empty: the corpus folder's split.txt if it has one, else paper")
	fs.Uint64Var(&d.splitSeed, "split-seed", 1, "seed of --split random")
}

// options checks the flags and turns them into load options; mistakes are
// usage errors.
func (d *dataFlags) options() (corpus.LoadOptions, error) {
	switch {
	case d.knnK <= 0:
		return corpus.LoadOptions{}, usagef("--knn-k must be positive, got %d", d.knnK)
	case d.knnBudget <= 0:
		return corpus.LoadOptions{}, usagef("--knn-budget must be positive, got %d", d.knnBudget)
	case d.minDF < 0:
		return corpus.LoadOptions{}, usagef("--min-df must not be negative, got %d", d.minDF)
	case d.maxDF < 0 || d.maxDF > 1:
		return corpus.LoadOptions{}, usagef("--max-df must be a fraction in (0, 1], or 0 for no limit; got %g", d.maxDF)
	case d.maxVocab < 0:
		return corpus.LoadOptions{}, usagef("--max-vocab must not be negative, got %d", d.maxVocab)
	case !(d.dropLinks >= 0 && d.dropLinks < 1):
		return corpus.LoadOptions{}, usagef("--drop-links must be a probability in [0, 1), got %g", d.dropLinks)
	case d.cutWords < 0:
		return corpus.LoadOptions{}, usagef("--cut-words must not be negative, got %d", d.cutWords)
	}
	if err := d.resolveSplit(); err != nil {
		return corpus.LoadOptions{}, err
	}
	return corpus.LoadOptions{
		KNNLinks:  d.knnLinks,
		KNN:       corpus.KNNOptions{K: d.knnK, Budget: d.knnBudget},
		Tokenizer: corpus.TokenizerOptions{MinDF: d.minDF, MaxDF: d.maxDF, MaxVocab: d.maxVocab},
	}, nil
}

// load reads the corpus the flags name.
func (d *dataFlags) load() (*corpus.Graph, error) {
	opt, err := d.options()
	if err != nil {
		return nil, err
	}
	g, err := loadGraph(d.path, opt)
	if err != nil {
		return nil, err
	}
	if d.dropLinks != 0 || d.cutWords != 0 {
		g = g.Harder(d.dropLinks, d.cutWords, d.splitSeed)
	}
	if d.splitFile() {
		if d.roles, err = corpus.ReadSplit(d.split, g.NumDocs()); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// resolveSplit sets an empty --split to the corpus folder's split file
// when it has one, else paper, and checks a named split file exists.
func (d *dataFlags) resolveSplit() error {
	if d.split == "" {
		d.split = "paper"
		if p := filepath.Join(d.path, corpus.SplitFile); d.path != "" && isFile(p) {
			d.split = p
		}
	}
	if d.splitFile() && !isFile(d.split) {
		return usagef("--split must be paper or random, or a split file; %s is none", d.split)
	}
	return nil
}

// splitFile reports whether the split is read from a file.
func (d *dataFlags) splitFile() bool { return d.split != "paper" && d.split != "random" }

// splitName names the split for tables and fingerprints: paper, random or
// file (a file's path is not part of what it holds).
func (d *dataFlags) splitName() string {
	if d.splitFile() {
		return "file"
	}
	return d.split
}

// isFile reports whether path names a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// harderSuffix names the stress variant of the flags ("" for none), for
// dataset names in experiment tables.
func (d *dataFlags) harderSuffix() string {
	var s string
	if d.dropLinks > 0 {
		s += fmt.Sprintf("-drop%g", d.dropLinks)
	}
	if d.cutWords > 0 {
		s += fmt.Sprintf("-cut%d", d.cutWords)
	}
	return s
}

// makeSplit splits g as the flags say (load read a split file's roles).
func (d *dataFlags) makeSplit(g *corpus.Graph) *corpus.Split {
	if d.roles != nil {
		s, err := corpus.SplitFromRoles(g, d.roles)
		if err == nil {
			return s
		}
		// load read the roles for this corpus's documents.
		panic(fmt.Sprintf("gtformer: split file %s: %v", d.split, err))
	}
	if d.split == "random" {
		return corpus.RandomSplit(g, d.splitSeed)
	}
	return corpus.PaperSplit(g)
}

// knnExact reports whether an induced link graph of g is exact under the
// flags' budget, and the work an exact graph needs.
func (d *dataFlags) knnExact(g *corpus.Graph) (exact bool, work int64) {
	work = corpus.KNNWork(g)
	return work <= d.knnBudget, work
}

// fingerprint identifies g split by s as these flags read it: the corpus
// content, and the settings that shaped it (the split; the tokenizer's
// limits for a JSON Lines file; the induced links' flags; the stress
// variants'), by flag name.
func (d *dataFlags) fingerprint(g *corpus.Graph, s *corpus.Split) *corpus.Fingerprint {
	set := map[string]string{"split": d.splitName()}
	if d.split == "random" || d.dropLinks > 0 {
		set["split-seed"] = strconv.FormatUint(d.splitSeed, 10)
	}
	if fi, err := os.Stat(d.path); d.path != "" && err == nil && !fi.IsDir() {
		set["min-df"] = strconv.Itoa(d.minDF)
		set["max-df"] = strconv.FormatFloat(d.maxDF, 'g', -1, 64)
		set["max-vocab"] = strconv.Itoa(d.maxVocab)
	}
	if g.LinksInduced {
		set["knn-links"] = "true"
		set["knn-k"] = strconv.Itoa(d.knnK)
		set["knn-budget"] = strconv.FormatInt(d.knnBudget, 10)
	}
	if d.dropLinks > 0 {
		set["drop-links"] = strconv.FormatFloat(d.dropLinks, 'g', -1, 64)
	}
	if d.cutWords > 0 {
		set["cut-words"] = strconv.Itoa(d.cutWords)
	}
	return corpus.NewFingerprint(g, s, set, d.source())
}

// source describes where the corpus comes from, for messages.
func (d *dataFlags) source() string {
	if d.path == "" {
		return "built-in synthetic corpus"
	}
	return d.path
}

// loadGraph is the one place commands get a corpus from: a dataset folder
// or JSON Lines file at path, or, for an empty path, the built-in synthetic
// corpus.
func loadGraph(path string, opt corpus.LoadOptions) (*corpus.Graph, error) {
	if path != "" {
		return corpus.Load(path, opt)
	}
	g, err := builtinCorpus()
	if err != nil {
		return nil, fmt.Errorf("built-in corpus: %w", err)
	}
	if opt.KNNLinks && len(g.Links) == 0 {
		g.SetLinks(corpus.KNNGraph(g, opt.KNN))
		g.LinksInduced = true
	}
	return g, nil
}

// planted returns each document's planted leaf, for evaluate.Options.Planted:
// the built-in corpus's (its generator knows the tree it planted), or a
// dataset folder's truth_doc_leaf.npy (data synth writes it); nil for a
// corpus without one. n is the corpus's number of documents: a file of
// another length, or a negative leaf, is an error naming the file.
func (d *dataFlags) planted(n int) ([]int32, error) {
	leaf, err := d.readPlanted()
	if err != nil {
		return nil, err
	}
	if err := d.checkPlanted(leaf, n); err != nil {
		return nil, err
	}
	return leaf, nil
}

// checkPlanted reports a planted leaf list (readPlanted; nil: none) that
// does not hold one leaf for each of the corpus's n documents.
func (d *dataFlags) checkPlanted(leaf []int32, n int) error {
	if leaf != nil && len(leaf) != n {
		return fmt.Errorf("planted tree: %s holds %d leaves for %d documents: want one per document of the corpus (remove it, or write the folder again with gtformer data synth)", filepath.Join(d.path, truthLeafNpy), len(leaf), n)
	}
	return nil
}

// readPlanted is planted without the check against the corpus's size.
func (d *dataFlags) readPlanted() ([]int32, error) {
	if d.path == "" {
		_, truth, err := synth.Generate(synth.Default())
		if err != nil {
			return nil, nil // builtinCorpus, which loaded the corpus, reported it
		}
		return truth.Leaf, nil
	}
	path := filepath.Join(d.path, truthLeafNpy)
	if st, err := os.Stat(d.path); err != nil || !st.IsDir() {
		return nil, nil // a JSON Lines file: no planted tree
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	leaf, shape, err := npy.ReadAs[int32](path)
	if err != nil {
		return nil, fmt.Errorf("planted tree: %w", err)
	}
	if len(shape) != 1 {
		return nil, fmt.Errorf("planted tree: %s has shape %v, want (documents,): one leaf per document", path, shape)
	}
	for i, k := range leaf {
		if k < 0 {
			return nil, fmt.Errorf("planted tree: %s: document %d (line %d of contents.txt) has leaf %d, want a topic id ≥ 0", path, i, i+1, k)
		}
	}
	return leaf, nil
}

// builtinCorpus is the corpus used when no --data is given: the synthetic
// corpus of synth.Default, a planted topic tree (same seed, same corpus).
func builtinCorpus() (*corpus.Graph, error) {
	g, _, err := synth.Generate(synth.Default())
	return g, err
}

// checkVocab refuses a corpus of fewer than two words: every topic would
// be the same distribution and the topic metrics undefined. The hint names
// the flags that shape a JSON Lines vocabulary only for JSON Lines.
func (d *dataFlags) checkVocab(g *corpus.Graph) error {
	if len(g.Vocab) >= 2 {
		return nil
	}
	hint := ""
	if strings.HasSuffix(strings.ToLower(d.path), ".jsonl") {
		hint = fmt.Sprintf(" (--min-df %d, --max-df %g, --max-vocab %d shape it)", d.minDF, d.maxDF, d.maxVocab)
	}
	return fmt.Errorf("%s has a vocabulary of %d word%s: a topic model needs at least 2", d.source(), len(g.Vocab), hint)
}
