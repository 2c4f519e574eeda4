package embedpipe_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/gtformer/gtformer/beam/embedpipe"
	"github.com/gtformer/gtformer/beam/internal/repo"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpusstates"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
)

// The tests run every pipeline on Prism, in this process.
func TestMain(m *testing.M) {
	code := ptest.MainRet(m)
	if fix.dir != "" && os.Getenv(keepEnv) == "" {
		os.RemoveAll(fix.dir)
	}
	os.Exit(code)
}

// keepEnv names a directory in which the fixture is built and kept, and
// reused by the next run when complete: training is most of the tests'
// time, so this speeds up working on the pipeline. Unset (as in CI), each
// run trains afresh in a temporary directory.
const keepEnv = "GTFORMER_BEAM_TEST_KEEP"

// fixture is a small model trained on ML by the gtformer command, with its
// corpus states exported, built once for all tests.
type fixture struct {
	dir    string // temporary root
	bin    string // the gtformer command
	ml     string // the dataset
	model  string // the trained model: 3 layers, two hops (the default)
	model1 string // the same weights read with one hop
	err    error
}

var (
	fix     fixture
	fixOnce sync.Once
)

// maxNbrs is small so that capping is exercised: several new documents
// link to more corpus documents than this, and corpus document 0 is linked
// by half the new documents.
const maxNbrs = 4

func mlFixture(t *testing.T) *fixture {
	t.Helper()
	ml := repo.Shared(t, "data/ml") // skips or fails before any work
	fixOnce.Do(func() { fix.err = fix.build(ml) })
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return &fix
}

func (f *fixture) build(ml string) error {
	var err error
	f.ml = ml
	if keep := os.Getenv(keepEnv); keep != "" {
		f.dir, f.bin = keep, filepath.Join(keep, "gtformer")
		f.model, f.model1 = filepath.Join(keep, "model"), filepath.Join(keep, "model1")
		if _, err := os.Stat(filepath.Join(f.model1, corpusstates.RecordsFile)); err == nil {
			return nil
		}
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return err
		}
	} else if f.dir, err = os.MkdirTemp("", "gtformer-beam-test-"); err != nil {
		return err
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	f.bin = filepath.Join(f.dir, "gtformer")
	if out, err := exec.Command(goCmd, "build", "-C", root, "-o", f.bin, "./cmd/gtformer").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/gtformer: %v\n%s", err, out)
	}
	f.model = filepath.Join(f.dir, "model")
	// Tiny and one epoch: the test is about equal numbers, not good ones.
	if _, err := f.run("train", "--data", ml, "--out", f.model, "--width", "16", "--heads", "2", "--mlp", "32",
		"--epochs", "1", "--topic-warmup", "10", "--topic-refit", "0", "--max-len", "32", "--quiet", "--seed", "1"); err != nil {
		return err
	}
	if _, err := f.run("embed", "--model", f.model, "--data", ml, "--export-states", f.model); err != nil {
		return err
	}
	f.model1 = filepath.Join(f.dir, "model1")
	return copyModel(f.model, f.model1, 1)
}

// run runs the gtformer command.
func (f *fixture) run(args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(f.bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gtformer %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// copyModel copies a model directory with its states export, reading it
// with the given number of hops (the weights do not depend on it).
func copyModel(from, to string, hops int) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"tree.json", "weights.safetensors", "topics.json", corpusstates.MetaFile, corpusstates.RecordsFile} {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			return err
		}
	}
	raw, err := os.ReadFile(filepath.Join(from, "config.json"))
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	cfg["model"].(map[string]any)["hops"] = hops
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(to, "config.json"), b, 0o644)
}

