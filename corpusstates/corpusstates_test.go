package corpusstates

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
)

// testCorpus is a small planted-tree corpus with a hub: document 0 links
// to more documents than the tests' neighbour cap.
func testCorpus(t testing.TB) *corpus.Graph {
	t.Helper()
	g, _, err := synth.Generate(synth.Config{Docs: 60, Vocab: 80, Depth: 2, Branching: 3, Links: 120, MeanLength: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	links := slices.Clone(g.Links)
	for d := int32(1); d < 20; d++ {
		links = append(links, [2]int32{0, d})
	}
	g.SetLinks(links)
	return g
}

// testModel is an untrained model over g with layers layers, hops hops
// and the default hop features (their basis fitted on g), saved in a
// temporary directory (for the weights' hash).
func testModel(t testing.TB, g *corpus.Graph, layers, hops int) (*model.Model, string) {
	t.Helper()
	cfg := model.Default()
	if cfg.FeatureHops == 0 {
		t.Fatal("the default model reads no hop features: these tests mean to cover them")
	}
	cfg.Width, cfg.Layers, cfg.Heads, cfg.MLPHidden, cfg.MaxLen = 8, layers, 2, 16, 10
	cfg.Hops, cfg.Dropout = hops, 0
	cfg.Tree.InitDepth, cfg.Tree.Branching = 2, 2
	cfg.Vocab = len(g.Vocab)
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int32, g.NumDocs())
	for i := range all {
		all[i] = int32(i)
	}
	if err := m.Prepare(g, all, 7); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(dir, 7); err != nil {
		t.Fatal(err)
	}
	return m, dir
}

// readExport reads an export back through ReadMeta and ParseRecord.
func readExport(t testing.TB, dir string) (*Meta, []*Record) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	meta, err := ReadMeta(f, MetaFile)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		r, err := ParseRecord(sc.Bytes(), meta)
		if err != nil {
			t.Fatalf("line %d: %v", len(recs)+1, err)
		}
		recs = append(recs, r)
	}
	return meta, recs
}

