package embedpipe

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpusstates"
)

// Counters, namespace "gtformer".
var (
	docsCounter         = beam.NewCounter("gtformer", "documents")
	unknownLinksCounter = beam.NewCounter("gtformer", "unknown_links")
	errorsCounter       = beam.NewCounter("gtformer", "errors")
	wordsDroppedCounter = beam.NewCounter("gtformer", "words_dropped")
	// batchDist is the documents of each model call (every model DoFn):
	// a mean far below the batch size means bundles too small to batch.
	batchDist = beam.NewDistribution("gtformer", "model_batch")
)

// readFn reads one input shard line by line (lines of any length; CRLF,
// blank lines and a byte order mark are fine): each line becomes a newDoc, its text
// tokenized into the model's vocabulary (unknown words dropped), or a
// dead letter naming the file, the line and the problem.
type readFn struct {
	States string // directory of the states export (its vocabulary)

	meta *vocabMeta
}

func (f *readFn) Setup(ctx context.Context) error {
	m, err := loadMeta(ctx, f.States)
	f.meta = m
	return err
}

func (f *readFn) ProcessElement(ctx context.Context, in inputFile, emit func(newDoc), dead func(deadLetter)) error {
	fs, err := filesystem.New(ctx, in.Path)
	if err != nil {
		dead(deadLetter{Source: in.Path, Reason: fmt.Sprintf("cannot read the file: %v", err)})
		return nil
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, in.Path)
	if err != nil {
		dead(deadLetter{Source: in.Path, Reason: fmt.Sprintf("cannot read the file: %v", err)})
		return nil
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	var line []byte
	for n := int64(1); ; n++ {
		line = line[:0]
		var rerr error
		for {
			chunk, err := br.ReadSlice('\n')
			line = append(line, chunk...)
			if err != bufio.ErrBufferFull {
				rerr = err
				break
			}
		}
		if len(line) > 0 {
			f.line(ctx, in, n, line, emit, dead)
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			// The rest of the file cannot be read: say so, once, rather
			// than fail the pipeline over one shard.
			dead(deadLetter{Source: fmt.Sprintf("%s:%d", in.Path, n+1), Reason: fmt.Sprintf("reading stopped here: %v; the lines from here on were not read", rerr)})
			return nil
		}
	}
}

// line handles line n of a shard.
func (f *readFn) line(ctx context.Context, in inputFile, n int64, line []byte, emit func(newDoc), dead func(deadLetter)) {
	line = bytes.TrimRight(line, "\r\n")
	if n == 1 {
		// A UTF-8 byte order mark (some editors write one) is not
		// content, as for every reader of the corpus package.
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	src := fmt.Sprintf("%s:%d", in.Path, n)
	if n >= 1<<lineBits {
		dead(deadLetter{Source: src, Reason: fmt.Sprintf("line beyond %d: split the file into shards", int64(1)<<lineBits-1), Record: string(line)})
		return
	}
	id, text, links, err := corpus.ParseNewDocLine(line)
	if err != nil {
		dead(deadLetter{Source: src, Reason: err.Error(), Record: string(line)})
		return
	}
	d := newDoc{Key: newKey(in.Index, n), ID: id, Source: src, Links: links}
	var dropped int64
	for _, w := range corpus.Tokenize(text) {
		if v, ok := f.meta.vocab[w]; ok {
			d.Words = append(d.Words, v)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		wordsDroppedCounter.Inc(ctx, dropped)
	}
	emit(d)
}

// keyByID keys a document by its id.
func keyByID(d newDoc) (string, newDoc) { return d.ID, d }

// ownIDFn gives every id at most one new document, as gtformer embed
// --new does (corpus.ResolveNewDocs), but per record where embed --new
// refuses the whole input at the first problem: a new document whose id
// names a corpus document (by its id, or for a folder corpus as a line
// number) is a dead letter, all of them with that id, so that a link
// naming the id names the corpus document; else the first document of an
// id (in input order: the order of the keys) is kept and the later ones
// are dead letters naming it. The reasons are embed --new's. Its input is
// the new documents and the corpus's indices grouped by id: one id's
// documents are few, so holding them is cheap.
type ownIDFn struct {
	LineNumberIDs bool
	Docs          int64 // documents of the corpus
}

func (f *ownIDFn) ProcessElement(id string, docs func(*newDoc) bool, index func(*int64) bool, emit func(newDoc), dead func(deadLetter)) {
	var all []newDoc
	var d newDoc
	for docs(&d) {
		all = append(all, d)
	}
	if len(all) == 0 {
		return // a corpus id no new document takes
	}
	slices.SortFunc(all, func(a, b newDoc) int { return cmp.Compare(a.Key, b.Key) })
	var clash error
	if f.LineNumberIDs {
		if k, ok := corpus.LineNumberID(id, int(f.Docs)); ok {
			clash = corpus.KnownIDError(id, k, true)
		}
	} else {
		var k int64
		if index(&k) {
			clash = corpus.KnownIDError(id, int(k), false)
		}
	}
	if clash != nil {
		for _, o := range all {
			dead(deadLetter{Source: o.Source, ID: id, Reason: clash.Error() + "; not embedded"})
		}
		return
	}
	emit(all[0])
	for _, o := range all[1:] {
		dead(deadLetter{Source: o.Source, ID: id, Reason: fmt.Sprintf("duplicate id %q (first at %s); not embedded", id, all[0].Source)})
	}
}

// parseStatesFn reads the states export's lines into corpus documents;
// a line that does not parse is a dead letter (the export is damaged or
// from another version).
type parseStatesFn struct {
	States string
	// NoStates drops the stored states (a model with hop features encodes
	// every state afresh), so that they do not ride through the joins.
	NoStates bool

	meta *vocabMeta
}

func (f *parseStatesFn) Setup(ctx context.Context) error {
	m, err := loadMeta(ctx, f.States)
	f.meta = m
	return err
}

func (f *parseStatesFn) ProcessElement(line string, emit func(int64, corpusDoc), dead func(deadLetter)) {
	if len(bytes.TrimSpace([]byte(line))) == 0 {
		return
	}
	r, err := corpusstates.ParseRecord([]byte(line), f.meta.Meta)
	if err != nil {
		// textio gives no line numbers: the record itself says which.
		dead(deadLetter{Source: joinPath(f.States, corpusstates.RecordsFile), Reason: err.Error(), Record: line})
		return
	}
	links := make([]int64, len(r.Links))
	for i, l := range r.Links {
		links[i] = int64(l)
	}
	c := corpusDoc{Index: int64(r.Index), ID: r.ID, Words: r.Words, Links: links, States: r.States}
	if f.NoStates {
		c.States = nil
	}
	emit(int64(r.Index), c)
}
