package outputs_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/outputs"
	"github.com/gtformer/gtformer/topictree"
)

// setup builds an untrained model on a small synthetic corpus whose tree
// has been pruned and grown once (so topic ids are no longer the dense rows
// and some are retired), and evaluates it.
func setup(t *testing.T, supervised bool) (*model.Model, *corpus.Graph, *model.Inputs, *evaluate.Result) {
	t.Helper()
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.Links, sc.MeanLength = 80, 120, 160, 20
	g, _, err := synth.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	s := corpus.PaperSplit(g)
	cfg := model.Default()
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 8, 2, 2, 16, 16
	cfg.Tree.InitDepth, cfg.Tree.Branching = 3, 2
	cfg.Supervised, cfg.SupHidden = supervised, 8
	cfg.Vocab, cfg.NumLabels = len(g.Vocab), g.NumLabels()
	m, err := model.New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Topics 1..6 under the root; leaf 3 falls below s_prune, every other
	// topic is above s_add: 3 is removed, the root, 1 and 2 get a child.
	shares := []float64{0.2, 0.2, 0.2, 0.01, 0.2, 0.2, 0.2}
	res, err := m.Topics.Tree.Update(shares, topictree.UpdateOptions{Add: 0.05, Prune: 0.05})
	if err != nil || !res.Changed() {
		t.Fatalf("tree update: %v, changes %v", err, res.Changes)
	}
	m.SetTree(m.Topics.Tree)
	if err := m.Prepare(g, s.Train, 3); err != nil {
		t.Fatal(err)
	}
	in := model.NewInputs(g, m.IDF, cfg.MaxLen, cfg.Truncate)
	return m, g, in, evaluate.Run(m, g, s, in, evaluate.Options{EmbedBatch: 32})
}

// TestWrite checks every output file: the set of files (no temporaries),
// topics.json against the tree and β (id, parent, level, children, top-20
// words by weight, shares summing to one and equal to Σ|d|θ/Σ|d| computed
// here), topics.txt against topics.json, the two .npy arrays (shapes,
// float32, points on the hyperboloid, θ rows summing to one), and
// metrics.json's schema.
func TestWrite(t *testing.T) {
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprintf("supervised=%v", supervised), func(t *testing.T) {
			m, g, in, res := setup(t, supervised)
			dir := t.TempDir()
			met := outputs.Metrics{Dataset: "synth", Seed: 3, Supervised: supervised, TrainSeconds: 1.5, Epochs: 2}
			if err := outputs.Write(dir, m, 3, g, in, res, met); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := []string{"config.json", "doc_embeddings.npy", "doc_lengths.npy", "doc_topics.npy", "meta.jsonl", "metrics.json", "topic_links.json", "topics.json", "topics.txt", "tree.json", "weights.safetensors"}
			if !slices.Equal(names, want) {
				t.Errorf("output directory holds %v, want %v", names, want)
			}
			if w := outputs.Written(m, g); !slices.Contains(w, outputs.MetaFile) {
				t.Errorf("Written lists %v, without %s", w, outputs.MetaFile)
			}
			checkMeta(t, dir, g)
			topics := checkTopicsJSON(t, dir, m, g, in, res)
			checkTopicsText(t, dir, topics)
			checkArrays(t, dir, m, g, res)
			checkMetrics(t, dir, supervised)
		})
	}
}

