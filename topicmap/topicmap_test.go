package topicmap

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

// twoTopics is a root with two children: rows 0 (root, id 0), 1 (id 5),
// 2 (id 7).
var twoTopics = Tree{ID: []int{0, 5, 7}, Parent: []int{-1, 0, 0}, Level: []int{0, 1, 1}}

// deep is root 0; level 1: 1, 2; level 2: 3, 4 under 1 and 5 under 2.
var deep = Tree{ID: []int{0, 1, 2, 3, 4, 5}, Parent: []int{-1, 0, 0, 1, 1, 2}, Level: []int{0, 1, 1, 2, 2, 2}}

// near compares with θ's float32 precision.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestLinksHandExample(t *testing.T) {
	// Four documents, two per topic, each linked inside its topic; the
	// root's mass is left out by the renormalisation.
	theta := []float32{
		0.5, 0.5, 0,
		0, 1, 0,
		0.2, 0, 0.8,
		0, 0, 1,
	}
	lm, err := Links(theta, twoTopics, 1, [][2]int32{{0, 1}, {2, 3}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// M = [[2 0] [0 2]], s = (½, ½), E = 4 s sᵀ = 1: lift 2 inside, 0 across.
	want := [][]float64{{2, 0}, {0, 2}}
	for i := range 2 {
		for j := range 2 {
			if !near(lm.Mass[i][j], want[i][j]) || !near(lm.Expected[i][j], 1) || !near(lm.Lift[i][j], want[i][j]) {
				t.Errorf("(%d,%d): M %g E %g lift %g", i, j, lm.Mass[i][j], lm.Expected[i][j], lm.Lift[i][j])
			}
		}
	}
	if !slices.Equal(lm.Topics, []int{5, 7}) || lm.Links != 2 || !near(lm.Inside, 2) || !near(lm.Across, 0) || !near(lm.Self, 2) {
		t.Errorf("map %+v", lm)
	}
	if len(lm.Pairs) != 0 {
		t.Errorf("pairs %+v: the cross pair holds no mass", lm.Pairs)
	}

	// One cross link among mixed documents: M = a bᵀ + b aᵀ.
	theta = []float32{0, 0.25, 0.75, 0, 1, 0}
	lm, err = Links(theta, twoTopics, 1, [][2]int32{{0, 1}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// a = (¼, ¾), b = (1, 0): M = [[½ ¾] [¾ 0]], s = (5/8, 3/8), ΣM = 2.
	wantM := [][]float64{{0.5, 0.75}, {0.75, 0}}
	s := []float64{5.0 / 8, 3.0 / 8}
	for i := range 2 {
		for j := range 2 {
			e := 2 * s[i] * s[j]
			if !near(lm.Mass[i][j], wantM[i][j]) || !near(lm.Expected[i][j], e) || !near(lm.Lift[i][j], wantM[i][j]/e) {
				t.Errorf("(%d,%d): M %g E %g lift %g", i, j, lm.Mass[i][j], lm.Expected[i][j], lm.Lift[i][j])
			}
		}
	}
	if len(lm.Pairs) != 1 || lm.Pairs[0].A != 5 || lm.Pairs[0].B != 7 || !near(lm.Pairs[0].Lift, 0.75/(2*s[0]*s[1])) {
		t.Errorf("pairs %+v", lm.Pairs)
	}
}

func TestLinksLevels(t *testing.T) {
	// Level 2 of deep: documents on leaves 3, 4 (siblings) and 5.
	theta := []float32{
		0, 0, 0, 1, 0, 0,
		0, 0, 0, 0, 1, 0,
		0, 0, 0, 0, 0, 1,
		0, 0, 0, 1, 0, 0,
	}
	lm, err := Links(theta, deep, 2, [][2]int32{{0, 1}, {0, 3}, {1, 2}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lm.Parents, []int{1, 1, 2}) {
		t.Errorf("parents %v", lm.Parents)
	}
	// Links 3-4 (siblings: inside a branch), 3-3 (a topic with itself)
	// and 4-5 (across). M = [[2 1 0] [1 0 1] [0 1 0]], s = (3, 2, 1)/6,
	// ΣM = 6: the lifts are 4/3, 0, 0 on the diagonal, 1 for 3-4, and 0
	// and 3 across.
	if !near(lm.Self, 4.0/9) || !near(lm.Siblings, 1) || !near(lm.Inside, (4.0/3+1)/4) || !near(lm.Across, 1.5) ||
		len(lm.Pairs) != 1 || lm.Pairs[0].A != 4 || lm.Pairs[0].B != 5 || !near(lm.Pairs[0].Lift, 3) {
		t.Errorf("map %+v", lm)
	}
	for _, tc := range []struct {
		level int
		links [][2]int32
		want  error
	}{
		{0, nil, ErrBadRequest},
		{3, nil, ErrBadRequest},
		{-1, nil, ErrBadRequest},
		{1, [][2]int32{{0, 9}}, nil},
	} {
		_, err := Links(theta, deep, tc.level, tc.links, 1)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("level %d links %v: error %v, want %v", tc.level, tc.links, err, tc.want)
		}
	}
}

func TestFacetsHandExample(t *testing.T) {
	// Two years; the first all topic 5, the second split; the root holds
	// a tenth of every document.
	theta := []float32{
		0.1, 0.9, 0,
		0.1, 0.9, 0,
		0.1, 0.45, 0.45,
		0.1, 0, 0.9,
	}
	lengths := []int{10, 30, 20, 20}
	f := corpus.Field{Name: "year", Kind: corpus.KindNumber, Values: []string{"2000", "2000", "2001", "2001"}}
	b, err := Bins(f, FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fc, err := Facets(theta, lengths, twoTopics, 0, b)
	if err != nil {
		t.Fatal(err)
	}
	if fc.Bin != "integer" || len(fc.Bins) != 2 || fc.Bins[0].Label != "2000" || fc.Bins[1].Docs != 2 || fc.Bins[1].Words != 40 {
		t.Fatalf("bins %+v (%s)", fc.Bins, fc.Bin)
	}
	// Stack: root itself, then 5, then 7.
	wantWords := [][]float64{{0.1, 0.1}, {0.9, 9.0 / 40}, {0, 27.0 / 40}}
	wantDocs := [][]float64{{0.1, 0.1}, {0.9, 0.225}, {0, 0.675}}
	for g, s := range fc.Stack {
		for k := range 2 {
			if !near(s.Words[k], wantWords[g][k]) || !near(s.Docs[k], wantDocs[g][k]) {
				t.Errorf("series %d (id %d) bin %d: words %g docs %g, want %g %g", g, s.ID, k, s.Words[k], s.Docs[k], wantWords[g][k], wantDocs[g][k])
			}
		}
	}
	if !fc.Stack[0].Self || fc.Stack[1].ID != 5 || !near(fc.Total.Words[0], 1) || !near(fc.Total.Docs[1], 1) {
		t.Errorf("facet %+v", fc)
	}
	// A leaf: its own share only.
	fc, err = Facets(theta, lengths, twoTopics, 2, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Stack) != 1 || !near(fc.Total.Words[1], 27.0/40) {
		t.Errorf("leaf facet %+v", fc)
	}
}

func TestFacetsSubtree(t *testing.T) {
	// Node 1 of deep: its own θ, then leaves 3 and 4; leaf 5 lies outside.
	theta := []float32{0.1, 0.2, 0.1, 0.3, 0.2, 0.1}
	f := corpus.Field{Name: "venue", Kind: corpus.KindString, Values: []string{"ICML"}}
	b, err := Bins(f, FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fc, err := Facets(theta, []int{4}, deep, 1, b)
	if err != nil {
		t.Fatal(err)
	}
	got := []float64{fc.Stack[0].Docs[0], fc.Stack[1].Docs[0], fc.Stack[2].Docs[0], fc.Total.Docs[0]}
	want := []float64{0.2, 0.3, 0.2, 0.7}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-6 {
			t.Errorf("shares %v, want %v", got, want)
			break
		}
	}
}

func TestBins(t *testing.T) {
	num := func(vs ...string) corpus.Field { return corpus.Field{Name: "x", Kind: corpus.KindNumber, Values: vs} }
	date := func(vs ...string) corpus.Field { return corpus.Field{Name: "d", Kind: corpus.KindDate, Values: vs} }
	str := func(vs ...string) corpus.Field { return corpus.Field{Name: "s", Kind: corpus.KindString, Values: vs} }
	for _, tc := range []struct {
		name   string
		f      corpus.Field
		opt    FacetOptions
		bin    string
		labels []string
		of     []int32
		err    error
	}{
		{"integers", num("3", "", "1"), FacetOptions{}, "integer", []string{"1", "2", "3"}, []int32{2, -1, 0}, nil},
		{"reals by quantile", num("0.5", "1.5", "2.5", "3.5"), FacetOptions{Quantiles: 2}, BinQuantile, []string{"0.5–1.5", "2.5–3.5"}, []int32{0, 0, 1, 1}, nil},
		{"ties share a bin", num("1", "1", "1", "2"), FacetOptions{Bin: BinQuantile, Quantiles: 4}, BinQuantile, []string{"1", "2"}, []int32{0, 0, 0, 1}, nil},
		{"reals by year", num("0.5"), FacetOptions{Bin: BinYear}, "", nil, nil, ErrBadRequest},
		{"numbers by value", num("1"), FacetOptions{Bin: BinValue}, "", nil, nil, ErrBadRequest},
		{"dates by year", date("2001-05", "1999", ""), FacetOptions{}, BinYear, []string{"1999", "2000", "2001"}, []int32{2, 0, -1}, nil},
		{"dates by month", date("2001-05-03", "2001-03"), FacetOptions{}, BinMonth, []string{"2001-03", "2001-04", "2001-05"}, []int32{2, 0}, nil},
		{"month without months", date("2001", "2001-03"), FacetOptions{Bin: BinMonth}, "", nil, nil, ErrBadRequest},
		{"dates by quantile", date("2001", "2002", "2003", "2004"), FacetOptions{Bin: BinQuantile, Quantiles: 2}, BinQuantile, []string{"2001–2002", "2003–2004"}, []int32{0, 0, 1, 1}, nil},
		{"strings", str("b", "a", "b", "c", ""), FacetOptions{Top: 1}, BinValue, []string{"b", OtherLabel}, []int32{0, 1, 0, 1, -1}, nil},
		{"one value past the top", str("b", "a", "b"), FacetOptions{Top: 1}, BinValue, []string{"b", "a"}, []int32{0, 1, 0}, nil},
		{"strings by year", str("a"), FacetOptions{Bin: BinYear}, "", nil, nil, ErrBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Bins(tc.f, tc.opt)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, x := range b.Bins {
				labels = append(labels, x.Label)
			}
			if b.Bin != tc.bin || !slices.Equal(labels, tc.labels) || !slices.Equal(b.Of, tc.of) {
				t.Errorf("got %s %q %v, want %s %q %v", b.Bin, labels, b.Of, tc.bin, tc.labels, tc.of)
			}
		})
	}
}

// random returns θ for n documents over tree with random links.
func random(tree Tree, n, links int) ([]float32, [][2]int32, []int) {
	rng := rand.New(rand.NewPCG(1, 2))
	T := len(tree.ID)
	theta := make([]float32, n*T)
	lengths := make([]int, n)
	for i := range n {
		var s float32
		for r := range T {
			theta[i*T+r] = rng.Float32()
			s += theta[i*T+r]
		}
		for r := range T {
			theta[i*T+r] /= s
		}
		lengths[i] = 1 + rng.IntN(200)
	}
	ls := make([][2]int32, links)
	for k := range ls {
		ls[k] = [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))}
	}
	return theta, ls, lengths
}

// wideTree is a root, 10 children and 5 grandchildren each.
func wideTree() Tree {
	tr := Tree{ID: []int{0}, Parent: []int{-1}, Level: []int{0}}
	for c := range 10 {
		tr.ID, tr.Parent, tr.Level = append(tr.ID, len(tr.ID)), append(tr.Parent, 0), append(tr.Level, 1)
		_ = c
	}
	for c := 1; c <= 10; c++ {
		for range 5 {
			tr.ID, tr.Parent, tr.Level = append(tr.ID, len(tr.ID)), append(tr.Parent, c), append(tr.Level, 2)
		}
	}
	return tr
}

func TestRandomMarginals(t *testing.T) {
	tr := wideTree()
	theta, links, lengths := random(tr, 500, 2000)
	lm, err := Links(theta, tr, 2, links, 10)
	if err != nil {
		t.Fatal(err)
	}
	// M and E share their row sums.
	for i := range lm.Mass {
		var m, e float64
		for j := range lm.Mass {
			m += lm.Mass[i][j]
			e += lm.Expected[i][j]
		}
		if math.Abs(m-e) > 1e-6*m {
			t.Fatalf("row %d: Σ M %g, Σ E %g", i, m, e)
		}
	}
	vals := make([]string, 500)
	for i := range vals {
		vals[i] = strconv.Itoa(2000 + i%21)
	}
	b, err := Bins(corpus.Field{Name: "year", Kind: corpus.KindDate, Values: vals}, FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fc, err := Facets(theta, lengths, tr, 0, b)
	if err != nil {
		t.Fatal(err)
	}
	for k := range fc.Bins {
		if !near(fc.Total.Words[k], 1) && math.Abs(fc.Total.Words[k]-1) > 1e-5 {
			t.Fatalf("bin %d: the root's words share %g, want 1", k, fc.Total.Words[k])
		}
	}
}

func BenchmarkLinks(b *testing.B) {
	tr := wideTree()
	theta, links, _ := random(tr, 20000, 100000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Links(theta, tr, 2, links, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFacets(b *testing.B) {
	tr := wideTree()
	theta, _, lengths := random(tr, 20000, 0)
	vals := make([]string, len(lengths))
	for i := range vals {
		vals[i] = strconv.Itoa(2000 + i%21)
	}
	bins, err := Bins(corpus.Field{Name: "year", Kind: corpus.KindNumber, Values: vals}, FacetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Facets(theta, lengths, tr, 0, bins); err != nil {
			b.Fatal(err)
		}
	}
}
