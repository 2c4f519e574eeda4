package embedpipe

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/gtformer/gtformer/corpusstates"
	"github.com/gtformer/gtformer/model"
)

// Options configure the pipeline. Paths are anything Beam's filesystems
// read (a local path, gs://..., and whatever schemes are registered).
type Options struct {
	Input  string // file pattern of the JSON Lines shards of new documents
	Model  string // model directory (gtformer train --out)
	States string // directory of the corpus states export; empty: Model
	Out    string // output directory

	Rounds     int // neighbour rounds; 1 is what gtformer embed --new does
	MaxNbrs    int // neighbours a document aggregates at most (embed --max-nbrs)
	Batch      int // documents per model call
	Shards     int // shards of the embeddings' outputs
	DeadShards int // shards of the dead letters
	TopK       int // top topics listed per document
	NPY        bool
	// Waves splits the joins over per-link messages (hop features,
	// states) by document key into this many waves, run one after
	// another (waves.go): on Prism, which holds a stage's whole input in
	// memory while it runs, the peak memory follows a wave, not the
	// stage. 1 to 16; 1 on a runner that spills to disk.
	Waves int
}

// Defaults are the command's defaults (MaxNbrs and Batch as in gtformer
// embed).
func Defaults() Options {
	return Options{Rounds: 1, MaxNbrs: 64, Batch: 128, Shards: 4, DeadShards: 1, TopK: 5, Waves: 8}
}

// Plan is what the launcher checked before building the pipeline.
type Plan struct {
	Options
	Files []string // the input shards, sorted: the order documents are numbered in
	// StateLayers and Width shape a document's states: StateLayers ×
	// Width floats (no states when StateLayers is 0).
	StateLayers, Width int
	// Stages is the number of neighbour-state stages; RoundsUsed the rounds
	// that change anything for this model (Rounds, or fewer).
	Stages, RoundsUsed int
	// The corpus, from the states export: its size and whether its
	// documents are named by line number (a folder corpus).
	CorpusDocs    int64
	LineNumberIDs bool
	// Hop features (hop.go): FeatureHops hops of HopDim floats each,
	// HopWidth = (FeatureHops+1)·HopDim per document; 0 without.
	FeatureHops, HopDim, HopWidth int
}