func checkTopicsJSON(t *testing.T, dir string, m *model.Model, g *corpus.Graph, in *model.Inputs, res *evaluate.Result) []outputs.Topic {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var topics []outputs.Topic
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&topics); err != nil {
		t.Fatal(err)
	}
	// The JSON keys the issue names.
	var generic []map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "parent", "level", "children", "words", "share", "label", "label_source"} {
		for _, e := range generic {
			if _, ok := e[k]; !ok {
				t.Errorf("topics.json entry %v lacks %q", e["id"], k)
			}
		}
	}
	tab := m.Topics.Tables()
	tree := m.Topics.Tree
	if len(topics) != tab.T {
		t.Fatalf("%d topics in topics.json, the tree has %d", len(topics), tab.T)
	}
	words := m.TopicWords(20)
	T := tab.T
	var total float64
	var lenSum float64
	share := make([]float64, T)
	for d := 0; d < g.NumDocs(); d++ {
		for r := 0; r < T; r++ {
			share[r] += float64(in.Len[d]) * float64(res.Emb.Theta[d*T+r])
		}
		lenSum += float64(in.Len[d])
	}
	byID := map[int]outputs.Topic{}
	for r, tp := range topics {
		byID[tp.ID] = tp
		if tp.ID != tab.ID[r] || tp.Parent != tree.Parent(tp.ID) || tp.Level != int(tab.Level[r]) || !slices.Equal(tp.Children, tree.Children(tp.ID)) || tp.Children == nil {
			t.Errorf("row %d: topic %+v does not match the tree (id %d, parent %d, level %d, children %v)", r, tp, tab.ID[r], tree.Parent(tab.ID[r]), tab.Level[r], tree.Children(tab.ID[r]))
		}
		if len(tp.Words) != 20 {
			t.Errorf("topic %d lists %d words, want 20", tp.ID, len(tp.Words))
		}
		for i, w := range tp.Words {
			if w.Word != g.Vocab[words[r][i].Word] || w.Weight != float64(words[r][i].Weight) {
				t.Errorf("topic %d word %d: %+v, β says %s %g", tp.ID, i, w, g.Vocab[words[r][i].Word], words[r][i].Weight)
			}
			if i > 0 && w.Weight > tp.Words[i-1].Weight || !(w.Weight > 0 && w.Weight <= 1) {
				t.Errorf("topic %d: weights not decreasing probabilities: %+v", tp.ID, tp.Words)
			}
		}
		checkLiftWords(t, tp, r, m, g)
		if tp.Label == "" || tp.LabelSource != outputs.LabelAuto {
			t.Errorf("topic %d: label %q from %q, want an automatic label", tp.ID, tp.Label, tp.LabelSource)
		}
		if want := share[r] / lenSum; math.Abs(tp.Share-want) > 1e-9 {
			t.Errorf("topic %d share %g, want %g", tp.ID, tp.Share, want)
		}
		total += tp.Share
	}
	if math.Abs(total-1) > 1e-5 {
		t.Errorf("shares sum to %.8f", total)
	}
	if topics[0].Parent != -1 || topics[0].Level != 0 {
		t.Errorf("first topic %+v is not the root", topics[0])
	}
	for _, tp := range topics {
		for _, c := range tp.Children {
			if byID[c].Parent != tp.ID || byID[c].Level != tp.Level+1 {
				t.Errorf("child %d of %d has parent %d, level %d", c, tp.ID, byID[c].Parent, byID[c].Level)
			}
		}
	}
	return topics
}

