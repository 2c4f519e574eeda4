package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

// tinyTrain are flags that train a very small model in about a second.
var tinyTrain = []string{"--epochs", "1", "--width", "8", "--heads", "2", "--layers", "2", "--mlp", "16", "--max-len", "16", "--topic-warmup", "20", "--seed", "1", "--quiet"}

// writeJSONL writes a small synthetic corpus as JSON Lines (ids d0, d1,
// ...; labels when labelled); extra adds a document at the front, which
// shifts every other document's place and so the split.
func writeJSONL(t *testing.T, path string, labelled, extra bool) *corpus.Graph {
	t.Helper()
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.Links, sc.MeanLength = 300, 200, 600, 30
	g, _, err := synth.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	nbrs := make([][]string, g.NumDocs())
	for _, l := range g.Links {
		nbrs[l[0]] = append(nbrs[l[0]], fmt.Sprintf("d%d", l[1]))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	if extra {
		enc.Encode(map[string]any{"id": "extra", "text": "an extra document " + g.Vocab[0] + " " + g.Vocab[1], "links": []string{"d0"}, "label": g.LabelNames[0]})
	}
	for i := range g.NumDocs() {
		var words []string
		for _, w := range g.Doc(i) {
			words = append(words, g.Vocab[w])
		}
		doc := map[string]any{"id": fmt.Sprintf("d%d", i), "text": strings.Join(words, " "), "links": nbrs[i]}
		if labelled {
			doc["label"] = g.LabelNames[g.Labels[i]]
		}
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return g
}

// jsonlModel trains a tiny model on a labelled JSON Lines corpus once and
// returns the corpus file and the output folder (which tests must not
// change: they copy it first).
var jsonlModel = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gtformer-cmd-faults-")
	if err != nil {
		return "", err
	}
	return dir, nil
})

func trainedJSONL(t *testing.T) (data, out string) {
	t.Helper()
	dir, err := jsonlModel()
	if err != nil {
		t.Fatal(err)
	}
	data, out = filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "model")
	if _, err := os.Stat(filepath.Join(out, "metrics.json")); err == nil {
		return data, out
	}
	writeJSONL(t, data, true, false)
	if code, _, errs := runCmd(append([]string{"train", "--data", data, "--out", out}, tinyTrain...)...); code != 0 {
		t.Fatalf("training on %s: exit %d: %s", data, code, errs)
	}
	return data, out
}

// TestExitCodes: gtformer with no command is a usage mistake (exit 2, the
// overview on stderr; it used to exit 0); help for a command group exits 0
// and lists its subcommands (it used to exit 2).
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string // substring; "" for empty
		stderrPart string
	}{
		{nil, 2, "", "usage: gtformer <command>"},
		{[]string{"help"}, 0, "usage: gtformer <command>", ""},
		{[]string{"-h"}, 0, "usage: gtformer <command>", ""},
		{[]string{"data", "-h"}, 0, "data validate", ""},
		{[]string{"data", "--help"}, 0, "data synth", ""},
		{[]string{"data"}, 2, "", "expected a subcommand"},
		{[]string{"nonsense"}, 2, "", "unknown command"},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code || (tc.stdout == "") != (out == "") || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderrPart) {
			t.Errorf("gtformer %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", tc.args, code, out, errs, tc.code, tc.stdout, tc.stderrPart)
		}
	}
}

// flagLine is a flag in a command's help: "  --name type".
var flagLine = regexp.MustCompile(`^  --([a-z0-9-]+) ([a-z]+)`)

