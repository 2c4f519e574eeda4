// Command growth runs the growth protocol of gtformer update: a model
// trained on part of a corpus, then updated with the rest, against a model
// trained from scratch on the whole, on the same validation documents.
//
// For a dataset folder (or the built-in corpus), a seed and a fraction f it
// takes the paper split's training documents outside validation in
// document order, keeps the first f of them and every validation and test
// document as the base corpus (a dataset folder with ids.txt and split.txt
// giving every document its original role), and writes the rest as new
// documents: one part (-updates 0), or -updates K parts of -step of the
// training documents each (five of 0.08 after a base of 0.6), each a folder
// of new documents (corpus_links.txt links them to the documents added
// before them; a link is written once, with its later end). It then runs
//
//	gtformer train --data BASE --valid-only          (the base)
//	gtformer update --data PART --valid-only          (once per part)
//	gtformer train --data DATA --valid-only          (from scratch, unless -no-scratch)
//
// and prints (and writes to WORK/growth.json) each run's validation
// figures: kNN Micro-F1, link AUC, log-perplexity, NPMI, diversity and
// seconds. Every run reads the validation documents of the original paper
// split and never the test split.
//
// Smoke run (the built-in corpus, one epoch, a few update steps):
//
//	go build -o gtformer ./cmd/gtformer
//	go run ./scripts/growth -gtformer ./gtformer -work $TMP/growth \
//	    -train-flags "--epochs 1" -update-flags "--steps 6"
//
// Five successive updates of 8% each:
//
//	go run ./scripts/growth -gtformer ./gtformer -data data/ml -work $TMP/growth-ml -updates 5 -step 0.08
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/preset"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "growth:", err)
		os.Exit(1)
	}
}

type config struct {
	data, work, bin         string
	seed                    uint64
	fraction, step          float64
	updates                 int
	trainFlags, updateFlags string
	noScratch               bool
}

func run(args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("growth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.data, "data", "", "dataset folder (empty: the built-in corpus)")
	fs.StringVar(&c.work, "work", "", "work folder (new or empty)")
	fs.StringVar(&c.bin, "gtformer", "gtformer", "the gtformer binary")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of every run")
	fs.Float64Var(&c.fraction, "fraction", 0.6, "share of the training documents outside validation in the base")
	fs.IntVar(&c.updates, "updates", 0, "number of update parts (0: one part, the rest)")
	fs.Float64Var(&c.step, "step", 0.08, "with -updates K: each part's share of the training documents outside validation")
	fs.StringVar(&c.trainFlags, "train-flags", "", "more flags for train (base and scratch), space-separated")
	fs.StringVar(&c.updateFlags, "update-flags", "", "more flags for update, space-separated")
	fs.BoolVar(&c.noScratch, "no-scratch", false, "skip the from-scratch run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.work == "" || !(c.fraction > 0 && c.fraction < 1) || c.updates < 0 || !(c.step > 0) {
		return fmt.Errorf("want -work, -fraction in (0,1), -updates ≥ 0, -step > 0")
	}
	parts, err := prepare(c)
	if err != nil {
		return err
	}
	seed := strconv.FormatUint(c.seed, 10)
	var rows []row
	prev := filepath.Join(c.work, "m0")
	base := filepath.Join(c.work, "base")
	trainArgs := append([]string{"train", "--data", base, "--out", prev, "--valid-only", "--quiet", "--seed", seed}, builtinFlags(c)...)
	trainArgs = append(trainArgs, strings.Fields(c.trainFlags)...)
	wall, err := gtformer(c.bin, trainArgs, stderr)
	if err != nil {
		return err
	}
	r, err := readValid("base", prev)
	if err != nil {
		return err
	}
	r.Wall = wall
	rows = append(rows, r)
	for i, p := range parts {
		out := filepath.Join(c.work, fmt.Sprintf("m%d", i+1))
		a := []string{"update", "--model", prev, "--data", p, "--out", out, "--valid-only", "--quiet", "--seed", seed}
		if i == 0 {
			a = append(a, "--corpus", base)
		}
		wall, err := gtformer(c.bin, append(a, strings.Fields(c.updateFlags)...), stderr)
		if err != nil {
			return err
		}
		if r, err = readValid(fmt.Sprintf("update %d", i+1), out); err != nil {
			return err
		}
		r.Wall = wall
		rows = append(rows, r)
		prev = out
	}
	if !c.noScratch {
		out := filepath.Join(c.work, "scratch")
		a := []string{"train", "--out", out, "--valid-only", "--quiet", "--seed", seed}
		if c.data != "" {
			a = append(a, "--data", c.data)
		}
		wall, err := gtformer(c.bin, append(a, strings.Fields(c.trainFlags)...), stderr)
		if err != nil {
			return err
		}
		if r, err = readValid("from scratch", out); err != nil {
			return err
		}
		r.Wall = wall
		rows = append(rows, r)
	}
	fmt.Fprintf(stdout, "%-14s %8s %8s %8s %8s %8s %9s %8s %8s\n", "run", "kNN-F1", "AUC", "log-ppl", "NPMI", "div", "topics", "seconds", "wall")
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-14s %8s %8s %8s %8.3f %8.3f %9d %8.1f %8.1f\n", r.Run, f(r.KNN), f(r.AUC), f(r.LogPPL), r.NPMI, r.Diversity, r.Topics, r.Seconds, r.Wall)
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.work, "growth.json"), append(b, '\n'), 0o644)
}