// TestExportHoldsTheCorpusAndItsStates: every record carries its
// document's words and links and exactly the own-text states Refresh
// computes in-process; the meta names the weights they belong to.
func TestExportHoldsTheCorpusAndItsStates(t *testing.T) {
	g := testCorpus(t)
	m, modelDir := testModel(t, g, 3, 2)
	out := t.TempDir()
	if err := Export(out, modelDir, m, g, 16); err != nil {
		t.Fatal(err)
	}
	meta, recs := readExport(t, out)
	sum, err := model.SavedWeightsSHA256(modelDir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Docs != g.NumDocs() || meta.Layers != 2 || meta.Width != 8 || !meta.LineNumberIDs ||
		meta.WeightsSHA256 != sum || !slices.Equal(meta.Vocab, g.Vocab) || len(recs) != g.NumDocs() {
		t.Fatalf("meta %+v with %d records", meta, len(recs))
	}
	in := m.Inputs(g, func(d int32) []int32 { return g.Neighbors(int(d)) })
	all := make([]int32, g.NumDocs())
	for i := range all {
		all[i] = int32(i)
	}
	c := m.NewCache(g.NumDocs())
	m.Refresh(c, in, all, 16)
	for i, r := range recs {
		if r.ID != strings.TrimSpace(r.ID) || r.Index != int32(i) || !slices.Equal(r.Words, g.Doc(i)) || !slices.Equal(r.Links, g.Neighbors(i)) {
			t.Fatalf("record %d: id %q index %d, words or links differ from the corpus", i, r.ID, r.Index)
		}
		want := append(slices.Clone(c.Row(0, i)), c.Row(1, i)...)
		if !slices.Equal(r.States, want) {
			t.Fatalf("record %d: states differ from Refresh", i)
		}
	}
}

// TestEmbeddingThroughStatesEqualsEmbed is the point of the export: new
// documents linking to corpus documents and to each other, embedded with
// the corpus read only from the records (words, links, own-text states),
// get the numbers Model.Embed gives over the extended corpus, with one hop
// and with two (where a linked corpus document is re-encoded over its own
// neighbours and the new documents that link to it).
func TestEmbeddingThroughStatesEqualsEmbed(t *testing.T) {
	g := testCorpus(t)
	const maxNbrs, batch = 4, 8
	newDocs := `{"id": "a", "text": "` + words(g, 3) + `", "links": ["0", "5", "b"]}
{"id": "b", "text": "` + words(g, 8) + `", "links": [7, "c"]}
{"id": "c", "text": "` + words(g, 11) + `"}
{"id": "d", "text": "` + words(g, 40) + `", "links": ["0"]}
{"id": "e", "text": "", "links": ["a", "0", "1", "2", "3", "4"]}
`
	path := filepath.Join(t.TempDir(), "new.jsonl")
	if err := os.WriteFile(path, []byte(newDocs), 0o644); err != nil {
		t.Fatal(err)
	}
	nd, err := corpus.ReadNewDocs(path, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, hops := range []int{1, 2} {
		m, modelDir := testModel(t, g, 3, hops)
		e := g.Extend(nd)
		var news []int32
		for i := g.NumDocs(); i < e.NumDocs(); i++ {
			news = append(news, int32(i))
		}
		nbrs := func(d int32) []int32 { return e.Neighbors(int(d)) }
		want := m.Embed(m.Inputs(e, nbrs), news, nbrs, maxNbrs, batch)

		out := t.TempDir()
		if err := Export(out, modelDir, m, g, batch); err != nil {
			t.Fatal(err)
		}
		_, recs := readExport(t, out)
		got := embedThroughRecords(m, recs, nd, maxNbrs, batch)
		// Batches are laid out differently on the two paths, and BLAS
		// rounds a row by its batch: float32 rounding, far below what a
		// missing neighbour changes (1e-5 in this untrained model).
		for i := range want.Points {
			if math.Abs(float64(got.Points[i]-want.Points[i])) > 1e-6 {
				t.Fatalf("hops %d: point value %d = %v, want %v", hops, i, got.Points[i], want.Points[i])
			}
		}
		for i := range want.Theta {
			if math.Abs(float64(got.Theta[i]-want.Theta[i])) > 1e-6 {
				t.Fatalf("hops %d: θ value %d = %v, want %v", hops, i, got.Theta[i], want.Theta[i])
			}
		}
	}
}

// words returns document d's words as text.
func words(g *corpus.Graph, d int) string {
	var s []string
	for _, w := range g.Doc(d) {
		s = append(s, g.Vocab[w])
	}
	return strings.Join(s, " ")
}

// embedThroughRecords embeds the new documents of nd reading the corpus
// from recs only: corpus words and links from the records, own-text states
// of corpus documents from the records, those of new documents computed.
// With hop features (the default), the new documents' links change the
// features of the corpus documents near them: the features are propagated
// over the links the records give, and every state is computed.
func embedThroughRecords(m *model.Model, recs []*Record, nd *corpus.NewDocs, maxNbrs, batch int) *model.Embeddings {
	known := len(recs)
	n := known + len(nd.IDs)
	all := make([][]int32, n)
	adj := make([][]int32, n)
	for _, r := range recs {
		all[r.Index] = r.Words
		adj[r.Index] = slices.Clone(r.Links)
	}
	for i, w := range nd.Tokens {
		all[known+i] = w
	}
	for _, l := range nd.Links {
		if l[0] != l[1] {
			adj[l[0]] = append(adj[l[0]], l[1])
			adj[l[1]] = append(adj[l[1]], l[0])
		}
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	nbrs := func(d int32) []int32 { return adj[d] }
	in := m.DocInputs(all)
	m.PropagateFeatures(in, nbrs)
	var news []int32
	for i := known; i < n; i++ {
		news = append(news, int32(i))
	}
	own := m.NewCache(n)
	for _, r := range recs {
		for l := range own.Layers {
			copy(own.Row(l, int(r.Index)), r.States[l*own.Width:(l+1)*own.Width])
		}
	}
	if m.Cfg.FeatureHops > 0 {
		m.Refresh(own, in, allDocs(n), batch)
	} else {
		m.Refresh(own, in, news, batch)
	}
	states := own
	if m.Cfg.NestedNeighbors() {
		var centres []int32
		for _, d := range news {
			l := adj[d]
			if len(l) == 0 {
				l = []int32{d}
			}
			centres = append(centres, model.CapList(l, maxNbrs)...)
		}
		slices.Sort(centres)
		states = m.NewCache(n)
		m.NestedStates(own, in, slices.Compact(centres), nbrs, maxNbrs, batch, states)
	}
	return m.EmbedCached(in, news, nbrs, maxNbrs, batch, states)
}

func TestParseRecordErrors(t *testing.T) {
	meta := &Meta{Format: Format, Docs: 3, Layers: 1, Width: 2, Vocab: []string{"a", "b"}}
	good := (&Record{ID: "x", Index: 1, Words: []int32{0, 1}, Links: []int32{0, 2}, States: []float32{1.5, -2}})
	line, err := good.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRecord(line, meta)
	if err != nil || r.ID != "x" || r.Index != 1 || !slices.Equal(r.States, good.States) || !slices.Equal(r.Links, good.Links) {
		t.Fatalf("round trip: %+v, %v", r, err)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"id": "", "index": 0, "words": [], "links": [], "states": "AAAAAAAAAAA="}`, "empty id"},
		{`{"id": "x", "index": 3, "words": [], "links": [], "states": ""}`, "index 3 outside [0, 3)"},
		{`{"id": "x", "index": 0, "words": [2], "links": [], "states": ""}`, "word id 2 outside"},
		{`{"id": "x", "index": 0, "words": [], "links": [0], "states": ""}`, "link to 0"},
		{`{"id": "x", "index": 0, "words": [], "links": [], "states": "AAAA"}`, "states hold 3 bytes, want 8"},
		{`{"id": "x", "index": 0, "words": [], "links": [], "states": "!"}`, "states: illegal base64"},
		{`{"id": "x", "index": 0, "words": [], "links": [], "states": "AADAfwAAAAA="}`, "is NaN"},
		{`{"id": "x", "index": 0, "extra": 1}`, "unknown field"},
		{`{"id": "x", "index": 0, "states": ""} {}`, "more than one value"},
	} {
		if _, err := ParseRecord([]byte(tc.line), meta); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.want)
		}
	}
}

func TestReadMetaErrors(t *testing.T) {
	sum := strings.Repeat("0", 64)
	for _, tc := range []struct{ in, want string }{
		{`{"format": "other", "docs": 1, "layers": 1, "width": 2, "vocab": ["a"], "weights_sha256": "` + sum + `"}`, `format "other"`},
		{`{"format": "` + Format + `", "docs": 0, "layers": 1, "width": 2, "vocab": ["a"], "weights_sha256": "` + sum + `"}`, "0 documents"},
		{`{"format": "` + Format + `", "docs": 1, "layers": 1, "width": 2, "vocab": [], "weights_sha256": "` + sum + `"}`, "no vocabulary"},
		{`{"format": "` + Format + `", "docs": 1, "layers": 1, "width": 2, "vocab": ["a"], "weights_sha256": "x"}`, "not a SHA-256"},
		{`{"format": "` + Format + `", "size": 3}`, "unknown field"},
	} {
		if _, err := ReadMeta(strings.NewReader(tc.in), "m.json"); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "corpusstates: m.json: ") {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	meta := &Meta{Format: Format, Docs: 4, Layers: 2, Width: 1, Vocab: []string{"a", "b", "c"}}
	f.Add([]byte(`{"id": "x", "index": 1, "words": [0, 2], "links": [0, 3], "states": "AADAPwAAAEA="}`))
	f.Add([]byte(`{"id": "7", "index": 3, "words": [], "links": [], "states": "AAAAAAAAAAA="}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseRecord(line, meta)
		if err != nil {
			return
		}
		if r.ID == "" || r.Index < 0 || int(r.Index) >= meta.Docs || len(r.States) != meta.Layers*meta.Width {
			t.Fatalf("accepted %+v", r)
		}
		for _, l := range r.Links {
			if l < 0 || int(l) >= meta.Docs || l == r.Index {
				t.Fatalf("accepted link %d of %+v", l, r)
			}
		}
		back, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if again, err := ParseRecord(back, meta); err != nil || !slices.Equal(again.States, r.States) || !slices.Equal(again.Words, r.Words) {
			t.Fatalf("re-read of %s: %+v, %v", back, again, err)
		}
	})
}

// allDocs returns 0..n-1.
func allDocs(n int) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(i)
	}
	return d
}
