package baseline

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/metrics"
)

// newGraph builds a graph from documents (word-id lists) and links.
func newGraph(vocab int, docs [][]int32, links [][2]int32, labels []int32) *corpus.Graph {
	g := &corpus.Graph{Name: "test", DocPtr: []int64{0}, Labels: labels}
	for w := range vocab {
		g.Vocab = append(g.Vocab, string(rune('a'+w%26))+string(rune('a'+w/26)))
	}
	for _, d := range docs {
		g.Tokens = append(g.Tokens, d...)
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	g.SetLinks(links)
	return g
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestTFIDF(t *testing.T) {
	// Five documents over 3 words; PaperSplit trains on the first 4 and
	// tests on d4. By hand (scikit-learn TfidfTransformer: smooth_idf,
	// norm='l2', raw counts), with n = 4 training documents and df
	// counted on them: df = (2, 3, 1), so
	//   idf0 = ln(5/3)+1, idf1 = ln(5/4)+1, idf2 = ln(5/2)+1.
	// d0 = counts (2,1,0) → (2·idf0, idf1) / ‖·‖; d2 = (0,1,1) → (idf1, idf2)/‖·‖;
	// d1, d3, d4 hold one distinct word each → a unit vector. d4's word 2
	// has training df 1 (d2); the test document's own occurrence must not
	// count.
	g := newGraph(3, [][]int32{{0, 1, 0}, {1}, {2, 1}, {0}, {2, 2}}, nil, nil)
	s := corpus.PaperSplit(g)
	v := TFIDF(g, s)
	idf0, idf1, idf2 := math.Log(5.0/3)+1, math.Log(5.0/4)+1, math.Log(5.0/2)+1
	n0 := math.Hypot(2*idf0, idf1)
	n2 := math.Hypot(idf1, idf2)
	want := []float32{
		float32(2 * idf0 / n0), float32(idf1 / n0), 0,
		0, 1, 0,
		0, float32(idf1 / n2), float32(idf2 / n2),
		1, 0, 0,
		0, 0, 1,
	}
	got, err := v.Dense()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !near(float64(got[i]), float64(want[i]), 1e-6) {
			t.Fatalf("tf-idf\n got %v\nwant %v", got, want)
		}
	}
	// Cross-check of the hand values: d0 ≈ (0.92694, 0.37522, 0).
	if !near(float64(got[0]), 0.92694, 1e-5) || !near(float64(got[1]), 0.37522, 1e-5) {
		t.Errorf("d0 = %v, want ≈ (0.92694, 0.37522)", got[:3])
	}
	if v.NNZ() != 7 {
		t.Errorf("NNZ = %d, want 7 (one entry per distinct word of each document)", v.NNZ())
	}
}

func TestSmooth(t *testing.T) {
	// Ten documents: PaperSplit trains on 0..7 and tests on 8, 9. Links
	// 0–1, 1–2, 2–8 (test to training), 8–9 (among test documents: held
	// out, never used), 3–9. The split's neighbour lists: 0:{1}, 1:{0,2},
	// 2:{1}, 3:{}, 8:{2}, 9:{3}. With x_i = i (a 1-D vector), by hand:
	//   hop 1: y0 = (0+1)/2 = 0.5, y1 = (1+0+2)/3 = 1, y2 = (2+1)/2 = 1.5,
	//          y3 = 3, y8 = (8+2)/2 = 5, y9 = (9+3)/2 = 6, y4..7 = i
	//   hop 2: z0 = (0.5+1)/2 = 0.75, z1 = (1+0.5+1.5)/3 = 1,
	//          z2 = (1.5+1)/2 = 1.25, z3 = 3, z8 = (5+1.5)/2 = 3.25,
	//          z9 = (6+3)/2 = 4.5, z4..7 = i
	docs := make([][]int32, 10)
	g := newGraph(1, docs, [][2]int32{{0, 1}, {1, 2}, {2, 8}, {8, 9}, {3, 9}}, nil)
	s := corpus.PaperSplit(g)
	x := &Vectors{Dim: 1, Ptr: []int64{0}}
	for i := range 10 {
		if i > 0 {
			x.Idx = append(x.Idx, 0)
			x.Val = append(x.Val, float32(i))
		}
		x.Ptr = append(x.Ptr, int64(len(x.Idx)))
	}
	got, _ := Smooth(x, s, 2).Dense()
	want := []float32{0.75, 1, 1.25, 3, 4, 5, 6, 7, 3.25, 4.5}
	if !slices.Equal(got, want) {
		t.Errorf("two hops\n got %v\nwant %v", got, want)
	}
	got1, _ := Smooth(x, s, 1).Dense()
	if want1 := []float32{0.5, 1, 1.5, 3, 4, 5, 6, 7, 5, 6}; !slices.Equal(got1, want1) {
		t.Errorf("one hop\n got %v\nwant %v", got1, want1)
	}
}

func TestMeanWordVectors(t *testing.T) {
	// Word vectors (V=3, D=2): w0 = (1,0), w1 = (0,2), w2 = (3,3). Document
	// [0,0,1] averages over its three tokens: (2,2)/3; [] is the zero vector.
	g := newGraph(3, [][]int32{{0, 0, 1}, {}, {2}}, nil, nil)
	g.WordVectors, g.WordDim = []float32{1, 0, 0, 2, 3, 3}, 2
	v, err := MeanWordVectors(g)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.Dense()
	if want := []float32{2.0 / 3, 2.0 / 3, 0, 0, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	g.WordVectors, g.WordDim = nil, 0
	if _, err := MeanWordVectors(g); err != ErrNoWordVectors {
		t.Errorf("without vectors: err = %v, want ErrNoWordVectors", err)
	}
}

// TestEvaluateMatchesDense checks Evaluate's sparse kNN and link scores
// against package metrics run on the dense matrix (an independent path),
// for both the Gram-matrix and the per-pair link scoring.
func TestEvaluateMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	const n, V = 80, 30
	docs := make([][]int32, n)
	labels := make([]int32, n)
	for i := range docs {
		labels[i] = int32(rng.IntN(3))
		for range 1 + rng.IntN(8) {
			// Words drawn near the label's range so kNN has signal.
			docs[i] = append(docs[i], int32((int(labels[i])*10+rng.IntN(14))%V))
		}
	}
	var links [][2]int32
	for range 150 {
		links = append(links, [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))})
	}
	g := newGraph(V, docs, links, labels)
	s := corpus.PaperSplit(g)
	x := Smooth(TFIDF(g, s), s, 2)
	dense, _ := x.Dense()

	var yTrain, yTest []int32
	trainRows, testRows := []float32{}, []float32{}
	for _, d := range s.Train {
		yTrain = append(yTrain, labels[d])
		trainRows = append(trainRows, dense[int(d)*V:int(d+1)*V]...)
	}
	for _, d := range s.Test {
		yTest = append(yTest, labels[d])
		testRows = append(testRows, dense[int(d)*V:int(d+1)*V]...)
	}
	pred := metrics.KNN(trainRows, yTrain, testRows, V, 5)
	wantCos, wantDocs := metrics.LinkAUC(s.Test, s.TestLinks, metrics.Cosine(dense, V))
	wantSq, _ := metrics.LinkAUC(s.Test, s.TestLinks, metrics.NegSqEuclidean(dense, V))
	if wantDocs == 0 {
		t.Fatal("test graph has no held-out links; the check would be empty")
	}
	for _, gram := range []int{4096, 0} {
		old := maxGram
		maxGram = gram
		m := Evaluate(g, s, x, 5)
		maxGram = old
		if !near(m.MicroF1, metrics.MicroF1(yTest, pred), 1e-9) || !near(m.MacroF1, metrics.MacroF1(yTest, pred), 1e-9) {
			t.Errorf("maxGram %d: F1 %v/%v, dense path %v/%v", gram, m.MicroF1, m.MacroF1, metrics.MicroF1(yTest, pred), metrics.MacroF1(yTest, pred))
		}
		if !near(m.LinkAUC, wantCos, 1e-6) || !near(m.LinkAUCSqDist, wantSq, 1e-6) || m.LinkDocs != wantDocs {
			t.Errorf("maxGram %d: link AUC %v/%v over %d, dense path %v/%v over %d", gram, m.LinkAUC, m.LinkAUCSqDist, m.LinkDocs, wantCos, wantSq, wantDocs)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods {
		if got, err := ParseMethod(string(m)); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("bm25"); err == nil {
		t.Error("ParseMethod(bm25) succeeded")
	}
}

// TestSharedDatasets reproduces the baseline table of docs/design.md,
// "Baselines", within ±0.5 points.
func TestSharedDatasets(t *testing.T) {
	type want struct{ micro, macro, auc float64 } // NaN: not listed
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		tfidf      want
		tfidfGraph want
		tfidfSIGN  want // the hops 0..3 figures issue 14 quotes (found on the test split while exploring)
	}{
		{"ml", want{74.1, nan, 81.5}, want{84.5, 83.7, 93.7}, want{86.1, nan, 95.0}},
		{"pl", want{61.7, nan, 83.5}, want{75.2, 69.2, 94.9}, want{75.6, nan, 96.0}},
		{"covid", want{82.7, nan, 99.7}, want{80.3, 80.1, 96.0}, want{nan, nan, nan}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := corpus.LoadFolder(shared.Dataset(t, tc.name), corpus.LoadOptions{NoWordVectors: true})
			if err != nil {
				t.Fatal(err)
			}
			s := corpus.PaperSplit(g)
			for _, c := range []struct {
				m Method
				w want
			}{{TFIDFMethod, tc.tfidf}, {TFIDFGraphMethod, tc.tfidfGraph}, {TFIDFSIGNMethod, tc.tfidfSIGN}} {
				r, err := Run(g, s, c.m)
				if err != nil {
					t.Fatal(err)
				}
				got := r.Metrics
				for _, p := range []struct {
					name      string
					got, want float64
				}{{"Micro-F1", got.MicroF1, c.w.micro}, {"Macro-F1", got.MacroF1, c.w.macro}, {"link AUC", got.LinkAUC, c.w.auc}} {
					if !math.IsNaN(p.want) && !near(p.got, p.want, 0.5) {
						t.Errorf("%s %s = %.2f, docs/design.md %.1f", c.m, p.name, p.got, p.want)
					}
				}
				t.Logf("%-12s Micro-F1 %.2f Macro-F1 %.2f AUC(cos) %.2f AUC(-d²) %.2f over %d docs, %v",
					c.m, got.MicroF1, got.MacroF1, got.LinkAUC, got.LinkAUCSqDist, got.LinkDocs, r.Elapsed)
			}
		})
	}
}

