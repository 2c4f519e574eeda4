package model

import "github.com/gtformer/gtformer/corpus"

// DocInputs derives the inputs of documents given as word-id sequences
// into the model's vocabulary (each whole, in reading order), under the
// model's idf, length and truncation: what Inputs gives for the same
// documents inside a corpus, since those depend on a document's own words
// only. It is for callers that embed documents a batch at a time without
// a corpus (a pipeline worker). A model with hop features reads its
// neighbourhood's words too: the caller sets Hop and HopWidth (HopWidth
// floats per document) from HopStart and features.HopStep over the
// documents' links, as PropagateFeatures would in the whole graph.
func (m *Model) DocInputs(docs [][]int32) *Inputs {
	g := &corpus.Graph{DocPtr: make([]int64, 1, len(docs)+1)}
	for _, d := range docs {
		g.Tokens = append(g.Tokens, d...)
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	return NewInputs(g, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
}
