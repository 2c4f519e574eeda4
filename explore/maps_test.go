package explore

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/topicmap"
)

func TestFacetsAndLinkMap(t *testing.T) {
	ix := fixture(t)
	info := ix.Info()
	if len(info.Fields) != 1 || info.Fields[0].Name != corpus.LabelField || info.Fields[0].Present != ix.NumDocs() {
		t.Fatalf("fields %+v, want the labels", info.Fields)
	}
	root := ix.Tree().Nodes[0]
	fc, err := ix.Facets(root.ID, "label", topicmap.FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Bins) != len(info.Labels) || len(fc.Stack) != len(root.Children)+1 {
		t.Fatalf("facet of %d bins, %d series", len(fc.Bins), len(fc.Stack))
	}
	for k := range fc.Bins {
		if math.Abs(fc.Total.Docs[k]-1) > 1e-4 {
			t.Errorf("bin %d: the root holds %g of the documents, want 1", k, fc.Total.Docs[k])
		}
	}
	for _, tc := range []struct {
		id    int
		field string
		opt   topicmap.FacetOptions
		want  error
	}{
		{-5, "label", topicmap.FacetOptions{}, ErrNotFound},
		{root.ID, "year", topicmap.FacetOptions{}, ErrNotFound},
		{root.ID, "label", topicmap.FacetOptions{Bin: topicmap.BinYear}, topicmap.ErrBadRequest},
	} {
		if _, err := ix.Facets(tc.id, tc.field, tc.opt); !errors.Is(err, tc.want) {
			t.Errorf("Facets(%d, %q, %+v): %v, want %v", tc.id, tc.field, tc.opt, err, tc.want)
		}
	}

	lm, err := ix.LinkMap(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(lm.Topics) != len(root.Children) || len(lm.Pairs) > 2 || lm.Links == 0 {
		t.Errorf("link map %+v", lm)
	}
	for _, level := range []int{0, info.Levels, -1} {
		if _, err := ix.LinkMap(level, 2); !errors.Is(err, topicmap.ErrBadRequest) {
			t.Errorf("level %d: %v, want a bad request", level, err)
		}
	}

	d, err := ix.Document(ix.DocID(0))
	if err != nil {
		t.Fatal(err)
	}
	if d.Fields["label"] != d.Label || d.Label == "" {
		t.Errorf("document fields %v, label %q", d.Fields, d.Label)
	}
}

func TestReadModelFields(t *testing.T) {
	dir := t.TempDir()
	if f, err := readModelFields(dir, 2); f != nil || err != nil {
		t.Errorf("no file: %v %v", f, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.jsonl"), []byte("{\"year\": 2001}\n{\"label\": \"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := readModelFields(dir, 2)
	if err != nil || len(f) != 2 || f[0].Name != "label" || f[1].Kind != corpus.KindNumber {
		t.Errorf("fields %+v, %v", f, err)
	}
	if _, err := readModelFields(dir, 3); err == nil {
		t.Error("a meta.jsonl of 2 lines read for 3 documents")
	}
}
