package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
)

// TestShardsAreValidNewDocuments: the shards concatenate to all.jsonl.txt,
// every line reads as a new document, and its links name new documents
// of the input or known documents below --known.
func TestShardsAreValidNewDocuments(t *testing.T) {
	g, _, err := synth.Generate(synth.Config{Docs: 50, Vocab: 60, Depth: 2, Branching: 3, Links: 80, MeanLength: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	data, out := filepath.Join(t.TempDir(), "c"), t.TempDir()
	if err := corpus.WriteFolder(g, data); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := run([]string{"--data", data, "--known", "7", "--out", out, "--shards", "3"}, &stdout); err != nil {
		t.Fatal(err)
	}
	var cat []byte
	for s := range 3 {
		b, err := os.ReadFile(filepath.Join(out, "new-0000"+string(rune('0'+s))+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		cat = append(cat, b...)
	}
	all, err := os.ReadFile(filepath.Join(out, "all.jsonl.txt"))
	if err != nil || !bytes.Equal(all, cat) {
		t.Fatalf("all.jsonl.txt is not the shards' concatenation (%v)", err)
	}
	known := &corpus.Graph{Vocab: g.Vocab, DocPtr: make([]int64, 8)}
	nd, err := corpus.ReadNewDocs(filepath.Join(out, "all.jsonl.txt"), known)
	if err != nil {
		t.Fatal(err)
	}
	if len(nd.IDs) != 50 || nd.Unknown != 0 || len(nd.Links) != 2*len(g.Links)+2*50 {
		t.Errorf("%d documents, %d unknown words, %d links", len(nd.IDs), nd.Unknown, len(nd.Links))
	}
	if !strings.Contains(stdout.String(), "wrote 50 new documents in 3 shards") {
		t.Errorf("stdout %q", stdout.String())
	}
	if err := run([]string{"--data", data, "--out", out}, &stdout); err == nil {
		t.Error("no --known: no error")
	}
}
