package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

func close(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

// TestSharedVectors checks kNN predictions, Micro/Macro-F1 and ROC-AUC
// against scikit-learn 1.2.1 (KNeighborsClassifier, f1_score, roc_auc_score)
// as recorded in ../shared/testvectors/metrics.json; the data has many tied
// votes and tied scores.
func TestSharedVectors(t *testing.T) {
	raw, err := os.ReadFile(shared.Path(t, "testvectors/metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		KNN struct {
			K         int         `json:"k"`
			XTrain    [][]float64 `json:"X_train"`
			YTrain    []int32     `json:"y_train"`
			XTest     [][]float64 `json:"X_test"`
			YTest     []int32     `json:"y_test"`
			Predicted []int32     `json:"predicted"`
			MicroF1   float64     `json:"micro_f1"`
			MacroF1   float64     `json:"macro_f1"`
		} `json:"knn"`
		AUC struct {
			Scores []float64 `json:"scores"`
			Labels []int     `json:"labels"`
			ROCAUC float64   `json:"roc_auc"`
		} `json:"auc"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	flat := func(x [][]float64) ([]float32, int) {
		var out []float32
		for _, r := range x {
			for _, c := range r {
				out = append(out, float32(c))
			}
		}
		return out, len(x[0])
	}
	tr, dim := flat(v.KNN.XTrain)
	te, _ := flat(v.KNN.XTest)
	pred := KNN(tr, v.KNN.YTrain, te, dim, v.KNN.K)
	if !slices.Equal(pred, v.KNN.Predicted) {
		t.Errorf("KNN predictions\n got %v\nwant %v", pred, v.KNN.Predicted)
	}
	if got := MicroF1(v.KNN.YTest, pred); !close(got, v.KNN.MicroF1, 1e-12) {
		t.Errorf("MicroF1 = %v, want %v", got, v.KNN.MicroF1)
	}
	if got := MacroF1(v.KNN.YTest, pred); !close(got, v.KNN.MacroF1, 1e-12) {
		t.Errorf("MacroF1 = %v, want %v", got, v.KNN.MacroF1)
	}
	pos := make([]bool, len(v.AUC.Labels))
	for i, l := range v.AUC.Labels {
		pos[i] = l == 1
	}
	if got := ROCAUC(v.AUC.Scores, pos); !close(got, v.AUC.ROCAUC, 1e-12) {
		t.Errorf("ROCAUC = %v, want %v", got, v.AUC.ROCAUC)
	}
}

func TestKNNTies(t *testing.T) {
	tests := []struct {
		name   string
		train  []float32 // 1-D points
		y      []int32
		test   []float32
		k      int
		want   []int32
		source string
	}{
		{
			// Votes 2:2 between labels 3 and 1 among the 4 nearest: the
			// smallest label wins (scipy.stats.mode, used by scikit-learn).
			name: "tied vote -> smallest label", train: []float32{0, 1, 2, 3, 100}, y: []int32{3, 1, 3, 1, 0},
			test: []float32{1.5}, k: 4, want: []int32{1},
		},
		{
			// Training points 0 and 2 are both at distance 1 from the query and
			// k = 1: the lower training index (label 7) is the neighbour.
			name: "equidistant neighbours -> lower training index", train: []float32{0, 5, 2}, y: []int32{7, 9, 4},
			test: []float32{1}, k: 1, want: []int32{7},
		},
		{
			// Same query, k = 2: {0, 2} are the neighbours (labels 7, 4): 1:1,
			// smallest label 4. Index 1 (distance 4) is not among them.
			name: "k=2 among equidistant", train: []float32{0, 5, 2}, y: []int32{7, 9, 4},
			test: []float32{1}, k: 2, want: []int32{4},
		},
		{
			// Duplicated training points at the query; the farther majority
			// (label 0, three votes) wins with k = 5.
			name: "plain majority", train: []float32{0, 0, 10, 11, 12}, y: []int32{5, 6, 0, 0, 0},
			test: []float32{0}, k: 5, want: []int32{0},
		},
		{
			name: "k clamped to training size", train: []float32{0, 1}, y: []int32{2, 2},
			test: []float32{9, -9}, k: 50, want: []int32{2, 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := KNN(tc.train, tc.y, tc.test, 1, tc.k); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// naiveKNN is the definition of KNN written plainly: float64 distances by
// direct differences, a full stable sort, and a counting vote.
func naiveKNN(train []float32, y []int32, test []float32, dim, k int) []int32 {
	nTr := len(train) / dim
	out := make([]int32, len(test)/dim)
	for i := range out {
		d := make([]float64, nTr)
		idx := make([]int, nTr)
		for j := range d {
			idx[j] = j
			for c := range dim {
				x := float64(test[i*dim+c]) - float64(train[j*dim+c])
				d[j] += x * x
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return d[idx[a]] < d[idx[b]] })
		count := map[int32]int{}
		for _, j := range idx[:k] {
			count[y[j]]++
		}
		best, bestN := int32(math.MaxInt32), -1
		for l, n := range count {
			if n > bestN || (n == bestN && l < best) {
				best, bestN = l, n
			}
		}
		out[i] = best
	}
	return out
}

func TestKNNMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	for _, tc := range []struct{ nTr, nTe, dim, k int }{{50, 30, 3, 5}, {200, 77, 17, 7}, {9, 4, 2, 1}} {
		tr := make([]float32, tc.nTr*tc.dim)
		te := make([]float32, tc.nTe*tc.dim)
		for i := range tr {
			tr[i] = float32(rng.NormFloat64())
		}
		for i := range te {
			te[i] = float32(rng.NormFloat64())
		}
		y := make([]int32, tc.nTr)
		for i := range y {
			y[i] = int32(rng.IntN(4))
		}
		if got, want := KNN(tr, y, te, tc.dim, tc.k), naiveKNN(tr, y, te, tc.dim, tc.k); !slices.Equal(got, want) {
			t.Errorf("%+v: KNN %v, naive %v", tc, got, want)
		}
	}
}

func TestF1(t *testing.T) {
	tests := []struct {
		name         string
		yTrue, yPred []int32
		micro, macro float64
	}{
		// scikit-learn's f1_score docstring example: micro 0.333..., macro 0.2666...
		{"sklearn docstring", []int32{0, 1, 2, 0, 1, 2}, []int32{0, 2, 1, 0, 0, 1}, 100.0 / 3, 80.0 / 3},
		// Label 2 is never predicted. By hand: label 0 TP=1 → F1 1; label 1
		// TP=1 FP=2 → 2/(2+2) = 0.5; label 2 TP=0 FN=2 → 0. Macro = 1.5/3 = 50%.
		// Micro = accuracy = 2/4.
		{"class absent from predictions", []int32{0, 1, 2, 2}, []int32{0, 1, 1, 1}, 50, 50},
		// Label 1 is predicted but never true: it still counts (labels are
		// y_true ∪ y_pred, as in scikit-learn). Label 0: TP=1 FN=1 → 2/3;
		// label 1: FP=1 → 0. Macro = (2/3)/2.
		{"class absent from truth", []int32{0, 0}, []int32{0, 1}, 50, 100.0 / 3},
		{"perfect", []int32{4, 2, 4}, []int32{4, 2, 4}, 100, 100},
		{"empty", nil, nil, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MicroF1(tc.yTrue, tc.yPred); !close(got, tc.micro, 1e-12) {
				t.Errorf("MicroF1 = %v, want %v", got, tc.micro)
			}
			if got := MacroF1(tc.yTrue, tc.yPred); !close(got, tc.macro, 1e-12) {
				t.Errorf("MacroF1 = %v, want %v", got, tc.macro)
			}
		})
	}
}

func TestROCAUC(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		pos    []bool
		want   float64
	}{
		// scikit-learn's roc_auc_score docstring example (y = 0,0,1,1): 0.75.
		{"sklearn docstring", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 75},
		// By hand, positives {0.2, 0.5} vs negatives {0.5, 0.1}: pairs
		// (0.2,0.5)=0, (0.2,0.1)=1, (0.5,0.5)=½ (tie), (0.5,0.1)=1 → 2.5/4.
		{"one tie", []float64{0.2, 0.5, 0.5, 0.1}, []bool{true, true, false, false}, 62.5},
		// All scores equal: every pair is a tie → ½.
		{"all tied", []float64{3, 3, 3, 3, 3}, []bool{true, false, true, false, false}, 50},
		// Positives {1,1,2} vs negatives {1,0}: pairs against 1: ½,½,1; against
		// 0: 1,1,1 → 5/6.
		{"tied group mixed", []float64{1, 1, 2, 1, 0}, []bool{true, true, true, false, false}, 500.0 / 6},
		{"perfect", []float64{0, 1}, []bool{false, true}, 100},
		{"inverted", []float64{1, 0}, []bool{false, true}, 0},
		{"no negatives", []float64{1, 2}, []bool{true, true}, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ROCAUC(tc.scores, tc.pos); !close(got, tc.want, 1e-12) {
				t.Errorf("ROCAUC = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLinkAUC(t *testing.T) {
	// Test documents 10..13 at 1-D coordinates 0, 1, 3, 10 (documents 0..9
	// are training documents at 0). Held-out links 10–11 and 12–13 (listed
	// twice and once reversed), plus links that must be ignored: one to a
	// training document and a self-link.
	x := make([]float32, 14)
	x[10], x[11], x[12], x[13] = 0, 1, 3, 10
	test := []int32{10, 11, 12, 13}
	links := [][2]int32{{10, 11}, {11, 10}, {13, 12}, {12, 13}, {3, 12}, {13, 13}}
	// By hand with score −d²: doc 10 ranks 11 (1), 12 (9), 13 (100): the
	// positive is first → 100. Doc 11: 10 (1), 12 (4), 13 (81) → 100. Doc 12:
	// 11 (4), 10 (9), 13 (49): the positive is last → 0. Doc 13: 12 (49)
	// first → 100. Mean 75 over 4 documents.
	auc, n := LinkAUC(test, links, NegSqEuclidean(x, 1))
	if n != 4 || !close(auc, 75, 1e-12) {
		t.Errorf("LinkAUC = %v over %d docs, want 75 over 4", auc, n)
	}
	// A document linked to every other test document has no negatives and
	// is left out: here every document, so the mean is undefined.
	auc, n = LinkAUC([]int32{0, 1}, [][2]int32{{0, 1}}, NegSqEuclidean(x, 1))
	if n != 0 || !math.IsNaN(auc) {
		t.Errorf("LinkAUC without negatives = %v over %d docs, want NaN over 0", auc, n)
	}
}

func TestCosine(t *testing.T) {
	x := []float32{1, 0, 1, 1, 0, 0, -2, 0}
	s := Cosine(x, 2)
	for _, tc := range []struct {
		i, j int32
		want float64
	}{{0, 1, 1 / math.Sqrt2}, {0, 3, -1}, {0, 2, 0}, {1, 1, 1}} {
		if got := s(tc.i, tc.j); !close(got, tc.want, 1e-12) {
			t.Errorf("Cosine(%d,%d) = %v, want %v", tc.i, tc.j, got, tc.want)
		}
	}
}

func TestPerplexityExponent(t *testing.T) {
	// Two topics over three words, by hand: doc 0 = words [0,1] with θ = (1,0)
	// gives p = ½, ½; doc 1 = words [2,2] with θ = (½,½) gives p(2) = ½·0 +
	// ½·½ = ¼ twice. −Σ log p / 4 = (2 ln 2 + 2 ln 4)/4 = 1.5 ln 2.
	theta := []float32{1, 0, 0.5, 0.5}
	beta := []float32{0.5, 0.5, 0, 0, 0.5, 0.5}
	docs := DocList{{0, 1}, {2, 2}}
	if got, want := PerplexityExponent(theta, beta, 2, docs), 1.5*math.Ln2; !close(got, want, 1e-12) {
		t.Errorf("PerplexityExponent = %v, want %v", got, want)
	}
	// Closed form: a uniform β over V words gives exactly ln V.
	const V = 7
	uni := make([]float32, V)
	for i := range uni {
		uni[i] = 1.0 / V
	}
	if got := PerplexityExponent([]float32{1, 1}, uni, 1, DocList{{0, 6, 6}, {3}}); !close(got, math.Log(V), 1e-6) {
		t.Errorf("uniform: %v, want ln %d = %v", got, V, math.Log(V))
	}
	// A word of probability 0 makes the perplexity infinite.
	if got := PerplexityExponent([]float32{1, 0}, beta, 2, DocList{{2}}); !math.IsInf(got, 1) {
		t.Errorf("zero probability: %v, want +Inf", got)
	}
}

func TestNPMI(t *testing.T) {
	// Three documents over words a=0, b=1, c=2, d=3 (a repeat inside a
	// document counts once): d0 = {a,b}, d1 = {a,b,c}, d2 = {c,d}.
	// Document frequencies over D = 3: p(a) = p(b) = p(c) = 2/3, p(d) = 1/3;
	// p(a,b) = 2/3, p(a,c) = p(b,c) = 1/3, p(c,d) = 1/3, p(a,d) = 0.
	// By hand, NPMI = ln(p(x,y)/(p(x)p(y))) / −ln p(x,y):
	//   NPMI(a,b) = ln((2/3)/(4/9)) / −ln(2/3) = ln 1.5 / ln 1.5 = 1
	//   NPMI(a,c) = ln((1/3)/(4/9)) / −ln(1/3) = ln 0.75 / ln 3 = −0.2618604...
	//   NPMI(c,d) = ln((1/3)/(2/9)) / ln 3 = ln 1.5 / ln 3 = 0.3690702...
	//   NPMI(a,d) = −1 (never co-occur)
	// Topic [a,b,c]: (1 + 2·ln0.75/ln3)/3 = 0.1587597...
	// Topic [c,d,a]: (ln1.5/ln3 + ln0.75/ln3 − 1)/3 = −0.2975967...
	ref := NewReference("three docs", DocList{{0, 1, 0}, {0, 1, 2}, {2, 3}})
	ln3 := math.Log(3)
	pairs := []struct {
		a, b int32
		want float64
	}{
		{0, 1, 1}, {0, 2, math.Log(0.75) / ln3}, {1, 2, math.Log(0.75) / ln3},
		{2, 3, math.Log(1.5) / ln3}, {0, 3, -1}, {3, 0, -1},
	}
	for _, p := range pairs {
		if got := ref.PairNPMI(p.a, p.b); !close(got, p.want, 1e-12) {
			t.Errorf("NPMI(%d,%d) = %v, want %v", p.a, p.b, got, p.want)
		}
	}
	topics := [][]int32{{0, 1, 2, 3 /* cut by n=3 */}, {2, 3, 0}}
	per, mean := ref.NPMI(topics, 3)
	want := []float64{(1 + 2*math.Log(0.75)/ln3) / 3, (math.Log(1.5)/ln3 + math.Log(0.75)/ln3 - 1) / 3}
	for i := range want {
		if !close(per[i], want[i], 1e-12) {
			t.Errorf("topic %d NPMI = %v, want %v", i, per[i], want[i])
		}
	}
	if !close(mean, (want[0]+want[1])/2, 1e-12) {
		t.Errorf("mean NPMI = %v, want %v", mean, (want[0]+want[1])/2)
	}
	if !close(want[0], 0.1587597, 1e-6) || !close(want[1], -0.2975967, 1e-6) {
		t.Errorf("hand values drifted: %v", want)
	}
	// Words present in every document: the 0/0 case scores 1.
	all := NewReference("all", DocList{{5, 6}, {6, 5}})
	if got := all.PairNPMI(5, 6); got != 1 {
		t.Errorf("always co-occurring pair = %v, want 1", got)
	}
}

func TestTopWordsAndDiversity(t *testing.T) {
	beta := []float32{
		0.1, 0.4, 0.4, 0.1, // ties broken by word id: 1, 2, then 0, 3
		0.7, 0.1, 0.1, 0.1,
	}
	top := TopWords(beta, 2, 3)
	if want := [][]int32{{1, 2, 0}, {0, 1, 2}}; !slices.EqualFunc(top, want, slices.Equal) {
		t.Errorf("TopWords = %v, want %v", top, want)
	}
	tests := []struct {
		topics [][]int32
		n      int
		want   float64
	}{
		// {1,2,0} ∪ {0,1,2} = 3 distinct of 6.
		{top, 3, 0.5},
		// Cut to n = 2: {1,2} ∪ {0,1} = 3 distinct of 4.
		{top, 2, 0.75},
		{[][]int32{{1, 2}, {3, 4}}, 25, 1},
		{nil, 25, math.NaN()},
	}
	for _, tc := range tests {
		if got := TopicDiversity(tc.topics, tc.n); !close(got, tc.want, 1e-12) {
			t.Errorf("TopicDiversity(%v, %d) = %v, want %v", tc.topics, tc.n, got, tc.want)
		}
	}
}

func TestTreeStats(t *testing.T) {
	tests := []struct {
		name    string
		parent  []int
		want    TreeStats
		wantErr bool
	}{
		{"lone root", []int{-1}, TreeStats{Topics: 1, PerLevel: []int{1}, Depth: 1, Leaves: 1}, false},
		// The initial tree (docs/design.md, "Topic tree"): root, 3 children, 3 grandchildren each.
		{"3x3", []int{-1, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3},
			TreeStats{Topics: 13, PerLevel: []int{1, 3, 9}, Depth: 3, Leaves: 9}, false},
		// Parents listed after children: root 2; 0 and 3 at level 1; 4 (under 0)
		// and 1 (under 3) at level 2.
		{"unordered", []int{2, 3, -1, 2, 0}, TreeStats{Topics: 5, PerLevel: []int{1, 2, 2}, Depth: 3, Leaves: 2}, false},
		{"two roots", []int{-1, -1}, TreeStats{}, true},
		{"cycle", []int{-1, 2, 1}, TreeStats{}, true},
		{"out of range", []int{-1, 7}, TreeStats{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ComputeTreeStats(tc.parent)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got.Topics != tc.want.Topics || got.Depth != tc.want.Depth || got.Leaves != tc.want.Leaves || !slices.Equal(got.PerLevel, tc.want.PerLevel) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A chain 0 ← 1 ← 2 ← 3 reaches depth 4 whatever order the topics come in.
func TestTreeStatsChain(t *testing.T) {
	got, err := ComputeTreeStats([]int{1, 2, 3, -1})
	if err != nil || got.Depth != 4 || got.Leaves != 1 || !slices.Equal(got.PerLevel, []int{1, 1, 1, 1}) {
		t.Errorf("chain: %+v, %v", got, err)
	}
}

func TestCompletionSplit(t *testing.T) {
	docs := DocList{{1, 2, 3, 4, 5}, {7}, {}, {9, 9, 8, 8}}
	obs, held := CompletionSplit(docs, 3)
	for i, d := range docs {
		if len(obs[i]) != (len(d)+1)/2 || len(obs[i])+len(held[i]) != len(d) {
			t.Fatalf("document %d (%d tokens): %d observed, %d held out", i, len(d), len(obs[i]), len(held[i]))
		}
		merged := slices.Concat(obs[i], held[i])
		slices.Sort(merged)
		want := slices.Clone(d)
		slices.Sort(want)
		if !slices.Equal(merged, want) {
			t.Fatalf("document %d: halves %v + %v are not its tokens %v", i, obs[i], held[i], d)
		}
	}
	if len(held[1]) != 0 {
		t.Errorf("a one-token document holds out %v", held[1])
	}
	obs2, _ := CompletionSplit(docs, 3)
	if !slices.EqualFunc(obs, obs2, slices.Equal[[]int32]) {
		t.Error("same seed, different halves")
	}
	obs3, _ := CompletionSplit(docs, 4)
	if slices.Equal(obs[0], obs3[0]) && slices.Equal(obs[3], obs3[3]) {
		t.Error("another seed gave the same halves of both long documents")
	}
}
