package model

import (
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/features"
)

// KnownCorpus is a corpus prepared for embedding new documents against it
// (EmbedNewIn): its graph and, when the model reads hop features, every
// document's hop features propagated over the corpus's own links, computed
// once, so that each batch of new documents recomputes only the rows its
// links change.
type KnownCorpus struct {
	Graph *corpus.Graph
	hop   []float32 // (N, HopWidth) over Graph's links; nil without hop features
}

// NewKnownCorpus prepares g for EmbedNewIn: one propagation of the hop
// features over the whole corpus (linear in its documents and links).
func (m *Model) NewKnownCorpus(g *corpus.Graph) *KnownCorpus {
	k := &KnownCorpus{Graph: g}
	if m.Cfg.FeatureHops > 0 {
		k.hop = m.Inputs(g, func(d int32) []int32 { return g.Neighbors(int(d)) }).Hop
	}
	return k
}

// EmbedNew embeds new documents read against the corpus g
// (corpus.ReadNewDocs or Graph.ResolveNewDocs): EmbedNewIn on g prepared
// by NewKnownCorpus. A caller that embeds several batches against the same
// corpus (a server) prepares it once and calls EmbedNewIn.
func (m *Model) EmbedNew(g *corpus.Graph, nd *corpus.NewDocs, maxNbrs, batch int) *Embeddings {
	return m.EmbedNewIn(m.NewKnownCorpus(g), nd, maxNbrs, batch)
}

// EmbedNewIn embeds new documents read against the corpus k.Graph: the
// graph is extended by them, and the new documents are embedded, each
// through its links (to known documents or to each other), capped at
// maxNbrs, in batches of batch, with hop features propagated over all the
// extended graph's links. Links are undirected, so a new document's link
// also changes the hop features of the known documents within FeatureHops
// links of it, and the states of the known documents that read it; only
// those feature rows that the embedding reads are computed
// (features.PropagateNear from the corpus's own), equal bit for bit to a
// propagation over the whole extended graph. Rows follow nd's order. The
// command's `embed --new` and the HTTP API's POST /v1/embed both call it,
// so the two give the same numbers for the same input.
func (m *Model) EmbedNewIn(k *KnownCorpus, nd *corpus.NewDocs, maxNbrs, batch int) *Embeddings {
	g := k.Graph
	known := g.NumDocs()
	e := g.Extend(nd)
	docs := make([]int32, 0, e.NumDocs()-known)
	for i := known; i < e.NumDocs(); i++ {
		docs = append(docs, int32(i))
	}
	nbrs := func(i int32) []int32 { return e.Neighbors(int(i)) }
	in := NewInputs(e, m.IDF, m.Cfg.MaxLen, m.Cfg.Truncate)
	if m.Cfg.FeatureHops > 0 {
		local := true
		for _, l := range nd.Links {
			local = local && (int(l[0]) >= known || int(l[1]) >= known)
		}
		if !local || k.hop == nil {
			// A link between two known documents changes the corpus's
			// own features beyond what PropagateNear assumes.
			m.PropagateFeatures(in, nbrs)
		} else {
			read := m.EmbedReads(docs, nbrs, maxNbrs)
			x := in.tfidfRows()
			z0 := m.LSA.Project(features.CSR{Ptr: x.Ptr[known:], Idx: x.Idx, Val: x.Val})
			in.setHopRows(read, features.PropagateNear(k.hop, known, z0, m.LSA.Dim, m.Cfg.FeatureHops, nbrs, read), m.HopWidth())
		}
	}
	return m.Embed(in, docs, nbrs, maxNbrs, batch)
}
