package embedpipe

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/gtformer/gtformer/model"
)

// Output file names inside the output directory.
const (
	EmbeddingsPrefix  = "embeddings"
	DeadLettersPrefix = "deadletters"
	TopicCountsFile   = "topic_counts.json"
)

// ShardName is the name of shard i of n of a sharded output.
func ShardName(prefix string, i, n int, ext string) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, ext)
}

// outLine is one line of the embeddings' JSON Lines.
type outLine struct {
	ID           string              `json:"id"`
	Source       string              `json:"source"`
	Embedding    []float32           `json:"embedding"`
	Topics       []model.TopicWeight `json:"topics"`
	Path         []int32             `json:"path"`
	UnknownLinks []string            `json:"unknown_links,omitempty"`
}

// shardOf spreads ids over n shards.
func shardOf(id string, n int) int64 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int64(h.Sum32() % uint32(n))
}

// lineOf is a result's JSON line, without the newline.
func lineOf(r result) ([]byte, error) {
	l := outLine{ID: r.ID, Source: r.Source, Embedding: r.Point, Path: r.Path, UnknownLinks: r.Unknown}
	for i, t := range r.TopIDs {
		l.Topics = append(l.Topics, model.TopicWeight{Topic: int(t), Weight: r.TopWeights[i]})
	}
	return json.Marshal(l)
}

// formatDeadFn writes a dead letter as a JSON line, keyed by its shard,
// and counts it.
type formatDeadFn struct {
	Shards int
}

func (f *formatDeadFn) ProcessElement(ctx context.Context, d deadLetter) (int64, string, error) {
	errorsCounter.Inc(ctx, 1)
	b, err := json.Marshal(d)
	return shardOf(d.Source, f.Shards), string(b), err
}

// shardIndex keys a shard number by itself, so that every shard file is
// written, empty ones too.
func shardIndex(i int64) (int64, int64) { return i, i }

// tmpSuffix names a temporary file beside an output: unique per attempt,
// so that a retried bundle never writes into another attempt's file.
func tmpSuffix() string {
	var salt [6]byte
	rand.Read(salt[:])
	return ".tmp-" + hex.EncodeToString(salt[:])
}

// publish writes a file through Beam's filesystem layer so that it is
// never seen half-written: into a temporary name beside it, then renamed
// over it. A retried bundle rewrites it whole. Its errors read
// "embedpipe: PATH: PROBLEM"; write's errors are the problem alone.
func publish(ctx context.Context, path string, write func(w io.Writer) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("embedpipe: %w", err)
	}
	defer fs.Close()
	tmp := path + tmpSuffix()
	wc, err := fs.OpenWrite(ctx, tmp)
	if err != nil {
		return fmt.Errorf("embedpipe: %s: %w", tmp, err)
	}
	bw := bufio.NewWriterSize(wc, 1<<20)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if cerr := wc.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		if rm, ok := fs.(filesystem.Remover); ok {
			rm.Remove(ctx, tmp)
		}
		return fmt.Errorf("embedpipe: %s: %w", path, werr)
	}
	if err := filesystem.Rename(ctx, fs, tmp, path); err != nil {
		return fmt.Errorf("embedpipe: %s: %w", path, err)
	}
	return nil
}

// writeLinesFn writes shard i's lines to prefix-i-of-n.jsonl.
type writeLinesFn struct {
	Dir, Prefix string
	Shards      int
}

func (f *writeLinesFn) ProcessElement(ctx context.Context, shard int64, _ func(*int64) bool, lines func(*string) bool) error {
	path := joinPath(f.Dir, ShardName(f.Prefix, int(shard), f.Shards, ".jsonl"))
	return publish(ctx, path, func(w io.Writer) error {
		var s string
		for lines(&s) {
			if _, err := io.WriteString(w, s); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// topicHits emits (topic·2, 1) for a document's top topic and
// (topic·2+1, 1) for every topic on its path.
func topicHits(r result, emit func(int64, int64)) {
	if len(r.TopIDs) > 0 {
		emit(int64(r.TopIDs[0])*2, 1)
	}
	for _, t := range r.Path {
		emit(int64(t)*2+1, 1)
	}
}

// sumInt64 adds counts.
func sumInt64(a, b int64) int64 { return a + b }

// topicCount is one topic's line of topic_counts.json.
type topicCount struct {
	Topic  int   `json:"topic"`
	Parent int   `json:"parent"`
	Level  int   `json:"level"`
	Top    int64 `json:"top_documents"`  // documents whose largest θ is this topic
	OnPath int64 `json:"path_documents"` // documents whose path passes through it
}

// pairOf wraps a (key, count) for the fixed-key gather.
type pairOf struct {
	Key, Count int64
}

func toPair(k, v int64) (int64, pairOf) { return 0, pairOf{Key: k, Count: v} }

// writeCountsFn writes topic_counts.json: every topic of the model's tree
// in its breadth-first order, with both counts (zero included).
type writeCountsFn struct {
	Model, Dir string
}

func (f *writeCountsFn) ProcessElement(ctx context.Context, _ int64, _ func(*int64) bool, pairs func(*pairOf) bool) error {
	m, err := loadModel(ctx, f.Model)
	if err != nil {
		return err
	}
	tree := m.Topics.Tree
	tab := m.Topics.Tables()
	counts := make([]topicCount, tab.T)
	for r := range counts {
		id := tab.ID[r]
		counts[r] = topicCount{Topic: id, Parent: tree.Parent(id), Level: tree.Level(id)}
	}
	var total int64
	var p pairOf
	for pairs(&p) {
		id := int(p.Key / 2)
		if !tree.Has(id) {
			return fmt.Errorf("embedpipe: topic counts: topic %d is not in the model's tree", id)
		}
		if p.Key%2 == 0 {
			counts[tree.Row(id)].Top += p.Count
			total += p.Count
		} else {
			counts[tree.Row(id)].OnPath += p.Count
		}
	}
	return publish(ctx, joinPath(f.Dir, TopicCountsFile), func(w io.Writer) error {
		b, err := json.MarshalIndent(struct {
			Documents int64        `json:"documents"`
			Topics    []topicCount `json:"topics"`
		}{total, counts}, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}