// checkTopicsText parses topics.txt: one line per topic, depth-first,
// indented two spaces per level, "id Llevel (share%) words [· words]":
// the top-10 words by weight, those the parent's top 10 holds after "·".
func checkTopicsText(t *testing.T, dir string, topics []outputs.Topic) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "topics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[int]outputs.Topic{}
	for _, tp := range topics {
		byID[tp.ID] = tp
	}
	seen := map[int]bool{}
	sc := bufio.NewScanner(f)
	var order []int
	for sc.Scan() {
		line := sc.Text()
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		fields := strings.Fields(body)
		// The quoted label after the share, then the words.
		if len(fields) > 3 {
			head := strings.Join(fields[:3], " ") + " "
			q, err := strconv.QuotedPrefix(body[len(head):])
			if err != nil {
				t.Fatalf("line %q: no quoted label after the share: %v", line, err)
			}
			if id, _ := strconv.Atoi(fields[0]); byID[id].Label != mustUnquote(t, q) {
				t.Errorf("line %q: label %s, topics.json has %q", line, q, byID[id].Label)
			}
			fields = append(fields[:3], strings.Fields(body[len(head)+len(q):])...)
		}
		if len(fields) < 13 {
			t.Fatalf("line %q: want id, level, share and 10 words", line)
		}
		id, err := strconv.Atoi(fields[0])
		tp, ok := byID[id]
		if err != nil || !ok {
			t.Fatalf("line %q: unknown topic", line)
		}
		seen[id] = true
		order = append(order, id)
		if indent != 2*tp.Level {
			t.Errorf("topic %d at level %d indented %d spaces", id, tp.Level, indent)
		}
		if want := fmt.Sprintf("L%d", tp.Level); fields[1] != want {
			t.Errorf("topic %d level %s, want %s", id, fields[1], want)
		}
		if want := fmt.Sprintf("(%.1f%%)", 100*tp.Share); fields[2] != want {
			t.Errorf("topic %d share %s, want %s", id, fields[2], want)
		}
		inParent := map[string]bool{}
		if p, ok := byID[tp.Parent]; ok {
			for _, w := range p.Words[:10] {
				inParent[w.Word] = true
			}
		}
		var own, shared, got []string
		sep := false
		for _, w := range fields[3:] {
			switch {
			case w == "·":
				sep = true
			case sep:
				shared = append(shared, w)
			default:
				own = append(own, w)
			}
		}
		got = append(own, shared...)
		var wantOwn, wantShared []string
		for _, w := range tp.Words[:10] {
			if inParent[w.Word] {
				wantShared = append(wantShared, w.Word)
			} else {
				wantOwn = append(wantOwn, w.Word)
			}
		}
		if !slices.Equal(own, wantOwn) || !slices.Equal(shared, wantShared) || len(got) != 10 {
			t.Errorf("topic %d lists %v · %v, want %v · %v", id, own, shared, wantOwn, wantShared)
		}
	}
	if len(seen) != len(topics) || len(order) != len(topics) {
		t.Errorf("topics.txt lists %d lines for %d topics", len(order), len(topics))
	}
	// Depth-first: each line's parent appears above it, and is the
	// nearest line above at the parent's level.
	for i, id := range order[1:] {
		p := byID[id].Parent
		j := i
		for byID[order[j]].Level >= byID[id].Level {
			j--
		}
		if order[j] != p {
			t.Errorf("topic %d listed under %d, its parent is %d", id, order[j], p)
		}
	}
}

func checkArrays(t *testing.T, dir string, m *model.Model, g *corpus.Graph, res *evaluate.Result) {
	t.Helper()
	N, n, T := g.NumDocs(), m.Cfg.Width, m.Topics.Tables().T
	emb, err := npy.Read(filepath.Join(dir, "doc_embeddings.npy"))
	if err != nil {
		t.Fatal(err)
	}
	pts, ok := emb.Data.([]float32)
	if !ok || emb.Descr != "<f4" || !slices.Equal(emb.Shape, []int{N, n + 1}) {
		t.Fatalf("doc_embeddings.npy: %s %v, want <f4 [%d %d]", emb.Descr, emb.Shape, N, n+1)
	}
	if !slices.Equal(pts, res.Emb.Points) {
		t.Error("doc_embeddings.npy differs from the embeddings")
	}
	K := m.Cfg.Curvature
	for i := 0; i < N; i++ {
		row := pts[i*(n+1) : (i+1)*(n+1)]
		var ss float64
		for _, v := range row[1:] {
			ss += float64(v) * float64(v)
		}
		if x0 := float64(row[0]); math.Abs(x0-math.Sqrt(K+ss)) > 1e-5*x0 {
			t.Fatalf("document %d is off the hyperboloid: x0 %g, √(K+|x|²) %g", i, x0, math.Sqrt(K+ss))
		}
	}
	th, err := npy.Read(filepath.Join(dir, "doc_topics.npy"))
	if err != nil {
		t.Fatal(err)
	}
	theta, ok := th.Data.([]float32)
	if !ok || th.Descr != "<f4" || !slices.Equal(th.Shape, []int{N, T}) {
		t.Fatalf("doc_topics.npy: %s %v, want <f4 [%d %d]", th.Descr, th.Shape, N, T)
	}
	for i := 0; i < N; i++ {
		var s float64
		for _, v := range theta[i*T : (i+1)*T] {
			if v < 0 {
				t.Fatalf("document %d has θ entry %g", i, v)
			}
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("document %d: θ sums to %.7f", i, s)
		}
	}
}