// TestSIGN against a hand computation on TestSmooth's graph with a 2-D
// feature: hop k rows are Smooth(x, k), each normalised, then averaged.
func TestSIGN(t *testing.T) {
	docs := make([][]int32, 10)
	g := newGraph(2, docs, [][2]int32{{0, 1}, {1, 2}, {2, 8}, {8, 9}, {3, 9}}, nil)
	s := corpus.PaperSplit(g)
	// x_i = (i, 1): the unit rows of the hops differ in direction.
	x := &Vectors{Dim: 2, Ptr: []int64{0}}
	for i := range 10 {
		if i > 0 {
			x.Idx = append(x.Idx, 0)
			x.Val = append(x.Val, float32(i))
		}
		x.Idx = append(x.Idx, 1)
		x.Val = append(x.Val, 1)
		x.Ptr = append(x.Ptr, int64(len(x.Idx)))
	}
	// Document 1: hop 0 (1,1); hop 1 mean of (0,1),(1,1),(2,1) = (1,1);
	// document 0: hop 0 (0,1); hop 1 mean of (0,1),(1,1) = (0.5,1).
	unit := func(a, b float64) [2]float64 { n := math.Hypot(a, b); return [2]float64{a / n, b / n} }
	for _, tc := range []struct {
		doc  int
		hops [][2]float64
	}{
		{1, [][2]float64{unit(1, 1), unit(1, 1)}},
		{0, [][2]float64{unit(0, 1), unit(0.5, 1)}},
		{8, [][2]float64{unit(8, 1), unit(5, 1)}}, // a test document: its training neighbour 2 only
	} {
		got, _ := SIGN(x, s, 1).Dense()
		for c := 0; c < 2; c++ {
			want := (tc.hops[0][c] + tc.hops[1][c]) / 2
			if !near(float64(got[tc.doc*2+c]), want, 1e-6) {
				t.Errorf("document %d: SIGN = %v, want %.6f in column %d", tc.doc, got[tc.doc*2:tc.doc*2+2], want, c)
			}
		}
	}
	zero, _ := SIGN(x, s, 0).Dense()
	if !near(float64(zero[3*2]), 3/math.Hypot(3, 1), 1e-6) {
		t.Errorf("zero hops: %v, want the normalised rows", zero[6:8])
	}
}

// TestErrorMessages: the errors a caller gets start with "baseline: " once;
// an lda failure names the method after it.
func TestErrorMessages(t *testing.T) {
	noVectors := newGraph(3, [][]int32{{0, 1}, {2}}, [][2]int32{{0, 1}}, nil)
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"unknown method", func() error { _, err := ParseMethod("bm25"); return err }, `baseline: unknown baseline method "bm25"`},
		{"glove-graph without word vectors", func() error {
			_, err := Run(noVectors, &corpus.Split{Train: []int32{0, 1}}, GloVeGraphMethod)
			return err
		}, "baseline: the dataset has no word vectors"},
		{"lda without training documents", func() error {
			_, err := RunLDA(noVectors, &corpus.Split{}, DefaultLDAOptions())
			return err
		}, "baseline: lda: the split has no training documents"},
	} {
		err := tc.run()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Count(err.Error(), "baseline: ") != 1 {
			t.Errorf("%s: err = %v, want %q...", tc.name, err, tc.want)
		}
	}
}
