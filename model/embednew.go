package model

import "github.com/gtformer/gtformer/corpus"

// EmbedNew embeds new documents read against the corpus g
// (corpus.ReadNewDocs or Graph.ResolveNewDocs): g is extended by them, the
// inputs of the extended graph are derived with the model's idf and hop
// features propagated over all its links, and the new documents are
// embedded, each through its links (to known documents or to each other),
// capped at maxNbrs, in batches of batch. Rows follow nd's order. The
// command's `embed --new` and the HTTP API's POST /v1/embed both call it,
// so the two give the same numbers for the same input.
func (m *Model) EmbedNew(g *corpus.Graph, nd *corpus.NewDocs, maxNbrs, batch int) *Embeddings {
	known := g.NumDocs()
	e := g.Extend(nd)
	docs := make([]int32, 0, e.NumDocs()-known)
	for i := known; i < e.NumDocs(); i++ {
		docs = append(docs, int32(i))
	}
	nbrs := func(i int32) []int32 { return e.Neighbors(int(i)) }
	return m.Embed(m.Inputs(e, nbrs), docs, nbrs, maxNbrs, batch)
}