// Prepare checks the options against the files before a job starts, so
// that a wrong path or a stale export is a clear error here rather than a
// failed job: the input must match files, the model must load, the states
// export must belong to its weights, and the output must hold none of the
// pipeline's files.
func Prepare(ctx context.Context, o Options) (*Plan, error) {
	switch {
	case o.Input == "" || o.Model == "" || o.Out == "":
		return nil, errors.New("embedpipe: the input pattern, the model directory and the output directory are required")
	case o.Rounds < 1 || o.MaxNbrs < 1 || o.Batch < 1 || o.Shards < 1 || o.DeadShards < 1 || o.TopK < 1:
		return nil, fmt.Errorf("embedpipe: rounds, max neighbours, batch, shards, dead-letter shards and top topics must be positive, got %d, %d, %d, %d, %d, %d",
			o.Rounds, o.MaxNbrs, o.Batch, o.Shards, o.DeadShards, o.TopK)
	case o.Waves < 1 || o.Waves > maxWaves:
		return nil, fmt.Errorf("embedpipe: waves must be 1 to %d, got %d", maxWaves, o.Waves)
	}
	if o.States == "" {
		o.States = o.Model
	}
	p := &Plan{Options: o}
	files, err := list(ctx, o.Input)
	if err != nil {
		return nil, fmt.Errorf("embedpipe: input %s: %w", o.Input, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("embedpipe: input %s: no file matches", o.Input)
	}
	if int64(len(files)) >= fileLimit {
		return nil, fmt.Errorf("embedpipe: input %s: %d files, at most %d", o.Input, len(files), fileLimit-1)
	}
	p.Files = files

	m, err := loadModel(ctx, o.Model)
	if err != nil {
		return nil, err
	}
	p.FeatureHops, p.HopWidth = m.Cfg.FeatureHops, m.HopWidth()
	if p.FeatureHops > 0 {
		if p.HopWidth == 0 {
			return nil, fmt.Errorf("embedpipe: %s: the model reads hop features and its weights carry no basis for them", o.Model)
		}
		p.HopDim = p.HopWidth / (p.FeatureHops + 1)
	}
	meta, err := loadMeta(ctx, o.States)
	if err != nil {
		return nil, err
	}
	metaPath := joinPath(o.States, corpusstates.MetaFile)
	p.StateLayers, p.Width = corpusstates.StateLayers(m), m.Cfg.Width
	p.CorpusDocs, p.LineNumberIDs = int64(meta.Docs), meta.LineNumberIDs
	if len(meta.Vocab) != m.Cfg.Vocab || meta.Width != p.Width || meta.Layers != p.StateLayers {
		return nil, fmt.Errorf("embedpipe: %s: %d words, %d layers of width %d; the model has %d words, %d layers of width %d",
			metaPath, len(meta.Vocab), meta.Layers, meta.Width, m.Cfg.Vocab, p.StateLayers, p.Width)
	}
	sum, err := sha256Of(ctx, joinPath(o.Model, model.WeightsFile))
	if err != nil {
		return nil, err
	}
	if sum != meta.WeightsSHA256 {
		return nil, fmt.Errorf("embedpipe: %s: the states were computed with other weights than %s holds: export them again (gtformer embed --model %s --data PATH --export-states DIR)",
			metaPath, joinPath(o.Model, model.WeightsFile), o.Model)
	}

	if p.StateLayers > 0 {
		base := 0
		if m.Cfg.NestedNeighbors() {
			base = 1
		}
		p.Stages = min(base+o.Rounds-1, m.Cfg.Layers-2)
		p.RoundsUsed = p.Stages - base + 1
	} else {
		p.RoundsUsed = 1
	}

	for _, pattern := range []string{EmbeddingsPrefix + "-*", DeadLettersPrefix + "-*", TopicCountsFile} {
		found, err := list(ctx, joinPath(o.Out, pattern))
		if err != nil {
			return nil, fmt.Errorf("embedpipe: output %s: %w", o.Out, err)
		}
		if len(found) > 0 {
			return nil, fmt.Errorf("embedpipe: output %s already holds %s: give an empty output directory, or remove them", o.Out, found[0])
		}
	}
	return p, nil
}

// list expands a pattern through Beam's filesystem layer, sorted.
func list(ctx context.Context, pattern string) ([]string, error) {
	fs, err := filesystem.New(ctx, pattern)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	files, err := fs.List(ctx, pattern)
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// sha256Of hashes a model's weights file through Beam's filesystem layer.
func sha256Of(ctx context.Context, path string) (string, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return "", fmt.Errorf("embedpipe: %w", err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return "", fmt.Errorf("embedpipe: %w", err)
	}
	defer r.Close()
	sum, err := model.WeightsSHA256(r)
	if err != nil {
		return "", fmt.Errorf("embedpipe: %s: %w", path, err)
	}
	return sum, nil
}

// Outputs are the pipeline's main collections, for callers that build on
// them (the files are written either way).
type Outputs struct {
	Results     []beam.PCollection // result, one collection per wave
	DeadLetters beam.PCollection   // deadLetter
}

// Build adds the pipeline to s.
func Build(s beam.Scope, p *Plan) Outputs {
	s = s.Scope("gtformer.embed")
	files := make([]inputFile, len(p.Files))
	for i, f := range p.Files {
		files[i] = inputFile{Path: f, Index: int64(i)}
	}
	var dead []beam.PCollection

	// Parse, then one document per id that names no corpus document.
	docs, bad := beam.ParDo2(s, &readFn{States: p.States}, beam.CreateList(s, files))
	dead = append(dead, bad)
	recs, badRecs := beam.ParDo2(s, &parseStatesFn{States: p.States, NoStates: p.HopWidth > 0}, textio.Read(s, joinPath(p.States, corpusstates.RecordsFile)))
	dead = append(dead, badRecs)
	corpusIDs := beam.ParDo(s, corpusID, recs)
	kept, refused := beam.ParDo2(s, &ownIDFn{LineNumberIDs: p.LineNumberIDs, Docs: p.CorpusDocs},
		beam.CoGroupByKey(s, beam.ParDo(s, keyByID, docs), corpusIDs))
	dead = append(dead, refused)

	// Links: to new documents first, then to corpus ids.
	edgesNew, pending := beam.ParDo2(s, &resolveNewFn{LineNumberIDs: p.LineNumberIDs, Docs: p.CorpusDocs},
		beam.CoGroupByKey(s, beam.ParDo(s, linkNames, kept), beam.ParDo(s, idIndex, kept)))
	edgesKnown, unknown := beam.ParDo2(s, resolveKnown, beam.CoGroupByKey(s, pending, corpusIDs))

	// Every document with its neighbour list.
	nodes, orphans := beam.ParDo2(s, &nodeFn{MaxNbrs: p.MaxNbrs, Links: p.HopWidth > 0},
		beam.CoGroupByKey(s, recs, beam.ParDo(s, docByKey, kept), beam.Flatten(s, edgesNew, edgesKnown), unknown))
	dead = append(dead, orphans)
	newNodes := beam.ParDo(s, isNewNode, nodes)

	// Backwards: which documents' states each stage needs, each with the
	// centres of the next stage that read them (Targets), to which its
	// states are sent.
	K := p.Stages
	need := make([]beam.PCollection, K+1)
	encoded := []beam.PCollection{newNodes}
	if p.StateLayers > 0 {
		reqs := beam.ParDo(s, requestsOf, newNodes)
		for k := K; k >= 0; k-- {
			need[k] = beam.ParDo(s, neededBy, beam.CoGroupByKey(s, reqs, nodes))
			if k >= 1 {
				reqs = beam.ParDo(s, requestsOf, need[k])
			}
		}
		encoded = append(encoded, need...)
	}
	// With hop features, every document the model encodes gets its own:
	// by a join of its own (withHop), or in the join that assembles a
	// centre's neighbours' states (assemble).
	// withHop gives the documents of c their hop features (c and hop
	// split alike into waves).
	withHop := func(c, hop beam.PCollection) beam.PCollection { return c }
	var hop waved // keyed by its own documents: byKey
	if p.HopWidth > 0 {
		hop = hopFeatures(s, p, nodes, encoded, &dead)
		withHop = func(c, hop beam.PCollection) beam.PCollection {
			out, lost := beam.ParDo2(s, &withHopFn{Width: p.HopWidth}, beam.CoGroupByKey(s, c, hop))
			dead = append(dead, lost)
			return out
		}
	}
	// assemble joins centres with the states of stage k (0: own text)
	// sent to them, msgs, and gives them their hop features (one wave's
	// parts of each: parts[0] the centres, parts[1] the states, parts[2]
	// the hop features).
	joinIns := func(centres, msgs waved) []waved {
		if p.HopWidth > 0 {
			return []waved{centres, msgs, hop}
		}
		return []waved{centres, msgs}
	}
	assemble := func(parts []beam.PCollection, k int) beam.PCollection {
		w := sendLayers(k, K, p.StateLayers) * p.Width
		var cs, lost beam.PCollection
		if p.HopWidth > 0 {
			cs, lost = beam.ParDo2(s, &assembleHopFn{Width: w, HopWidth: p.HopWidth}, beam.CoGroupByKey(s, parts[0], parts[2], parts[1]))
		} else {
			cs, lost = beam.ParDo2(s, &assembleFn{Width: w}, beam.CoGroupByKey(s, parts[0], parts[1]))
		}
		dead = append(dead, lost)
		return cs
	}
	one := func(c beam.PCollection) []beam.PCollection { return []beam.PCollection{c} }

	var results waved // of result, in the embedding's waves
	embed := &embedFn{Model: p.Model, Batch: p.Batch, MaxNbrs: p.MaxNbrs, TopK: p.TopK}
	if p.StateLayers == 0 {
		ins := []waved{whole(newNodes)}
		if p.HopWidth > 0 {
			ins = append(ins, hop)
		}
		results = inWaves(s, p.Waves, ins, func(parts []beam.PCollection) []beam.PCollection {
			c := parts[0]
			if p.HopWidth > 0 {
				c = withHop(c, parts[1])
			}
			return one(beam.ParDo(s, embed, beam.ParDo(s, withoutStates, c)))
		})[0]
	} else {
		// Forwards: own-text states (stored for corpus documents unless
		// hop features make them stale, else computed), then K stages of
		// nested states; each stage sends a document's states straight to
		// the centres of the next that read them (msgs).
		// A stage sends only the layers of its states that the next
		// reads (sendLayers).
		own := &ownStatesFn{Model: p.Model, Batch: p.Batch, Send: sendLayers(0, K, p.StateLayers)}
		ins := []waved{whole(need[0])}
		if p.HopWidth > 0 {
			ins = append(ins, hop)
		}
		// msgs are outboxes, one per sending document, that each wave of
		// the next join fans out to its own centres (waves.go).
		msgs := outboxes(inWaves(s, p.Waves, ins, func(parts []beam.PCollection) []beam.PCollection {
			if p.HopWidth > 0 {
				return one(beam.ParDo(s, own, beam.ParDo(s, dropKey, withHop(parts[0], parts[1]))))
			}
			stored, encode := beam.ParDo2(s, &splitStatesFn{Send: own.Send * p.Width}, parts[0])
			return []beam.PCollection{beam.ParDo(s, own, encode), stored}
		})...)
		for k := 1; k <= K; k++ {
			nested := &nestedFn{Model: p.Model, Batch: p.Batch, MaxNbrs: p.MaxNbrs, Send: sendLayers(k, K, p.StateLayers)}
			msgs = outboxes(inWaves(s, p.Waves, joinIns(whole(need[k]), msgs), func(parts []beam.PCollection) []beam.PCollection {
				return one(beam.ParDo(s, nested, assemble(parts, k-1)))
			})[0])
		}
		results = inWaves(s, p.Waves, joinIns(whole(newNodes), msgs), func(parts []beam.PCollection) []beam.PCollection {
			return one(beam.ParDo(s, embed, assemble(parts, K)))
		})[0]
	}

	// Outputs. Each wave's results go into part files where they are
	// made (writePartsFn, fused into the wave: no stage holds them all),
	// and a shard's parts are joined at the end (writeShardFn).
	var partCols, hits []beam.PCollection
	for _, r := range results.parts {
		partCols = append(partCols, beam.ParDo(s, &writePartsFn{Dir: p.Out, Prefix: EmbeddingsPrefix, Shards: p.Shards, NPY: p.NPY, Width: p.Width + 1}, r))
		hits = append(hits, beam.ParDo(s, topicHits, r))
	}
	shards := beam.ParDo(s, shardIndex, beam.CreateList(s, upTo(p.Shards)))
	beam.ParDo0(s, &writeShardFn{Dir: p.Out, Prefix: EmbeddingsPrefix, Shards: p.Shards, NPY: p.NPY, Width: p.Width + 1},
		beam.CoGroupByKey(s, shards, waved{parts: partCols}.flat(s)))
	sums := beam.CombinePerKey(s, sumInt64, waved{parts: hits}.flat(s))
	beam.ParDo0(s, &writeCountsFn{Model: p.Model, Dir: p.Out},
		beam.CoGroupByKey(s, beam.ParDo(s, shardIndex, beam.CreateList(s, upTo(1))), beam.ParDo(s, toPair, sums)))
	allDead := beam.Flatten(s, dead...)
	deadShards := beam.ParDo(s, shardIndex, beam.CreateList(s, upTo(p.DeadShards)))
	beam.ParDo0(s, &writeLinesFn{Dir: p.Out, Prefix: DeadLettersPrefix, Shards: p.DeadShards},
		beam.CoGroupByKey(s, deadShards, beam.ParDo(s, &formatDeadFn{Shards: p.DeadShards}, allDead)))
	return Outputs{Results: results.parts, DeadLetters: allDead}
}

// upTo returns 0..n-1.
func upTo(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// withoutStates makes a centre of a node for a model that reads no
// neighbours.
func withoutStates(_ int64, n node) centre { return centre{Node: n} }