// checkMetrics decodes metrics.json generically and checks the issue's
// schema: the top-level keys, the test keys present exactly when they apply
// (labels and test links here; supervised keys only when supervised; the
// number of queries, every test document here, not sampled, so no standard
// errors), and the topic keys.
func checkMetrics(t *testing.T, dir string, supervised bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var met map[string]any
	if err := json.Unmarshal(raw, &met); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for k, want := range map[string]any{"dataset": "synth", "seed": 3.0, "supervised": supervised, "train_seconds": 1.5, "epochs": 2.0} {
		if met[k] != want {
			t.Errorf("metrics.json %q = %v, want %v", k, met[k], want)
		}
	}
	if got := keys(met); !slices.Equal(got, []string{"dataset", "epochs", "seed", "supervised", "test", "topics", "train_seconds"}) {
		t.Errorf("metrics.json keys %v", got)
	}
	test, _ := met["test"].(map[string]any)
	wantTest := []string{"eval_queries", "eval_sampled", "knn_macro_f1", "knn_micro_f1", "link_auc", "log_perplexity", "log_perplexity_completion"}
	if supervised {
		wantTest = append(wantTest, "sup_macro_f1", "sup_micro_f1")
	}
	if got := keys(test); !slices.Equal(got, wantTest) {
		t.Errorf("metrics.json test keys %v, want %v", got, wantTest)
	}
	if q, sampled := test["eval_queries"], test["eval_sampled"]; q != 16.0 || sampled != false {
		t.Errorf("metrics.json eval_queries %v, eval_sampled %v: want the 16 test documents, not sampled", q, sampled)
	}
	delete(test, "eval_queries")
	delete(test, "eval_sampled")
	for k, v := range test {
		f, ok := v.(float64)
		if !ok || (!strings.HasPrefix(k, "log_perplexity") && !(f >= 0 && f <= 100)) {
			t.Errorf("test %s = %v: not a percentage", k, v)
		}
	}
	topics, _ := met["topics"].(map[string]any)
	for _, k := range []string{"count", "depth", "npmi", "diversity"} {
		if _, ok := topics[k].(float64); !ok {
			t.Errorf("metrics.json topics lacks number %q: %v", k, topics)
		}
	}
}