// newDocs writes 60 new documents made from ML's test documents' words
// into three shards in dir (with blank lines and CRLF line ends, which
// the readers skip and strip), and returns the shards' pattern, their
// concatenation (what gtformer embed --new reads) and the ids in order.
// The links cover every case of resolution: corpus documents by line
// number (as strings, integers and with leading zeros), other new
// documents before and after, self-links, repeated links, documents
// without any link, and more links than maxNbrs. (No new document reuses a
// corpus id: gtformer embed --new refuses that since the faults work.)
func newDocs(t *testing.T, ml, dir string) (pattern, all string, ids []string) {
	t.Helper()
	vocab := readLines(t, filepath.Join(ml, "voc.txt"))
	contents := readLines(t, filepath.Join(ml, "contents.txt"))
	nbrs := map[int][]int{}
	for _, l := range readLines(t, filepath.Join(ml, "links.txt")) {
		f := strings.Fields(l)
		a, _ := strconv.Atoi(f[0])
		b, _ := strconv.Atoi(f[1])
		nbrs[a] = append(nbrs[a], b)
		nbrs[b] = append(nbrs[b], a)
	}
	id := func(k int) string {
		return fmt.Sprintf("n%d", k)
	}
	var lines []string
	for k := 0; k < 60; k++ {
		doc := 3000 + k
		var words []string
		for _, w := range strings.Fields(contents[doc]) {
			i, _ := strconv.Atoi(w)
			words = append(words, vocab[i])
		}
		if k%10 == 4 {
			words = append(words, "zzqx", "unknownish")
		}
		text := strings.Join(words, " ")
		if k%10 == 3 {
			text = ""
		}
		var links []any
		if k%10 != 8 {
			for j, n := range nbrs[doc] {
				switch {
				case k%3 == 0:
					links = append(links, n)
				case k%5 == 0 && j == 0:
					links = append(links, "00"+strconv.Itoa(n))
				default:
					links = append(links, strconv.Itoa(n))
				}
			}
			if k%2 == 0 {
				links = append(links, "0")
			}
			// Links among new documents, forwards and backwards; documents
			// k ≡ 8 (mod 10) have no links and none link to them, so they
			// attend to themselves.
			switch to := k + 1; {
			case k%4 == 1 && to%10 != 8:
				links = append(links, id(to%60))
			case k%4 == 2 && (k-2)%10 != 8:
				links = append(links, id(k-2))
			}
			if k == 9 {
				links = append(links, "5")
			}
			if k%7 == 0 {
				links = append(links, id(k))
			}
			if k%6 == 0 && len(links) > 0 {
				links = append(links, links[0])
			}
		}
		rec := map[string]any{"id": id(k), "text": text}
		if links != nil {
			rec["links"] = links
		}
		if k%11 == 0 {
			rec["label"] = "ignored"
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
		ids = append(ids, id(k))
	}
	var whole strings.Builder
	for s, name := range []string{"new-a.jsonl", "new-b.jsonl", "new-c.jsonl"} {
		var b strings.Builder
		for i, l := range lines[20*s : 20*(s+1)] {
			b.WriteString(l)
			if s == 1 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
			if i == 5 {
				b.WriteString("\n   \n")
			}
		}
		whole.WriteString(b.String())
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all = filepath.Join(dir, "all.jsonl.txt") // outside the pattern
	if err := os.WriteFile(all, []byte(whole.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "new-*.jsonl"), all, ids
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// reference runs gtformer embed --new on the concatenated input.
func (f *fixture) reference(t *testing.T, modelDir, all string) ([]float32, int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ref.npy")
	if _, err := f.run("embed", "--model", modelDir, "--data", f.ml, "--new", all, "--out", out,
		"--max-nbrs", strconv.Itoa(maxNbrs), "--batch", "16"); err != nil {
		t.Fatal(err)
	}
	pts, shape, err := npy.ReadAs[float32](out)
	if err != nil {
		t.Fatal(err)
	}
	return pts, shape[1]
}

// outLine is a line of the embeddings' output.
type outLine struct {
	ID        string    `json:"id"`
	Source    string    `json:"source"`
	Embedding []float32 `json:"embedding"`
	Topics    []struct {
		Topic  int     `json:"topic"`
		Weight float32 `json:"weight"`
	} `json:"topics"`
	Path         []int    `json:"path"`
	UnknownLinks []string `json:"unknown_links"`
}

type deadLine struct {
	Source, ID, Reason, Record string
}

// outcome is what a pipeline run left.
type outcome struct {
	plan     *embedpipe.Plan
	counters map[string]int64
	lines    map[string]outLine
	dead     []deadLine
}

// runPipeline prepares, builds and runs the pipeline on Prism and reads
// its outputs back.
func runPipeline(t *testing.T, o embedpipe.Options) *outcome {
	t.Helper()
	var plan *embedpipe.Plan
	var res beam.PipelineResult
	for attempt := 1; ; attempt++ {
		var err error
		if plan, err = embedpipe.Prepare(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		p := beam.NewPipeline()
		embedpipe.Build(p.Root(), plan)
		res, err = ptest.RunWithMetrics(p)
		if err == nil {
			break
		}
		if attempt == 3 || !prismProgressRace(err) {
			t.Fatal(err)
		}
		// The runner's own failure, not the pipeline's: run the job again
		// into an emptied output, as one would rerun a failed job.
		t.Logf("attempt %d: Prism's progress race (a runner-side stage asked its nil worker for progress); running the job again", attempt)
		if err := os.RemoveAll(o.Out); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing temporary is left: the embeddings' part files are removed
	// once joined into their shards.
	entries, err := os.ReadDir(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("%s left in the output", e.Name())
		}
	}
	oc := &outcome{plan: plan, counters: map[string]int64{}, lines: map[string]outLine{}}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "gtformer" {
			oc.counters[c.Name()] += c.Result()
		}
	}
	for s := range o.Shards {
		for _, l := range jsonLines(t, filepath.Join(o.Out, embedpipe.ShardName(embedpipe.EmbeddingsPrefix, s, o.Shards, ".jsonl"))) {
			var ol outLine
			if err := json.Unmarshal([]byte(l), &ol); err != nil {
				t.Fatal(err)
			}
			if _, dup := oc.lines[ol.ID]; dup {
				t.Fatalf("id %q written twice", ol.ID)
			}
			oc.lines[ol.ID] = ol
		}
	}
	for s := range o.DeadShards {
		for _, l := range jsonLines(t, filepath.Join(o.Out, embedpipe.ShardName(embedpipe.DeadLettersPrefix, s, o.DeadShards, ".jsonl"))) {
			var d deadLine
			if err := json.Unmarshal([]byte(l), &d); err != nil {
				t.Fatal(err)
			}
			oc.dead = append(oc.dead, d)
		}
	}
	return oc
}

// prismProgressRace reports whether a job failed on a race in Prism
// v2.77.0 itself (runners/prism/internal/stage.go, Execute): a runner-side
// stage (a GroupByKey or Flatten, which has no SDK worker) finishes at
// once, but when the goroutine is descheduled for more than the 100 ms
// progress tick before its select, the tick may be chosen and Progress is
// sent to the nil worker. It shows on a heavily loaded machine only, and
// the more stages a pipeline has the likelier it is.
func prismProgressRace(err error) bool {
	s := err.Error()
	return strings.Contains(s, "panic in stage.Execute") && strings.Contains(s, "nil pointer dereference") &&
		strings.Contains(s, "(*W).sendInstruction(0x0") && strings.Contains(s, "(*B).Progress")
}

// jsonLines reads a file's lines; the file must exist (empty shards are
// written too).
func jsonLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// options are the tests' pipeline options.
func options(input, modelDir, out string, rounds int) embedpipe.Options {
	o := embedpipe.Defaults()
	o.Input, o.Model, o.Out, o.Rounds = input, modelDir, out, rounds
	o.MaxNbrs, o.Batch, o.Shards, o.DeadShards = maxNbrs, 16, 3, 2
	return o
}

// sameNumbers checks the pipeline's embeddings against gtformer embed
// --new's rows (in the input's order) to float32 rounding: the two batch
// documents differently, and BLAS rounds a row by its batch.
func sameNumbers(t *testing.T, oc *outcome, ids []string, ref []float32, width int) {
	t.Helper()
	if len(oc.lines) != len(ids) || len(ref) != len(ids)*width {
		t.Fatalf("%d documents embedded, %d reference rows of %d, want %d", len(oc.lines), len(ref)/width, width, len(ids))
	}
	worst := 0.0
	for i, id := range ids {
		l, ok := oc.lines[id]
		if !ok {
			t.Fatalf("document %q missing from the output", id)
		}
		if len(l.Embedding) != width {
			t.Fatalf("document %q: %d coordinates, want %d", id, len(l.Embedding), width)
		}
		for j, v := range l.Embedding {
			worst = max(worst, math.Abs(float64(v-ref[i*width+j])))
		}
	}
	t.Logf("largest difference from gtformer embed --new: %.3g", worst)
	if worst > 2e-5 {
		t.Errorf("embeddings differ from gtformer embed --new by up to %g", worst)
	}
}

// TestEmbedEqualsEmbedNew: on ML, new documents linked to the corpus and
// to each other get the numbers of gtformer embed --new for the same input
// (the default two-hop model, one round), in the JSON Lines and the .npy
// shards alike; topic counts and counters add up.
func TestEmbedEqualsEmbedNew(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	pattern, all, ids := newDocs(t, f.ml, dir)
	ref, width := f.reference(t, f.model, all)

	o := options(pattern, f.model, filepath.Join(dir, "out"), 1)
	o.NPY = true
	oc := runPipeline(t, o)
	if oc.plan.Stages != 1 || len(oc.plan.Files) != 3 {
		t.Errorf("plan: %d stages, %d files; want 1 and 3", oc.plan.Stages, len(oc.plan.Files))
	}
	// The fixture is trained with the defaults, which read hop features:
	// the test covers their propagation into the corpus.
	if def := model.Default(); oc.plan.FeatureHops != def.FeatureHops || def.FeatureHops == 0 || oc.plan.HopWidth == 0 {
		t.Errorf("plan: %d hops of hop features (width %d); the default model reads %d", oc.plan.FeatureHops, oc.plan.HopWidth, def.FeatureHops)
	}
	sameNumbers(t, oc, ids, ref, width)
	if len(oc.dead) != 0 {
		t.Errorf("dead letters: %+v", oc.dead)
	}
	if oc.counters["documents"] != int64(len(ids)) || oc.counters["errors"] != 0 || oc.counters["unknown_links"] != 0 || oc.counters["words_dropped"] < 12 {
		t.Errorf("counters %v", oc.counters)
	}
	// TopK (5) topics are listed, or all of them when the tiny fixture's
	// tree has fewer.
	m, _, err := model.Load(f.model)
	if err != nil {
		t.Fatal(err)
	}
	wantTopics := min(o.TopK, m.Topics.Tables().T)
	if l := oc.lines["n4"]; !strings.HasSuffix(l.Source, "new-a.jsonl:5") || len(l.Topics) != wantTopics || len(l.Path) < 2 || l.Path[0] != 0 {
		t.Errorf("n4: source %q, topics %v (want %d), path %v", l.Source, l.Topics, wantTopics, l.Path)
	}

	// The .npy shards hold the same rows as the JSON Lines, named by their
	// id files.
	rows := 0
	for s := range o.Shards {
		base := filepath.Join(o.Out, embedpipe.ShardName(embedpipe.EmbeddingsPrefix, s, o.Shards, ""))
		pts, shape, err := npy.ReadAs[float32](base + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		shardIDs := jsonLines(t, base+".ids.jsonl")
		if len(shape) != 2 || shape[0] != len(shardIDs) || shape[1] != width {
			t.Fatalf("shard %d: shape %v for %d ids", s, shape, len(shardIDs))
		}
		for i, raw := range shardIDs {
			var id string
			if err := json.Unmarshal([]byte(raw), &id); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pts[i*width:(i+1)*width], oc.lines[id].Embedding) {
				t.Errorf("shard %d row %d (%q) differs from the JSON Lines", s, i, id)
			}
		}
		rows += len(shardIDs)
	}
	if rows != len(ids) {
		t.Errorf("%d .npy rows, want %d", rows, len(ids))
	}

	// Topic counts: every document once by its top topic, and once on
	// every topic of its path.
	var counts struct {
		Documents int64
		Topics    []struct {
			Topic         int
			TopDocuments  int64 `json:"top_documents"`
			PathDocuments int64 `json:"path_documents"`
		}
	}
	raw, err := os.ReadFile(filepath.Join(o.Out, embedpipe.TopicCountsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &counts); err != nil {
		t.Fatal(err)
	}
	top, path := map[int]int64{}, map[int]int64{}
	for _, l := range oc.lines {
		top[l.Topics[0].Topic]++
		for _, p := range l.Path {
			path[p]++
		}
	}
	var sum int64
	for _, c := range counts.Topics {
		sum += c.TopDocuments
		if c.TopDocuments != top[c.Topic] || c.PathDocuments != path[c.Topic] {
			t.Errorf("topic %d: counts %d, %d; the lines give %d, %d", c.Topic, c.TopDocuments, c.PathDocuments, top[c.Topic], path[c.Topic])
		}
	}
	if counts.Documents != int64(len(ids)) || sum != counts.Documents {
		t.Errorf("topic counts: %d documents, top counts sum to %d", counts.Documents, sum)
	}

	// The outputs are there now: a second run into them is refused.
	if _, err := embedpipe.Prepare(context.Background(), o); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Errorf("second run into the same output: %v", err)
	}
}

// TestRounds: a round beyond the model's own hops lets new documents read
// one hop further. Read with one hop, the same weights give embed --new's
// one-hop numbers in one round and its two-hop numbers in two; a third
// round changes nothing a three-layer model can see.
func TestRounds(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	pattern, all, ids := newDocs(t, f.ml, dir)
	for _, tc := range []struct {
		rounds             int
		reference          string
		stages, roundsUsed int
	}{
		{1, f.model1, 0, 1},
		{2, f.model, 1, 2},
		{3, f.model, 1, 2},
	} {
		t.Run(fmt.Sprintf("rounds%d", tc.rounds), func(t *testing.T) {
			ref, width := f.reference(t, tc.reference, all)
			oc := runPipeline(t, options(pattern, f.model1, filepath.Join(dir, fmt.Sprintf("out%d", tc.rounds)), tc.rounds))
			if oc.plan.Stages != tc.stages || oc.plan.RoundsUsed != tc.roundsUsed {
				t.Errorf("plan: %d stages, %d rounds used; want %d, %d", oc.plan.Stages, oc.plan.RoundsUsed, tc.stages, tc.roundsUsed)
			}
			sameNumbers(t, oc, ids, ref, width)
		})
	}
}

// TestWaves: the joins over per-link messages split into waves (the
// tests' other runs take the default) give embed --new's numbers in one
// wave and in the most, with nothing lost between the waves.
func TestWaves(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	pattern, all, ids := newDocs(t, f.ml, dir)
	ref, width := f.reference(t, f.model, all)
	for _, waves := range []int{1, 16} {
		t.Run(fmt.Sprintf("waves%d", waves), func(t *testing.T) {
			o := options(pattern, f.model, filepath.Join(dir, fmt.Sprintf("out%d", waves)), 1)
			o.Waves = waves
			oc := runPipeline(t, o)
			sameNumbers(t, oc, ids, ref, width)
			if len(oc.dead) != 0 || oc.counters["documents"] != int64(len(ids)) {
				t.Errorf("%d documents, dead letters %+v", oc.counters["documents"], oc.dead)
			}
		})
	}
	o := options(pattern, f.model, filepath.Join(dir, "out17"), 1)
	o.Waves = 17
	if _, err := embedpipe.Prepare(context.Background(), o); err == nil || !strings.Contains(err.Error(), "waves") {
		t.Errorf("17 waves: %v", err)
	}
}

// TestDeadLetters: every bad record lands in the dead-letter output with
// its file, line and reason (those of gtformer embed --new), is counted,
// and stops nothing: the good records beside it are embedded, an unknown
// link is dropped, counted and listed with its document.
func TestDeadLetters(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	in := `{"id": "good1", "text": "learning algorithms for neural networks", "links": ["12", "good2"]}
not json at all
{"id": "notext", "links": ["3"]}
{"id": "good2", "text": "reinforcement learning", "links": ["nowhere", "good1", 99999]}
{"id": "good1", "text": "a second document with the same id"}
{"id": "extra", "text": "x", "title": "fields the format has not"}
{"id": {"nested": 1}, "text": "x"}
{"id": "badlink", "text": "x", "links": [1.5]}
{"id": "two", "text": "x"} {"id": "values", "text": "y"}
` + "{\"id\": \"latin1\", \"text\": \"caf\xe9\"}\n"
	// A byte order mark before the first line is not content.
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("\uFEFF"+in), 0o644); err != nil {
		t.Fatal(err)
	}
	oc := runPipeline(t, options(filepath.Join(dir, "*.jsonl"), f.model, filepath.Join(dir, "out"), 1))
	want := []struct{ line, reason string }{
		{"bad.jsonl:2", "invalid JSON"},
		{"bad.jsonl:3", `document "notext" has no "text"`},
		{"bad.jsonl:5", `duplicate id "good1" (first at ` + filepath.Join(dir, "bad.jsonl") + `:1)`},
		{"bad.jsonl:6", `unknown field "title"`},
		{"bad.jsonl:7", "id: want a string or an integer"},
		{"bad.jsonl:8", "link: want a string or an integer"},
		{"bad.jsonl:9", "more than one value"},
		{"bad.jsonl:10", "not valid UTF-8 (byte 30 of the line is 0xe9)"},
	}
	lineOf := func(d deadLine) int {
		n, _ := strconv.Atoi(d.Source[strings.LastIndexByte(d.Source, ':')+1:])
		return n
	}
	slices.SortFunc(oc.dead, func(a, b deadLine) int { return lineOf(a) - lineOf(b) })
	if len(oc.dead) != len(want) {
		t.Fatalf("%d dead letters, want %d: %+v", len(oc.dead), len(want), oc.dead)
	}
	for i, w := range want {
		d := oc.dead[i]
		if !strings.HasSuffix(d.Source, w.line) || !strings.Contains(d.Reason, w.reason) {
			t.Errorf("dead letter %d: %s %q, want %s %q", i, d.Source, d.Reason, w.line, w.reason)
		}
		if w.line != "bad.jsonl:5" && d.Record == "" {
			t.Errorf("dead letter %s carries no record", d.Source)
		}
	}
	if len(oc.lines) != 2 || oc.lines["good1"].Source == "" || oc.lines["good2"].Source == "" {
		t.Fatalf("embedded %v, want good1 and good2", oc.lines)
	}
	if u := oc.lines["good2"].UnknownLinks; !slices.Equal(u, []string{"99999", "nowhere"}) {
		t.Errorf("good2's unknown links %v", u)
	}
	if oc.counters["documents"] != 2 || oc.counters["errors"] != int64(len(want)) || oc.counters["unknown_links"] != 2 {
		t.Errorf("counters %v", oc.counters)
	}
}

// TestIDClashes: a new document may take neither a corpus document's id
// nor another new document's, as in gtformer embed --new. Where embed --new
// refuses the whole input at the first such line, the pipeline sends each
// such document to the dead letters, with embed --new's reason, its file,
// line and id, and embeds the others to embed --new's numbers on the input
// without them: a link naming a refused id names the corpus document (or
// the first new document of the id, in input order). ML is a folder
// corpus, whose documents are named by line number (so "07" and "+8" name
// documents 7 and 8); the same export relabelled with ids of its own
// ("doc7") covers the join on corpus ids, and embeds the documents both
// runs keep to the same numbers.
func TestIDClashes(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	relabelled := filepath.Join(dir, "relabelled")
	relabel(t, f.model, relabelled, func(k int) string { return "doc" + strconv.Itoa(k) })

	// A case's documents are lines of its own files, case<i>-<file>.jsonl;
	// {C7} in a line is the corpus's name for its document 7.
	type doc struct {
		file int
		line string
	}
	cases := []struct {
		name     string
		docs     []doc
		corpus   []int       // documents refused as naming a corpus document
		dup      map[int]int // documents refused as a duplicate of the first of their id
		byNumber []int       // refused for a folder corpus only (an id that reads as a line number)
	}{
		{
			name: "corpus id",
			docs: []doc{
				{0, `{"id": "{C5}", "text": "neural networks", "links": ["{C3}"]}`},
				{0, `{"id": "a1", "text": "learning algorithms", "links": ["{C5}", "{C3}"]}`},
			},
			corpus: []int{0},
		},
		{
			name: "corpus id twice, linked",
			docs: []doc{
				{0, `{"id": "{C12}", "text": "reinforcement learning"}`},
				{0, `{"id": "b1", "text": "bayesian inference", "links": ["{C12}"]}`},
				{1, `{"id": "{C12}", "text": "genetic algorithms", "links": ["b1"]}`},
			},
			corpus: []int{0, 2},
		},
		{
			name: "new id twice",
			docs: []doc{
				{0, `{"id": "d1", "text": "neural networks", "links": ["{C1}"]}`},
				{0, `{"id": "d1", "text": "genetic algorithms", "links": ["{C2}"]}`},
				{0, `{"id": "d2", "text": "learning", "links": ["d1"]}`},
			},
			dup: map[int]int{1: 0},
		},
		{
			name: "new id twice, the first in the first file",
			docs: []doc{
				{1, `{"id": "e1", "text": "reinforcement learning", "links": ["e2", "{C20}"]}`},
				{0, `{"id": "e2", "text": "bayesian networks", "links": ["e1"]}`},
				{0, `{"id": "e1", "text": "neural networks", "links": ["{C21}"]}`},
			},
			dup: map[int]int{0: 2},
		},
		{
			name: "id reading as a line number",
			docs: []doc{
				{0, `{"id": "0{C7}", "text": "neural networks"}`},
				{0, `{"id": "+{C8}", "text": "learning"}`},
				{0, `{"id": "g1", "text": "bayesian learning", "links": ["{C7}"]}`},
			},
			byNumber: []int{0, 1},
		},
	}

	// The cases' files, for each corpus naming, and the documents' places.
	type place struct {
		path   string
		line   int // in its file
		caseAt int // line in the case's files concatenated in order
	}
	places := make([][]place, len(cases))
	write := func(in string, name func(int) string) {
		t.Helper()
		if err := os.MkdirAll(in, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, tc := range cases {
			for file := range 2 {
				var b strings.Builder
				for _, d := range tc.docs {
					if d.file == file {
						b.WriteString(corpusNames(d.line, name) + "\n")
					}
				}
				if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("case%d-%d.jsonl", i, file)), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	folderIn, relabelledIn := filepath.Join(dir, "folder"), filepath.Join(dir, "relabelled-in")
	write(folderIn, strconv.Itoa)
	write(relabelledIn, func(k int) string { return "doc" + strconv.Itoa(k) })
	for i, tc := range cases {
		places[i] = make([]place, len(tc.docs))
		at, perFile := 0, [2]int{}
		for file := range 2 {
			for j, d := range tc.docs {
				if d.file == file {
					at++
					perFile[file]++
					places[i][j] = place{filepath.Join(folderIn, fmt.Sprintf("case%d-%d.jsonl", i, file)), perFile[file], at}
				}
			}
		}
	}

	folder := runPipeline(t, options(filepath.Join(folderIn, "case*.jsonl"), f.model, filepath.Join(dir, "out-folder"), 1))
	other := runPipeline(t, options(filepath.Join(relabelledIn, "case*.jsonl"), relabelled, filepath.Join(dir, "out-relabelled"), 1))
	bySource := func(oc *outcome) map[string]deadLine {
		m := map[string]deadLine{}
		for _, d := range oc.dead {
			if _, dup := m[d.Source]; dup {
				t.Errorf("two dead letters for %s", d.Source)
			}
			m[d.Source] = d
		}
		return m
	}
	deadFolder, deadOther := bySource(folder), bySource(other)

	// The input embed --new embeds: every document the folder run keeps,
	// in input order.
	var kept strings.Builder
	var keptIDs []string
	deadTotal, otherDeadTotal := 0, 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			refused := map[int]bool{}
			for _, j := range tc.corpus {
				refused[j] = true
			}
			for j := range tc.dup {
				refused[j] = true
			}
			for _, j := range tc.byNumber {
				refused[j] = true
			}
			ordered := make([]int, len(tc.docs)) // the case's documents in input order
			for j, p := range places[i] {
				ordered[p.caseAt-1] = j
			}
			first := -1 // the first refused document in input order: where embed --new stops
			for _, j := range ordered {
				id, _, _, err := corpus.ParseNewDocLine([]byte(corpusNames(tc.docs[j].line, strconv.Itoa)))
				if err != nil {
					t.Fatal(err)
				}
				otherID, _, _, err := corpus.ParseNewDocLine([]byte(corpusNames(tc.docs[j].line, func(k int) string { return "doc" + strconv.Itoa(k) })))
				if err != nil {
					t.Fatal(err)
				}
				src := fmt.Sprintf("%s:%d", places[i][j].path, places[i][j].line)
				otherSrc := strings.Replace(src, folderIn, relabelledIn, 1)
				if !refused[j] {
					if _, ok := folder.lines[id]; !ok || folder.lines[id].Source != src {
						t.Errorf("%s (%s) not embedded from its line: %+v", id, src, folder.lines[id])
					}
					kept.WriteString(corpusNames(tc.docs[j].line, strconv.Itoa) + "\n")
					keptIDs = append(keptIDs, id)
					continue
				}
				if first < 0 {
					first = j
				}
				d, ok := deadFolder[src]
				deadTotal++
				if !ok {
					t.Errorf("%s (%s): no dead letter; embedded: %v", id, src, folder.lines[id].Source)
					continue
				}
				want := fmt.Sprintf("id %q reads as document ", id)
				if k, isDup := tc.dup[j]; isDup {
					want = fmt.Sprintf("duplicate id %q (first at %s:%d)", id, places[i][k].path, places[i][k].line)
				}
				if d.ID != id || !strings.Contains(d.Reason, want) || !strings.HasSuffix(d.Reason, "not embedded") {
					t.Errorf("%s: dead letter %+v, want id %q and a reason with %q", src, d, id, want)
				}

				// The relabelled corpus refuses the same documents by
				// their ids, except those whose ids only read as line
				// numbers.
				od, ok := deadOther[otherSrc]
				if slices.Contains(tc.byNumber, j) {
					if ok {
						t.Errorf("%s: refused by a corpus with ids of its own: %+v", otherSrc, od)
					}
					if _, ok := other.lines[otherID]; !ok {
						t.Errorf("%s (%s) not embedded by a corpus with ids of its own", otherID, otherSrc)
					}
					continue
				}
				otherDeadTotal++
				want = fmt.Sprintf("id %q is already a document of the corpus", otherID)
				if k, isDup := tc.dup[j]; isDup {
					want = fmt.Sprintf("duplicate id %q (first at %s:%d)", otherID, strings.Replace(places[i][k].path, folderIn, relabelledIn, 1), places[i][k].line)
				}
				if !ok || od.ID != otherID || !strings.Contains(od.Reason, want) {
					t.Errorf("%s: dead letter %+v, want id %q and a reason with %q", otherSrc, od, otherID, want)
				}
			}

			// embed --new on the case's input refuses it at its first
			// refused line, for the reason the dead letter gives.
			var all strings.Builder
			for _, j := range ordered {
				all.WriteString(corpusNames(tc.docs[j].line, strconv.Itoa) + "\n")
			}
			in := filepath.Join(dir, fmt.Sprintf("case%d.all.txt", i))
			if err := os.WriteFile(in, []byte(all.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := f.run("embed", "--model", f.model, "--data", f.ml, "--new", in, "--out", filepath.Join(dir, "refused.npy"))
			at := fmt.Sprintf("%s:%d: ", in, places[i][first].caseAt)
			if err == nil || !strings.Contains(err.Error(), at) {
				t.Fatalf("gtformer embed --new on %s: %v, want an error at %s", in, err, at)
			}
			msg, _, _ := strings.Cut(err.Error()[strings.Index(err.Error(), at)+len(at):], "\n")
			src := fmt.Sprintf("%s:%d", places[i][first].path, places[i][first].line)
			if d := deadFolder[src].Reason; !strings.HasPrefix(d, msg) {
				t.Errorf("gtformer embed --new refuses %s with %q; the pipeline's reason is %q", at, msg, d)
			}
		})
	}
	if len(folder.dead) != deadTotal || len(other.dead) != otherDeadTotal {
		t.Errorf("%d and %d dead letters, want %d and %d: %+v, %+v", len(folder.dead), len(other.dead), deadTotal, otherDeadTotal, folder.dead, other.dead)
	}
	if folder.counters["errors"] != int64(deadTotal) || folder.counters["documents"] != int64(len(keptIDs)) {
		t.Errorf("counters %v; want %d errors, %d documents", folder.counters, deadTotal, len(keptIDs))
	}

	// What both keep has embed --new's numbers on the input without the
	// refused documents, in either naming.
	all := filepath.Join(dir, "kept.all.txt")
	if err := os.WriteFile(all, []byte(kept.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, width := f.reference(t, f.model, all)
	sameNumbers(t, folder, keptIDs, ref, width)
	otherKept := &outcome{lines: map[string]outLine{}}
	for _, id := range keptIDs {
		otherKept.lines[id] = other.lines[id]
	}
	if len(other.lines) != len(keptIDs)+2 {
		t.Errorf("a corpus with ids of its own: %d documents embedded, want %d", len(other.lines), len(keptIDs)+2)
	}
	sameNumbers(t, otherKept, keptIDs, ref, width)
}

// corpusNames replaces {C<k>} in a line by the corpus's name of its
// document k.
func corpusNames(line string, name func(int) string) string {
	return corpusNameRE.ReplaceAllStringFunc(line, func(m string) string {
		k, _ := strconv.Atoi(m[2 : len(m)-1])
		return name(k)
	})
}

var corpusNameRE = regexp.MustCompile(`\{C[0-9]+\}`)

// relabel copies a model with its states export, its corpus documents
// renamed by name (ids of their own rather than line numbers): what the
// export of a JSON Lines corpus with the same documents holds.
func relabel(t *testing.T, from, to string, name func(int) string) {
	t.Helper()
	if err := copyModel(from, to, 2); err != nil {
		t.Fatal(err)
	}
	metaPath := filepath.Join(to, corpusstates.MetaFile)
	raw, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	meta["line_number_ids"] = json.RawMessage("false")
	if raw, err = json.Marshal(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metaPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, l := range jsonLines(t, filepath.Join(to, corpusstates.RecordsFile)) {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		var index int
		if err := json.Unmarshal(rec["index"], &index); err != nil {
			t.Fatal(err)
		}
		id, err := json.Marshal(name(index))
		if err != nil {
			t.Fatal(err)
		}
		rec["id"] = id
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(to, corpusstates.RecordsFile), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrepareRefuses: problems a job would only meet on its workers are
// refused before it starts, each naming what is wrong.
func TestPrepareRefuses(t *testing.T) {
	f := mlFixture(t)
	dir := t.TempDir()
	pattern, _, _ := newDocs(t, f.ml, dir)
	stale := filepath.Join(dir, "stale")
	if err := copyModel(f.model, stale, 2); err != nil {
		t.Fatal(err)
	}
	metaPath := filepath.Join(stale, corpusstates.MetaFile)
	raw, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	meta["weights_sha256"] = strings.Repeat("ab", 32)
	if raw, err = json.Marshal(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metaPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(busy, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(busy, embedpipe.TopicCountsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		o    embedpipe.Options
		want string
	}{
		{"no input", options(filepath.Join(dir, "none-*.jsonl"), f.model, out, 1), "no file matches"},
		{"stale states", options(pattern, stale, out, 1), "other weights"},
		{"no states", options(pattern, f.model, out, 1), "corpus states"},
		{"busy output", options(pattern, f.model, busy, 1), "already holds"},
		{"zero rounds", options(pattern, f.model, out, 0), "must be positive"},
		{"no model", options(pattern, filepath.Join(dir, "nomodel"), out, 1), "load model"},
	} {
		if tc.name == "no states" {
			tc.o.States = filepath.Join(dir, "nostates")
		}
		_, err := embedpipe.Prepare(context.Background(), tc.o)
		if err == nil || !strings.HasPrefix(err.Error(), "embedpipe: ") || strings.Count(err.Error(), "embedpipe: ") != 1 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error starting \"embedpipe: \" once, with %q", tc.name, err, tc.want)
		}
	}
}
