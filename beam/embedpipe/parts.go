package embedpipe

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/gtformer/gtformer/npy"
)

// The embeddings are written in parts: each bundle of the embedding
// stage (on Prism, each wave) streams its results into part files, one
// set per shard it has results for, and names them; a last step joins
// each shard's parts into its files. A grouping of the results by shard
// would hold every document's output until the last wave, and Prism would
// then send each shard's whole output through one bundle, copied several
// times over: the largest stage at the end of a run.

// partSuffix ends the name of a part file: name.partSuffix-<random>.
const partSuffix = ".part"

// shardPart names the part files a bundle wrote for one shard: its JSON
// Lines and, with .npy output, its raw float32 rows and their ids, Rows
// rows.
type shardPart struct {
	Lines, Points, IDs string
	Rows               int64
}

// partWriter is an open part file.
type partWriter struct {
	path string
	wc   io.WriteCloser
	bw   *bufio.Writer
}

func (p *partWriter) close() error {
	err := p.bw.Flush()
	if cerr := p.wc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("embedpipe: %s: %w", p.path, err)
	}
	return nil
}

// shardWriters are the part files of one shard in a bundle.
type shardWriters struct {
	lines, points, ids *partWriter
	rows               int64
}

// writePartsFn streams a bundle's results into part files beside the
// shards they belong to (shardOf their ids), and emits (shard, its part)
// at the bundle's end.
type writePartsFn struct {
	Dir, Prefix string
	Shards      int
	NPY         bool
	Width       int // n+1: a row's floats

	fs     filesystem.Interface
	open   map[int64]*shardWriters
	rowBuf []byte
}

func (f *writePartsFn) StartBundle(ctx context.Context, _ func(int64, shardPart)) error {
	fs, err := filesystem.New(ctx, f.Dir)
	if err != nil {
		return err
	}
	f.fs, f.open = fs, map[int64]*shardWriters{}
	return nil
}

func (f *writePartsFn) create(ctx context.Context, shard int64, ext string) (*partWriter, error) {
	path := joinPath(f.Dir, ShardName(f.Prefix, int(shard), f.Shards, ext)) + partSuffix + tmpSuffix()
	wc, err := f.fs.OpenWrite(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("embedpipe: %s: %w", path, err)
	}
	return &partWriter{path: path, wc: wc, bw: bufio.NewWriterSize(wc, 1<<16)}, nil
}

func (f *writePartsFn) ProcessElement(ctx context.Context, r result, _ func(int64, shardPart)) error {
	shard := shardOf(r.ID, f.Shards)
	w := f.open[shard]
	if w == nil {
		w = &shardWriters{}
		var err error
		if w.lines, err = f.create(ctx, shard, ".jsonl"); err != nil {
			return err
		}
		f.open[shard] = w // closed at the bundle's end, from here on
		if f.NPY {
			if w.points, err = f.create(ctx, shard, ".npy"); err != nil {
				return err
			}
			if w.ids, err = f.create(ctx, shard, ".ids.jsonl"); err != nil {
				return err
			}
		}
	}
	line, err := lineOf(r)
	if err != nil {
		return err
	}
	w.lines.bw.Write(append(line, '\n'))
	if f.NPY {
		if len(r.Point) != f.Width {
			return fmt.Errorf("embedpipe: row of %q has %d values, want %d", r.ID, len(r.Point), f.Width)
		}
		f.rowBuf = f.rowBuf[:0]
		for _, v := range r.Point {
			f.rowBuf = binary.LittleEndian.AppendUint32(f.rowBuf, math.Float32bits(v))
		}
		w.points.bw.Write(f.rowBuf)
		id, err := json.Marshal(r.ID)
		if err != nil {
			return err
		}
		w.ids.bw.Write(append(id, '\n'))
	}
	w.rows++
	return nil
}

func (f *writePartsFn) FinishBundle(ctx context.Context, emit func(int64, shardPart)) error {
	defer f.fs.Close()
	shards := make([]int64, 0, len(f.open))
	for s := range f.open {
		shards = append(shards, s)
	}
	slices.Sort(shards)
	var first error
	for _, s := range shards {
		w := f.open[s]
		p := shardPart{Rows: w.rows}
		for _, pw := range []*partWriter{w.lines, w.points, w.ids} {
			if pw == nil {
				continue
			}
			if err := pw.close(); err != nil && first == nil {
				first = err
			}
		}
		p.Lines = w.lines.path
		if w.points != nil {
			p.Points, p.IDs = w.points.path, w.ids.path
		}
		emit(s, p)
	}
	f.open = nil
	return first
}

// writeShardFn joins shard i's parts into prefix-i-of-n.jsonl and, with
// .npy output, prefix-i-of-n.npy (float32 (rows, n+1), its header written
// first: the row count is the parts' sum) beside prefix-i-of-n.ids.jsonl
// (one JSON string a line, the rows' ids in the same order); then removes
// the shard's part files, those of retried bundles too. Every shard is
// written, empty ones too.
type writeShardFn struct {
	Dir, Prefix string
	Shards      int
	NPY         bool
	Width       int
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int64, _ func(*int64) bool, parts func(*shardPart) bool) error {
	base := joinPath(f.Dir, ShardName(f.Prefix, int(shard), f.Shards, ""))
	fs, err := filesystem.New(ctx, base)
	if err != nil {
		return err
	}
	defer fs.Close()
	var ps []shardPart
	var p shardPart
	rows := int64(0)
	for parts(&p) {
		ps = append(ps, p)
		rows += p.Rows
	}
	// The parts' order is the runner's; sorting makes a shard's files
	// the same for the same parts.
	slices.SortFunc(ps, func(a, b shardPart) int { return cmp.Compare(a.Lines, b.Lines) })
	concat := func(w io.Writer, paths func(shardPart) string) error {
		for _, p := range ps {
			r, err := fs.OpenRead(ctx, paths(p))
			if err != nil {
				return err
			}
			_, err = io.Copy(w, r)
			r.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", paths(p), err)
			}
		}
		return nil
	}
	if err := publish(ctx, base+".jsonl", func(w io.Writer) error {
		return concat(w, func(p shardPart) string { return p.Lines })
	}); err != nil {
		return err
	}
	if f.NPY {
		if err := publish(ctx, base+".ids.jsonl", func(w io.Writer) error {
			return concat(w, func(p shardPart) string { return p.IDs })
		}); err != nil {
			return err
		}
		if err := publish(ctx, base+".npy", func(w io.Writer) error {
			if err := npy.WriteHeader[float32](w, []int{int(rows), f.Width}); err != nil {
				return err
			}
			cw := &countWriter{w: w}
			if err := concat(cw, func(p shardPart) string { return p.Points }); err != nil {
				return err
			}
			if cw.n != rows*int64(f.Width)*4 {
				return fmt.Errorf("the parts hold %d bytes of rows, want %d", cw.n, rows*int64(f.Width)*4)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// Every part file of this shard: the ones joined, and any a retried
	// bundle left behind.
	if rm, ok := fs.(filesystem.Remover); ok {
		left, err := fs.List(ctx, base+"*"+partSuffix+".tmp-*")
		if err != nil {
			return err
		}
		for _, path := range left {
			if err := rm.Remove(ctx, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
