package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/topicmap"
)

// FieldInfo describes one document field (GET /v1/info).
type FieldInfo struct {
	Name    string           `json:"name"`
	Kind    corpus.FieldKind `json:"kind"`    // "number", "string" or "date"
	Present int              `json:"present"` // documents that have it
}

// maps holds what the facets and the link map read: the documents'
// fields, word counts and the tree in θ's columns, and the link maps
// computed so far (one per level).
type maps struct {
	fields  []corpus.Field
	lengths []int
	tree    topicmap.Tree

	mu    sync.Mutex
	links map[int]*topicmap.LinkMap
}

func newMaps(ix *Index, fields []corpus.Field, lengths []int) *maps {
	return &maps{fields: fields, lengths: lengths, tree: topicmap.TreeOf(ix.m.Topics.Tables()), links: map[int]*topicmap.LinkMap{}}
}

// setFields replaces the fields and the Info list of them.
func (ix *Index) setFields(fields []corpus.Field) {
	ix.maps.fields = fields
	ix.info.Fields = []FieldInfo{}
	for _, f := range fields {
		ix.info.Fields = append(ix.info.Fields, FieldInfo{Name: f.Name, Kind: f.Kind, Present: f.Present()})
	}
}

// readModelFields reads the model folder's copy of its corpus's fields
// (outputs.MetaFile) for n documents: nil, nil when the folder has none.
func readModelFields(dir string, n int) ([]corpus.Field, error) {
	path := filepath.Join(dir, outputs.MetaFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	defer f.Close()
	return corpus.ReadMeta(f, path, n)
}

// Fields returns the documents' fields, the labels among them.
func (ix *Index) Fields() []corpus.Field { return ix.maps.fields }

// field returns the field called name.
func (ix *Index) field(name string) (*corpus.Field, error) {
	for k := range ix.maps.fields {
		if ix.maps.fields[k].Name == name {
			return &ix.maps.fields[k], nil
		}
	}
	return nil, fmt.Errorf("field %q: %w", name, ErrNotFound)
}

// docFields returns document i's fields by name: numbers as JSON numbers,
// the others as strings; nil when it has none.
func (ix *Index) docFields(i int) map[string]any {
	var out map[string]any
	for _, f := range ix.maps.fields {
		v := f.Values[i]
		if v == "" {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		if f.Kind == corpus.KindNumber {
			out[f.Name] = json.Number(v)
		} else {
			out[f.Name] = v
		}
	}
	return out
}

// Facets returns topic id's facet of a field (GET
// /v1/topics/{id}/facets/{field}): its share of the words and of the
// documents per bin, its children stacked. An unknown topic or field is
// ErrNotFound; a binning that does not fit the field is
// topicmap.ErrBadRequest.
func (ix *Index) Facets(id int, field string, opt topicmap.FacetOptions) (*topicmap.Facet, error) {
	r, ok := ix.rowOf[id]
	if !ok {
		return nil, fmt.Errorf("topic %d: %w", id, ErrNotFound)
	}
	f, err := ix.field(field)
	if err != nil {
		return nil, err
	}
	b, err := topicmap.Bins(*f, opt)
	if err != nil {
		return nil, err
	}
	return topicmap.Facets(ix.emb.Theta, ix.maps.lengths, ix.maps.tree, r, b)
}

// LinkMap returns the link map of a level (GET /v1/topics/links), the
// top strongest cross-branch pairs listed; a level the tree does not have
// is topicmap.ErrBadRequest. Each level's map is computed once.
func (ix *Index) LinkMap(level, top int) (*topicmap.LinkMap, error) {
	mp := ix.maps
	mp.mu.Lock()
	lm, ok := mp.links[level]
	mp.mu.Unlock()
	if !ok {
		var err error
		// Every pair is kept here; the answer is cut to top below.
		lm, err = topicmap.Links(ix.emb.Theta, mp.tree, level, ix.g.Links, len(mp.tree.ID)*len(mp.tree.ID))
		if err != nil {
			return nil, err
		}
		mp.mu.Lock()
		mp.links[level] = lm
		mp.mu.Unlock()
	}
	out := *lm
	out.Pairs = lm.Pairs[:min(max(top, 0), len(lm.Pairs))]
	return &out, nil
}

// DefaultFacetOptions are the facets' options when a request gives none:
// bins chosen by the field (topicmap.Bins).
func DefaultFacetOptions() topicmap.FacetOptions { return topicmap.FacetOptions{} }
