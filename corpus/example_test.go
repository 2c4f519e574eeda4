package corpus_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/corpus"
)

func ExampleLoadFolder() {
	g, err := corpus.LoadFolder(filepath.Join("testdata", "tiny"), corpus.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := corpus.PaperSplit(g)
	fmt.Println(g.NumDocs(), "documents,", len(g.Links), "links,", len(g.Vocab), "words")
	fmt.Println("train", len(s.Train), "test", s.Test, "held-out test links", s.TestLinks)
	fmt.Println("a test document's neighbours:", s.TrainNeighbors(8))
	// Output:
	// 10 documents, 8 links, 8 words
	// train 8 test [8 9] held-out test links [[8 9]]
	// a test document's neighbours: [2 7]
}

func ExampleParseError() {
	dir, _ := os.MkdirTemp("", "corpus")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "voc.txt"), []byte("tree\ngraph\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "contents.txt"), []byte("0 1\n1 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "links.txt"), []byte("0 1\n"), 0o644)

	_, err := corpus.LoadFolder(dir, corpus.LoadOptions{})
	var pe *corpus.ParseError
	if errors.As(err, &pe) {
		fmt.Println(filepath.Base(pe.File), "line", pe.Line, "-", pe.Err)
	}
	// Output:
	// contents.txt line 2 - word id 2 outside the vocabulary (ids 0 to 1)
}

func ExampleTokenize() {
	fmt.Println(corpus.Tokenize("The Hyperbolic topic-tree of 2024 graphs, naïvely drawn."))
	// Output:
	// [hyperbolic topic tree 2024 graphs naïvely drawn]
}

func ExampleSampler() {
	g, _ := corpus.LoadFolder(filepath.Join("testdata", "tiny"), corpus.LoadOptions{})
	s := corpus.NewSampler(corpus.PaperSplit(g), 3, 1)
	tab := s.Resample(0) // (N, 3): row i holds document i's neighbours this epoch
	fmt.Println("isolated document 5 gets a self-loop:", tab[5*3:6*3])
	fmt.Println("document 3 has one neighbour, drawn with replacement:", tab[3*3:4*3])
	// Output:
	// isolated document 5 gets a self-loop: [5 5 5]
	// document 3 has one neighbour, drawn with replacement: [4 4 4]
}

func ExampleKNNGraph() {
	g, _ := corpus.LoadFolder(filepath.Join("testdata", "tiny"), corpus.LoadOptions{})
	g.SetLinks(corpus.KNNGraph(g, corpus.KNNOptions{K: 1})) // replace the links by each document's nearest neighbour
	// Checked independently in Python with scikit-learn's tf-idf formulas.
	fmt.Println(g.Links)
	// Output:
	// [[0 8] [1 5] [1 9] [2 6] [3 7] [4 8]]
}