// prepare writes the base corpus and the parts of new documents into
// c.work and returns the parts' folders.
func prepare(c config) ([]string, error) {
	if entries, err := os.ReadDir(c.work); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty", c.work)
	}
	var g *corpus.Graph
	var err error
	if c.data == "" {
		g, _, err = synth.Generate(synth.Default())
	} else {
		g, err = corpus.LoadFolder(c.data, corpus.LoadOptions{})
	}
	if err != nil {
		return nil, err
	}
	if g.DocIDs == nil {
		// The documents keep their original numbers as ids, so that the
		// parts can link to them wherever they sit in the union.
		g.DocIDs = make([]string, g.NumDocs())
		for d := range g.DocIDs {
			g.DocIDs[d] = strconv.Itoa(d)
		}
	}
	s := corpus.PaperSplit(g)
	fit := s.Holdout(g).Train // training documents outside validation, in order
	nBase := int(c.fraction * float64(len(fit)))
	var chunks [][]int32
	rest := fit[nBase:]
	if c.updates == 0 {
		chunks = [][]int32{rest}
	} else {
		size := int(c.step * float64(len(fit)))
		for k := 0; k < c.updates && len(rest) > 0; k++ {
			n := min(size, len(rest))
			if k == c.updates-1 {
				n = len(rest)
			}
			chunks, rest = append(chunks, rest[:n]), rest[n:]
		}
	}
	later := map[int32]int{} // document → its part (1-based); base documents are absent
	for k, ch := range chunks {
		for _, d := range ch {
			later[d] = k + 1
		}
	}
	var baseDocs []int32
	for d := range int32(g.NumDocs()) {
		if later[d] == 0 {
			baseDocs = append(baseDocs, d)
		}
	}
	roles := s.Roles(g.NumDocs())
	baseDir := filepath.Join(c.work, "base")
	if err := corpus.WriteFolder(g.Subset(baseDocs), baseDir); err != nil {
		return nil, err
	}
	baseRoles := make([]corpus.Role, len(baseDocs))
	for i, d := range baseDocs {
		baseRoles[i] = roles[d]
	}
	if err := writeWith(filepath.Join(baseDir, corpus.SplitFile), func(w io.Writer) error { return corpus.WriteSplit(w, baseRoles) }); err != nil {
		return nil, err
	}
	var dirs []string
	for k, ch := range chunks {
		dir := filepath.Join(c.work, fmt.Sprintf("part%d", k+1))
		if err := writePart(g, ch, k+1, later, dir); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

// writePart writes the documents docs of part k as a folder of new
// documents: their own links in links.txt, their links to documents of the
// base and earlier parts in corpus_links.txt (links to later parts are
// written with those).
func writePart(g *corpus.Graph, docs []int32, k int, later map[int32]int, dir string) error {
	part := g.Subset(docs)
	if err := corpus.WriteFolder(part, dir); err != nil {
		return err
	}
	return writeWith(filepath.Join(dir, corpus.CorpusLinksFile), func(w io.Writer) error {
		for i, d := range docs {
			for _, n := range g.Neighbors(int(d)) {
				if p := later[n]; p < k {
					if _, err := fmt.Fprintf(w, "%d %s\n", i, g.DocIDs[n]); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func writeWith(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// builtinFlags are, for the built-in corpus, the model sizes train uses
// on it when no --data is given (preset.Settings.Builtin), so that the
// base, given as a folder, is the same model as the from-scratch run.
func builtinFlags(c config) []string {
	if c.data != "" {
		return nil
	}
	s := preset.DefaultSettings()
	s.Builtin()
	k := s.Config
	return []string{"--width", strconv.Itoa(k.Width), "--layers", strconv.Itoa(k.Layers), "--heads", strconv.Itoa(k.Heads),
		"--mlp", strconv.Itoa(k.MLPHidden), "--max-len", strconv.Itoa(k.MaxLen), "--epochs", strconv.Itoa(s.Options.Epochs)}
}

// gtformer runs the binary with args, its output on stderr.
// gtformer runs the binary and returns its wall time in seconds (loading,
// features, training, scoring: what the user waits for).
func gtformer(bin string, args []string, stderr io.Writer) (float64, error) {
	fmt.Fprintf(stderr, "$ gtformer %s\n", strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("gtformer %s: %w", args[0], err)
	}
	return time.Since(began).Seconds(), nil
}

// row is one run's validation figures (valid.json).
type row struct {
	Run       string   `json:"run"`
	KNN       *float64 `json:"valid_knn_micro_f1"`
	AUC       *float64 `json:"valid_link_auc"`
	LogPPL    *float64 `json:"valid_log_perplexity"`
	NPMI      float64  `json:"npmi"`
	Diversity float64  `json:"diversity"`
	Topics    int      `json:"topics"`
	Seconds   float64  `json:"train_seconds"`
	Wall      float64  `json:"wall_seconds"` // the whole command's
}

func readValid(name, dir string) (row, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "valid.json"))
	if err != nil {
		return row{}, err
	}
	var v struct {
		TrainSeconds float64 `json:"train_seconds"`
		Valid        *struct {
			KNN    *float64 `json:"knn_micro_f1"`
			AUC    *float64 `json:"link_auc"`
			LogPPL *float64 `json:"log_perplexity"`
		} `json:"valid"`
		Topics struct {
			Count     int     `json:"count"`
			NPMI      float64 `json:"npmi"`
			Diversity float64 `json:"diversity"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return row{}, fmt.Errorf("%s: %w", dir, err)
	}
	r := row{Run: name, NPMI: v.Topics.NPMI, Diversity: v.Topics.Diversity, Topics: v.Topics.Count, Seconds: v.TrainSeconds}
	if v.Valid != nil {
		r.KNN, r.AUC, r.LogPPL = v.Valid.KNN, v.Valid.AUC, v.Valid.LogPPL
	}
	return r, nil
}

func f(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}
