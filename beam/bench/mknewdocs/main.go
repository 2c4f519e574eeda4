// Command mknewdocs writes a benchmark input for gtformer-beam embed and
// gtformer embed --new: the documents of a folder corpus (made by gtformer
// data synth) as JSON Lines of new documents, in shards. A document's
// text is its words; its links are its own corpus links, renamed to the
// new documents' ids (links among new documents), plus --known-links links
// to documents of the trained corpus, by line number below --known (drawn
// with a seed, so the input is the same every time).
//
//	mknewdocs --data DIR --known N --out DIR [--shards 8] [--known-links 2] [--seed 1]
//
// It writes DIR/new-00000.jsonl ... and DIR/all.jsonl.txt, their
// concatenation in order (what gtformer embed --new reads; the name keeps
// it out of the shards' pattern DIR/new-*.jsonl).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/corpus"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mknewdocs:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mknewdocs", flag.ContinueOnError)
	data := fs.String("data", "", "folder `DIR` of the corpus whose documents become the new documents")
	known := fs.Int("known", 0, "documents of the trained corpus (links name line numbers below it)")
	knownLinks := fs.Int("known-links", 2, "links per new document to the trained corpus")
	out := fs.String("out", "", "output `DIR`")
	shards := fs.Int("shards", 8, "output shards")
	seed := fs.Uint64("seed", 1, "seed of the links to the trained corpus")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *out == "" || *known < 1 || *shards < 1 || *knownLinks < 0 {
		return errors.New("--data and --out are required, --known and --shards positive, --known-links not negative")
	}
	g, err := corpus.Load(*data, corpus.LoadOptions{NoWordVectors: true})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	all, err := os.Create(filepath.Join(*out, "all.jsonl.txt"))
	if err != nil {
		return err
	}
	defer all.Close()
	allW := bufio.NewWriter(all)
	rng := rand.New(rand.NewPCG(*seed, 0x6e6577))
	per := (g.NumDocs() + *shards - 1) / *shards
	for s := 0; s < *shards; s++ {
		f, err := os.Create(filepath.Join(*out, fmt.Sprintf("new-%05d.jsonl", s)))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(io.MultiWriter(f, allW))
		for d := s * per; d < min((s+1)*per, g.NumDocs()); d++ {
			words := make([]string, 0, len(g.Doc(d)))
			for _, v := range g.Doc(d) {
				words = append(words, g.Vocab[v])
			}
			var links []string
			for _, n := range g.Neighbors(d) {
				links = append(links, "new"+strconv.Itoa(int(n)))
			}
			for range *knownLinks {
				links = append(links, strconv.Itoa(rng.IntN(*known)))
			}
			b, err := json.Marshal(struct {
				ID    string   `json:"id"`
				Text  string   `json:"text"`
				Links []string `json:"links"`
			}{"new" + strconv.Itoa(d), strings.Join(words, " "), links})
			if err != nil {
				return err
			}
			w.Write(b)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := allW.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d new documents in %d shards into %s\n", g.NumDocs(), *shards, *out)
	return all.Close()
}
