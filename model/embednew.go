package model

import (
	"slices"

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
// links of it, and the states of the known documents that read it. Rows
// follow nd's order. The command's `embed --new` and the HTTP API's POST
// /v1/embed both call it, so the two give the same numbers for the same
// input.
//
// When every link has a new end (as links read with the new documents
// do), the work grows with what the new documents reach, not with the
// corpus (embedLocal): only the documents the embedding reads get inputs,
// hop features (features.PropagateNear from the corpus's own), caches and
// neighbour lists, renumbered in the order of their ids, and the numbers
// are those of embedding over the whole extended graph, bit for bit. A
// link between two known documents changes the corpus's own features and
// neighbour lists: then the whole extended graph is derived again.
func (m *Model) EmbedNewIn(k *KnownCorpus, nd *corpus.NewDocs, maxNbrs, batch int) *Embeddings {
	if nbrs, ok := k.Graph.ExtendedNeighbors(nd); ok && (m.Cfg.FeatureHops == 0 || k.hop != nil) {
		return m.embedLocal(k, nd, nbrs, maxNbrs, batch)
	}
	g := k.Graph
	e := g.Extend(nd)
	docs := make([]int32, 0, e.NumDocs()-g.NumDocs())
	for i := g.NumDocs(); i < e.NumDocs(); i++ {
		docs = append(docs, int32(i))
	}
	nbrs := func(i int32) []int32 { return e.Neighbors(int(i)) }
	return m.Embed(m.Inputs(e, nbrs), docs, nbrs, maxNbrs, batch)
}

// embedLocal is EmbedNewIn over the documents the embedding reads
// (EmbedReads of the new documents under nbrs, the extended graph's
// lists), renumbered 0..R-1 in the order of their ids, so that every set,
// batch and neighbour slot comes in the order it would over the whole
// graph. Their inputs come from their words (DocInputs: a document's rows
// depend on its own words only), their hop features from PropagateNear,
// and each one's neighbour list is its capped list renumbered; the
// documents that only the own-text pass encodes (the last set) are never
// asked for theirs.
func (m *Model) embedLocal(k *KnownCorpus, nd *corpus.NewDocs, nbrs func(d int32) []int32, maxNbrs, batch int) *Embeddings {
	known := k.Graph.NumDocs()
	docs := make([]int32, len(nd.Tokens))
	for i := range docs {
		docs[i] = int32(known + i)
	}
	read := m.EmbedReads(docs, nbrs, maxNbrs) // sorted: the new documents last
	words := make([][]int32, len(read))
	for i, d := range read {
		if int(d) < known {
			words[i] = k.Graph.Doc(int(d))
		} else {
			words[i] = nd.Tokens[int(d)-known]
		}
	}
	in := m.DocInputs(words)
	if m.Cfg.FeatureHops > 0 {
		x := in.tfidfRows()
		z0 := m.LSA.Project(features.CSR{Ptr: x.Ptr[len(read)-len(docs):], Idx: x.Idx, Val: x.Val})
		in.Hop = features.PropagateNear(k.hop, known, z0, m.LSA.Dim, m.Cfg.FeatureHops, nbrs, read)
		in.HopWidth = m.HopWidth()
	}
	reads := m.Cfg.Layers > 1 && !m.Cfg.NoGraph
	lists := make(map[int32][]int32)
	localNbrs := func(i int32) []int32 {
		if !reads {
			return nil // the model reads no neighbours: their slots are never used
		}
		if l, ok := lists[i]; ok {
			return l
		}
		l := CapList(nbrs(read[i]), maxNbrs)
		out := make([]int32, len(l))
		for j, d := range l {
			r, found := slices.BinarySearch(read, d)
			if !found {
				panic("model: embedLocal: a neighbour list asked for outside the documents the embedding reads")
			}
			out[j] = int32(r)
		}
		lists[i] = out
		return out
	}
	centres := make([]int32, len(docs))
	for i := range centres {
		centres[i] = int32(len(read) - len(docs) + i)
	}
	return m.Embed(in, centres, localNbrs, maxNbrs, batch)
}
