// Package embedpipe is gtformer's embedding pipeline on Apache Beam: new
// documents, as JSON Lines shards, embedded by a trained model on any Beam
// runner (Prism in-process, Flink, Spark, Dataflow), with the numbers of
// `gtformer embed --new` on the same input.
//
// A new document's links name documents of the trained corpus or other new
// documents. The corpus comes from the model's states export
// (corpusstates, `gtformer embed --export-states`), read as a collection
// and joined on link ids, so no worker holds the corpus. The model itself
// is loaded once per worker process (DoFn Setup) and runs on batches of
// documents (many per model call, flushed at the batch size and at the end
// of a bundle, so a bundle holds at most one batch).
//
// Stages (every arrow past the first is a join on document keys):
//
//	input shards ─► parse (id, words, link names; bad lines ─► dead letters)
//	  ─► one document per id, joined with the corpus's ids: as in
//	     gtformer embed --new, a new document may not take a corpus
//	     document's id (─► dead letters, every one of that id) nor
//	     another new document's (the later ones ─► dead letters)
//	  ─► links resolved: to new documents, else to corpus ids, else unknown
//	  ─► nodes: every document with its neighbour list (sorted, capped as
//	     Model.Embed caps it; a corpus document's list gains the new
//	     documents that link to it)
//	  ─► need sets, from the new documents backwards: stage K's centres are
//	     the new documents' neighbours, stage k−1's their neighbours, ...
//	  ─► states: own-text states (stored for corpus documents, computed for
//	     new ones), then K stages of model.NestedStates, each centre
//	     reading its neighbours' states of the stage before through a join
//	  ─► embeddings (model.EmbedCached) ─► JSON Lines shards, optional
//	     .npy shards with id files, per-topic document counts
//
// The joins over per-link messages (the hop stages, the state stages and
// the embedding) run in waves of documents, split by key, one wave after
// another (Options.Waves, waves.go): Prism runs a stage as one bundle over
// its whole input and holds it several times over while it runs, so its
// peak memory then follows a wave rather than the stage. A stage sends a
// document's states only in the layers the next stage reads.
//
// K is 1 for a model that nests its neighbours (two hops, three or more
// layers: the default), else 0; each --rounds beyond the first adds one
// stage, so that a document reads one hop further through chains of
// documents, up to the L−1 hops an L-layer model can see at all (a state
// after layer l reads the neighbours' states after layer l−1 only, so
// more stages change nothing).
//
// Metrics (namespace "gtformer"): documents (embedded), unknown_links
// (dropped, and listed in the document's output line), errors (records
// sent to the dead-letter output), words_dropped (outside the vocabulary).
package embedpipe