// checkLiftWords checks a topic's lift words against β: none for the root;
// otherwise 20 words in decreasing relevance 0.6 log β_t + 0.4 log(β_t/β_p),
// each with its weight β_t(w) and lift β_t(w)/β_p(w), and no word outside
// them more relevant than the last.
func checkLiftWords(t *testing.T, tp outputs.Topic, r int, m *model.Model, g *corpus.Graph) {
	t.Helper()
	tab := m.Topics.Tables()
	p := tab.Parent[r]
	if p < 0 {
		if len(tp.LiftWords) != 0 {
			t.Errorf("the root lists lift words %v", tp.LiftWords)
		}
		return
	}
	beta := m.Beta()
	V := len(g.Vocab)
	bt, bp := beta[r*V:(r+1)*V], beta[int(p)*V:int(p+1)*V]
	rel := func(w int) float64 {
		return 0.6*math.Log(float64(bt[w])) + 0.4*math.Log(float64(bt[w])/float64(bp[w]))
	}
	if len(tp.LiftWords) != 20 {
		t.Fatalf("topic %d lists %d lift words, want 20", tp.ID, len(tp.LiftWords))
	}
	idx := map[string]int{}
	for w, s := range g.Vocab {
		idx[s] = w
	}
	listed := map[int]bool{}
	last := math.Inf(1)
	for _, x := range tp.LiftWords {
		w := idx[x.Word]
		listed[w] = true
		if x.Weight != float64(bt[w]) || math.Abs(x.Lift-float64(bt[w])/float64(bp[w])) > 1e-9*x.Lift {
			t.Errorf("topic %d lift word %+v: β_t %g, β_parent %g", tp.ID, x, bt[w], bp[w])
		}
		if r := rel(w); r > last+1e-12 {
			t.Errorf("topic %d: lift words not in decreasing relevance at %q", tp.ID, x.Word)
		} else {
			last = r
		}
	}
	for w := range V {
		if !listed[w] && rel(w) > last+1e-12 {
			t.Errorf("topic %d: %q (relevance %g) is missing from the lift words (last %g)", tp.ID, g.Vocab[w], rel(w), last)
		}
	}
}

func mustUnquote(t *testing.T, q string) string {
	t.Helper()
	s, err := strconv.Unquote(q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteTopicsTextByLift renders a hand-made three-topic tree: the child
// lists its own words first, then those of the parent's top 10 after "·";
// by lift it lists its lift words; a child missing from the topics is an
// error.
func TestWriteTopicsTextByLift(t *testing.T) {
	wp := func(ws ...string) []outputs.WordProb {
		out := make([]outputs.WordProb, len(ws))
		for i, w := range ws {
			out[i] = outputs.WordProb{Word: w, Weight: 1 / float64(i+2)}
		}
		return out
	}
	topics := []outputs.Topic{
		{ID: 0, Parent: -1, Level: 0, Children: []int{4}, Words: wp("the", "of", "model"), Share: 0.25},
		{ID: 4, Parent: 0, Level: 1, Children: []int{}, Words: wp("model", "neural", "the", "network"), LiftWords: wp("neural", "network"), Share: 0.75,
			Label: `nets "deep"`, LabelSource: outputs.LabelUser},
	}
	for _, tc := range []struct {
		opt  outputs.TextOptions
		want string
	}{
		{outputs.TextOptions{}, "0 L0 (25.0%) the of model\n  4 L1 (75.0%) \"nets \\\"deep\\\"\" neural network · model the\n"},
		{outputs.TextOptions{ByLift: true}, "0 L0 (25.0%) the of model\n  4 L1 (75.0%) \"nets \\\"deep\\\"\" neural network\n"},
	} {
		var b strings.Builder
		if err := outputs.WriteTopicsText(&b, topics, tc.opt); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%+v: got\n%s\nwant\n%s", tc.opt, b.String(), tc.want)
		}
	}
	topics[0].Children = []int{4, 9}
	if err := outputs.WriteTopicsText(io.Discard, topics, outputs.TextOptions{}); err == nil || !strings.HasPrefix(err.Error(), "outputs: topic 0 lists child 9") {
		t.Errorf("a missing child: error %v", err)
	}
}

// checkMeta: meta.jsonl holds the corpus's labels (and fields), one line
// per document in corpus order.
func checkMeta(t *testing.T, dir string, g *corpus.Graph) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, outputs.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields, err := corpus.ReadMeta(f, outputs.MetaFile, g.NumDocs())
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 1 || fields[0].Name != corpus.LabelField {
		t.Fatalf("meta.jsonl fields %v, want the labels", len(fields))
	}
	for i, l := range g.Labels {
		if fields[0].Values[i] != g.LabelNames[l] {
			t.Fatalf("document %d: label %q, want %q", i, fields[0].Values[i], g.LabelNames[l])
		}
	}
}