// TestFloatFlagsFinite: every float flag of every command refuses NaN and
// infinities with exit 2, naming the flag (--lr inf and --weight-decay inf
// panicked in the optimiser; --max-df nan was accepted). The flags are
// read from each command's --help-all, so a flag added later is covered
// too.
func TestFloatFlagsFinite(t *testing.T) {
	found := 0
	for name := range commands {
		code, _, help := runCmd(append(strings.Fields(name), "--help-all")...)
		if code != 0 {
			t.Fatalf("%s --help-all: exit %d", name, code)
		}
		for _, line := range strings.Split(help, "\n") {
			m := flagLine.FindStringSubmatch(line)
			if m == nil || m[2] != "float" {
				continue
			}
			found++
			for _, v := range []string{"nan", "inf", "-Inf"} {
				args := append(strings.Fields(name), "--"+m[1], v)
				code, _, errs := runCmd(args...)
				if code != 2 || !strings.Contains(errs, "--"+m[1]) || !strings.Contains(errs, "not a finite number") {
					t.Errorf("%v: exit %d, %q; want exit 2 naming --%s as not finite", args, code, strings.TrimSpace(errs), m[1])
				}
			}
		}
	}
	// train alone has 20 float flags (dropout and init-scale among them).
	if found < 25 {
		t.Errorf("only %d float flags found in the commands' help", found)
	}
}

// TestTrainUsageMistakes: mistakes found before training exit 2 with one
// message (no "train: train:"), and leave no output folder.
func TestTrainUsageMistakes(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "c.jsonl")
	writeJSONL(t, data, false, false)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"full nesting with two hops", []string{"--nesting", "full", "--layers", "3"}, "2 hops need the cache nesting"},
		{"infinite learning rate", []string{"--lr", "inf"}, "--lr +Inf: not a finite number"},
		{"infinite weight decay", []string{"--weight-decay", "inf"}, "--weight-decay +Inf: not a finite number"},
		{"negative eval queries", []string{"--eval-queries", "-1"}, "--eval-queries -1: give the number of test documents to score as queries (at least 1), or 0 for all of them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-"))
			code, _, errs := runCmd(append([]string{"train", "--out", out, "--quiet"}, tc.args...)...)
			lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
			if code != 2 || !strings.Contains(lines[len(lines)-1], tc.want) || strings.Contains(errs, "train: train:") || strings.Contains(errs, "panic") {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, errs, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run left %s", out)
			}
		})
	}
}

// TestResumeChecksSettings: --resume refuses a conflicting flag that
// changes the numbers and a corpus other than the run's (exit 2, naming
// the flag and both values, or what differs in the corpus); flags given as
// the run had them are accepted; --epochs extends the run. It used to
// continue on another corpus and ignore --width, --seed, --lr, --split.
func TestResumeChecksSettings(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	args := func(extra ...string) []string {
		return append(append([]string{"train", "--out", out}, tinyTrain...), extra...)
	}
	if code, _, errs := runCmd(args()...); code != 0 {
		t.Fatalf("training: exit %d: %s", code, errs)
	}
	other := filepath.Join(tmp, "other.jsonl")
	writeJSONL(t, other, true, false)
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"width", []string{"--resume", "--width", "16", "--heads", "2"}, []string{"--width 16 (the checkpoint's run has 8)"}},
		{"seed and learning rate", []string{"--resume", "--seed", "2", "--lr", "0.01"}, []string{"--seed 2 (the checkpoint's run has 1)", "--lr 0.01 (the checkpoint's run has 0.001)"}},
		{"another corpus", []string{"--resume", "--data", other}, []string{"not the corpus the model was trained on", "documents: 1500 documents, here 300", "--data"}},
		{"another split", []string{"--resume", "--split", "random"}, []string{"split: as many training/validation/test documents", "--split paper, here random"}},
		{"fewer epochs than done", []string{"--resume", "--epochs", "0"}, []string{"epochs 0 must be positive"}},
		// The flags added with hop features, selection and scale are
		// checked as every other (the checked set is modelFlags', so a new
		// flag is covered when it is registered there).
		{"hop features", []string{"--resume", "--feature-hops", "0", "--mask-targets=false"}, []string{"--feature-hops 0 (the checkpoint's run has 3)", "--mask-targets false (the checkpoint's run has true)"}},
		{"selection", []string{"--resume", "--select", "best"}, []string{"--select best (the checkpoint's run has last)"}},
		// Flags that set a list or a pointer are compared by value too.
		{"gate and background levels", []string{"--resume", "--skip-gate", "0.5", "--background-levels", "1,1"}, []string{"--skip-gate 0.5 (the checkpoint's run has it unset)", "--background-levels 1,1 (the checkpoint's run has 1,0,0)"}},
		{"steps and sample", []string{"--resume", "--steps-per-epoch", "5", "--sample-docs", "100"}, []string{"--steps-per-epoch 5 (the checkpoint's run has 0)", "--sample-docs 100 (the checkpoint's run has 4000)"}},
		{"tree growth and priors", []string{"--resume", "--prune-by", "subtree", "--lambda-level", "0", "--lambda-div", "0.5"}, []string{"--prune-by subtree (the checkpoint's run has path)", "--lambda-level 0 (the checkpoint's run has 1)", "--lambda-div 0.5 (the checkpoint's run has 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmd(args(tc.extra...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
	// Flags as the run had them, and --epochs to extend: accepted.
	code, _, errs := runCmd(args("--resume", "--width", "8", "--lr", "0.001", "--epochs", "2")...)
	if code != 0 {
		t.Fatalf("resume with the run's flags and --epochs 2: exit %d: %s", code, errs)
	}
	var met struct{ Epochs int }
	raw, err := os.ReadFile(filepath.Join(out, "metrics.json"))
	if err != nil || json.Unmarshal(raw, &met) != nil || met.Epochs != 2 {
		t.Errorf("after extending: metrics.json %s (%v), want 2 epochs", raw, err)
	}
}

// TestModelKnowsItsCorpus: a model records its training corpus's
// fingerprint; eval and embed refuse another corpus (exit 2, naming what
// differs): none given (the built-in corpus, which it used to score
// silently), or the same file with one document more (the split moved:
// training documents were scored as test documents). With
// --allow-different-corpus they go on, with a note. eval writes eval.json
// and never touches the training run's metrics.json (it used to overwrite
// it). eval --k beyond the training documents is refused.
func TestModelKnowsItsCorpus(t *testing.T) {
	data, trained := trainedJSONL(t)
	dir := filepath.Join(t.TempDir(), "model")
	copyTree(t, trained, dir)
	metrics, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, model.ConfigFile))
	if err != nil || !strings.Contains(string(cfg), `"corpus"`) || !strings.Contains(string(cfg), `"min-df": "2"`) {
		t.Fatalf("config.json records no corpus fingerprint with the tokenizer flags: %s", cfg)
	}
	shifted := filepath.Join(t.TempDir(), "shifted.jsonl")
	writeJSONL(t, shifted, true, true)
	emb := filepath.Join(t.TempDir(), "e.npy")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"eval on its corpus", []string{"eval", "--model", dir, "--data", data}, 0, nil},
		{"eval without --data", []string{"eval", "--model", dir}, 2, []string{"documents: 300 documents, here 1500", "vocabulary: ", "--allow-different-corpus"}},
		{"eval with one more document", []string{"eval", "--model", dir, "--data", shifted}, 2, []string{"documents: 300 documents, here 301", "split: 240/24/60 training/validation/test documents, here 240/24/61"}},
		{"eval with other tokenizer flags", []string{"eval", "--model", dir, "--data", data, "--min-df", "1"}, 2, []string{"settings: --min-df 2, here 1"}},
		{"eval allowed another corpus", []string{"eval", "--model", dir, "--data", shifted, "--allow-different-corpus"}, 0, []string{"note (--allow-different-corpus): corpus: not the corpus"}},
		{"eval k beyond the training documents", []string{"eval", "--model", dir, "--data", data, "--k", "10000"}, 2, []string{"--k 10000: the kNN classifier is fitted on the 240 training documents"}},
		{"embed with one more document", []string{"embed", "--model", dir, "--data", shifted, "--out", emb}, 2, []string{"documents: 300 documents, here 301"}},
		{"embed with another split", []string{"embed", "--model", dir, "--data", data, "--split", "random", "--out", emb}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmd(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "metrics.json")); string(after) != string(metrics) {
		t.Error("eval changed the training run's metrics.json")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "eval.json"))
	var ev struct {
		Test struct {
			KNNMicroF1 float64 `json:"knn_micro_f1"`
		} `json:"test"`
	}
	if err != nil || json.Unmarshal(raw, &ev) != nil || ev.Test.KNNMicroF1 <= 0 {
		t.Errorf("eval.json: %s (%v)", raw, err)
	}
}

// copyTree copies the regular files and folders of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.IsDir() {
			copyTree(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmbedNewCorpusFields: embed --new takes lines in the corpus's own
// JSON Lines format (a "label" is accepted and not used; it was refused),
// refuses a new id equal to a corpus document's (it silently took over
// that document's links), and its help says what a folder corpus's ids
// are.
func TestEmbedNewCorpusFields(t *testing.T) {
	data, dir := trainedJSONL(t)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "new.jsonl")
	out := filepath.Join(tmp, "new.npy")
	if err := os.WriteFile(in, []byte(`{"id": "n1", "text": "a new document", "links": ["d3"], "label": "whatever"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd("embed", "--model", dir, "--data", data, "--new", in, "--out", out); code != 0 {
		t.Fatalf("a labelled new document: exit %d: %s", code, errs)
	}
	if _, shape, err := npy.ReadAs[float32](out); err != nil || shape[0] != 1 {
		t.Errorf("new.npy: shape %v, %v", shape, err)
	}
	if err := os.WriteFile(in, []byte(`{"id": "d7", "text": "takes over d7", "links": ["d3"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("embed", "--model", dir, "--data", data, "--new", in, "--out", out)
	if code != 1 || !strings.Contains(errs, `new.jsonl:1: id "d7" is already a document of the corpus`) {
		t.Errorf("new id equal to a corpus id: exit %d, %q", code, errs)
	}
	_, _, help := runCmd("embed", "-h")
	if !strings.Contains(help, "0-based document id") || strings.Contains(help, "by line number") {
		t.Errorf("embed -h does not say what a folder corpus's document ids are:\n%s", help)
	}
}

// TestOutputsNeverClobber: embed never replaces what is not a regular file:
// a named pipe or a directory at --out is refused (exit 1, naming it) and
// left as it was; a symbolic link gets its target written. (A real device
// is never used: a failing test would replace it for the whole machine.)
func TestOutputsNeverClobber(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "pipe.npy")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(tmp, "dir.npy")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(tmp, "target.npy")
	link := filepath.Join(tmp, "link.npy")
	if err := os.Symlink("target.npy", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out, want string
		mode      os.FileMode
	}{
		{fifo, "is a named pipe: not replaced", os.ModeNamedPipe},
		{sub, "is a directory: not replaced", os.ModeDir},
	} {
		code, _, errs := runCmd("embed", "--model", dir, "--out", tc.out)
		if code != 1 || !strings.Contains(errs, tc.out) || !strings.Contains(errs, tc.want) {
			t.Errorf("embed --out %s: exit %d, %q", tc.out, code, errs)
		}
		if fi, err := os.Lstat(tc.out); err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s was replaced", tc.out)
		}
	}
	// report reads an existing file before replacing it (only a report
	// is replaced): a named pipe must be refused before it is opened (it
	// used to block), a directory refused as well.
	for _, tc := range []struct {
		out, want string
		mode      os.FileMode
	}{
		{fifo, "is a named pipe: not replaced", os.ModeNamedPipe},
		{sub, "is a directory: not replaced", os.ModeDir},
	} {
		code, _, errs := runCmd("report", "--model", dir, "--out", tc.out)
		if code != 1 || !strings.Contains(errs, tc.out) || !strings.Contains(errs, tc.want) {
			t.Errorf("report --out %s: exit %d, %q", tc.out, code, errs)
		}
		if fi, err := os.Lstat(tc.out); err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s was replaced", tc.out)
		}
	}
	if code, _, errs := runCmd("embed", "--model", dir, "--out", link); code != 0 {
		t.Fatalf("embed --out a symbolic link: exit %d: %s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode().Type() != os.ModeSymlink {
		t.Error("the symbolic link was replaced")
	}
	if _, shape, err := npy.ReadAs[float32](target); err != nil || shape[0] != 1500 {
		t.Errorf("the link's target: shape %v, %v", shape, err)
	}
}

// TestNonFiniteModelRefused: a model whose weights hold a NaN does not
// load: embed exits 1 naming the tensor (it wrote NaN rows with exit 0).
func TestNonFiniteModelRefused(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	path := filepath.Join(dir, model.WeightsFile)
	ts, meta, err := safetensors.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []*tensor.Tensor
	for _, name := range slices.Sorted(maps.Keys(ts)) {
		list = append(list, ts[name])
	}
	ts["scale.proj"].Data[3] = float32(math.NaN())
	if err := safetensors.WriteFile(path, list, meta); err != nil {
		t.Fatal(err)
	}
	// A model saved so: config.json's hash is of these weights.
	raw, err := os.ReadFile(filepath.Join(dir, model.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := model.WeightsSHA256(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	sc["files"].(map[string]any)[model.WeightsFile] = sum
	if raw, err = json.Marshal(sc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, model.ConfigFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "e.npy")
	code, _, errs := runCmd("embed", "--model", dir, "--out", out)
	if code != 1 || !strings.Contains(errs, `tensor "scale.proj" holds NaN at element 3`) {
		t.Errorf("embed with a NaN in the weights: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
}

// TestTopicsWithoutWeights: topics prints the tree from topics.json alone
// (it used to load the weights).
func TestTopicsWithoutWeights(t *testing.T) {
	_, trained := trainedJSONL(t)
	dir := filepath.Join(t.TempDir(), "model")
	copyTree(t, trained, dir)
	want, err := os.ReadFile(filepath.Join(dir, "topics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, model.WeightsFile)); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("topics", "--model", dir)
	if code != 0 || out != string(want) {
		t.Errorf("topics without weights: exit %d, %s\n%s\nwant\n%s", code, errs, out, want)
	}
}

// TestStaleOutputsRemoved: files by the outputs' names that no run wrote
// are never replaced or removed: in a folder no run wrote, or dropped into
// one a run wrote, the run is refused (exit 2) and they are left as they
// were; other files (notes) are left alone. (That a run's own stale files
// are removed is pipeline's TestRunReplacesOnlyItsOwnFiles.)
func TestStaleOutputsRemoved(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "unlabelled.jsonl")
	writeJSONL(t, data, false, false)
	mine := filepath.Join(tmp, "mine")
	out := filepath.Join(tmp, "out")
	for _, dir := range []string{mine, out} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(dir string) {
		for _, name := range []string{"map.png", "map.svg", "eval.json", "my-notes.txt"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("earlier"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(mine)
	if code, _, errs := runCmd(append([]string{"train", "--data", data, "--out", mine}, tinyTrain...)...); code != 2 || !strings.Contains(errs, "not a gtformer output folder") {
		t.Errorf("a folder of the user's files: exit %d: %s", code, errs)
	}
	for _, name := range []string{"map.png", "map.svg", "eval.json", "my-notes.txt"} {
		if b, err := os.ReadFile(filepath.Join(mine, name)); err != nil || string(b) != "earlier" {
			t.Errorf("the user's %s: %q, %v", name, b, err)
		}
	}
	if code, _, errs := runCmd(append([]string{"train", "--data", data, "--out", out}, tinyTrain...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The user's files by output names in a folder a run wrote: the next
	// run is refused before training and every file stays.
	write(out)
	if code, _, errs := runCmd(append([]string{"train", "--data", data, "--out", out}, tinyTrain...)...); code != 2 || !strings.Contains(errs, "not written by gtformer") {
		t.Errorf("the user's files in a run's folder: exit %d: %s", code, errs)
	}
	for _, name := range []string{"map.png", "map.svg", "eval.json", "my-notes.txt"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != "earlier" {
			t.Errorf("the user's %s: %q, %v", name, b, err)
		}
	}
	// Moved away, the folder trains again; the notes (no output's name) stay.
	for _, name := range []string{"map.png", "map.svg", "eval.json"} {
		os.Remove(filepath.Join(out, name))
	}
	if code, _, errs := runCmd(append([]string{"train", "--data", data, "--out", out}, tinyTrain...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for name, kept := range map[string]bool{"my-notes.txt": true, "metrics.json": true, "curves.png": true} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != kept {
			t.Errorf("%s: present %v, want %v", name, err == nil, kept)
		}
	}
}

// TestOneWordVocabulary: a corpus of one word is a problem of the data, not
// of the command line: train and data validate both refuse it with exit 1,
// the JSON Lines flags named only for a JSON Lines corpus, and train leaves
// no output folder.
func TestOneWordVocabulary(t *testing.T) {
	tmp := t.TempDir()
	jsonl := filepath.Join(tmp, "c.jsonl")
	writeJSONL(t, jsonl, false, false)
	folder := filepath.Join(tmp, "folder")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	var contents, links strings.Builder
	for i := 0; i < 30; i++ {
		contents.WriteString("0 0 0\n")
		fmt.Fprintf(&links, "%d %d\n", i, (i+1)%30)
	}
	for name, text := range map[string]string{"contents.txt": contents.String(), "links.txt": links.String(), "voc.txt": "word\n"} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantHint bool
	}{
		{"jsonl", []string{"--data", jsonl, "--max-vocab", "1"}, true},
		{"folder", []string{"--data", folder}, false},
	} {
		for _, cmd := range [][]string{{"train", "--quiet", "--out", filepath.Join(tmp, "out-"+tc.name)}, {"data", "validate"}} {
			t.Run(tc.name+" "+cmd[0], func(t *testing.T) {
				code, _, errs := runCmd(append(append([]string{}, cmd...), tc.args...)...)
				if code != 1 || !strings.Contains(errs, "vocabulary of 1 word") || strings.Contains(errs, "panic") {
					t.Fatalf("exit %d, stderr %q; want exit 1 naming the one-word vocabulary", code, errs)
				}
				if hint := strings.Contains(errs, "--max-vocab"); hint != tc.wantHint {
					t.Errorf("stderr %q: JSON Lines hint %v, want %v", errs, hint, tc.wantHint)
				}
			})
		}
		if _, err := os.Stat(filepath.Join(tmp, "out-"+tc.name)); err == nil {
			t.Errorf("train left its output folder for the %s corpus", tc.name)
		}
	}
}

// TestDivergenceNamed: a learning rate or initial scale that makes the
// run diverge ends with exit 1 and a message that says so and names the
// flag to lower, not an internal message of the tree or the fit.
func TestDivergenceNamed(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		flag, value string
	}{
		{"--lr", "1e30"},
		{"--init-scale", "1e30"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			out := filepath.Join(tmp, tc.flag[2:])
			code, _, errs := runCmd("train", "--quiet", "--epochs", "3", tc.flag, tc.value, "--out", out)
			if code != 1 || !strings.Contains(errs, "diverged") || !strings.Contains(errs, "lower "+tc.flag) || strings.Contains(errs, "panic") {
				t.Errorf("exit %d, stderr %q; want exit 1 saying the run diverged and to lower %s", code, errs, tc.flag)
			}
		})
	}
}

// TestKNNLinksTooFewDocuments: --knn-links on a corpus too small to link
// any training documents says so, instead of advising --knn-links.
func TestKNNLinksTooFewDocuments(t *testing.T) {
	data := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(data, []byte(`{"id":"a","text":"alpha beta gamma delta"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("train", "--quiet", "--data", data, "--knn-links", "--min-df", "1", "--max-df", "1", "--out", filepath.Join(t.TempDir(), "out"))
	if code != 1 || !strings.Contains(errs, "--knn-links") || strings.Contains(errs, "use --knn-links") {
		t.Errorf("exit %d, stderr %q; want exit 1 saying the text-similarity links join no training documents", code, errs)
	}
}
