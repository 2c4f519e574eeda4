package metrics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// LinkAUCDocs and LinkAUCDocsBlocked give a query the AUC it has among all
// the test documents: for any subset of positions, in any order, each
// entry equals, to the bit, that position's entry when every document is a
// query; and the mean over every query is LinkAUC's.
func TestLinkAUCDocsSubset(t *testing.T) {
	const n = 2*linkAUCBlock + 9
	rng := rand.New(rand.NewPCG(11, n))
	x := randMatrix(rng, n, 3)
	score := NegSqEuclidean(x, 3)
	test := make([]int32, n)
	for i := range test {
		test[i] = int32(n - 1 - i) // positions differ from document ids
	}
	block := func(rows []int, dst []float64) {
		for r, p := range rows {
			for q, d := range test {
				dst[r*n+q] = score(test[p], d)
			}
		}
	}
	var links [][2]int32
	for range n {
		links = append(links, [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))})
	}
	all := LinkAUCDocs(test, links, nil, score)
	auc, docs := LinkAUC(test, links, score)
	if mean, _, k := MeanSE(all); mean != auc || k != docs {
		t.Fatalf("mean of LinkAUCDocs %v over %d documents, LinkAUC %v over %d", mean, k, auc, docs)
	}
	if got := LinkAUCDocsBlocked(test, links, nil, block); !equalNaN(got, all) {
		t.Fatalf("LinkAUCDocsBlocked over every query differs from LinkAUCDocs")
	}
	tests := []struct {
		name    string
		queries []int
	}{
		{"one", []int{5}},
		{"sorted", []int{0, 3, 4, 70, n - 1}},
		{"unsorted", []int{n - 1, 2, 77, 1}},
		{"more than one block", rng.Perm(n)[:linkAUCBlock+20]},
		{"none", []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]float64, len(tc.queries))
			for q, p := range tc.queries {
				want[q] = all[p]
			}
			if got := LinkAUCDocs(test, links, tc.queries, score); !equalNaN(got, want) {
				t.Errorf("LinkAUCDocs %v, want %v", got, want)
			}
			if got := LinkAUCDocsBlocked(test, links, tc.queries, block); !equalNaN(got, want) {
				t.Errorf("LinkAUCDocsBlocked %v, want %v", got, want)
			}
		})
	}
}

// Query positions outside the test set or repeated are programmer errors.
func TestLinkAUCDocsBadQueries(t *testing.T) {
	test := []int32{0, 1, 2}
	x := []float32{0, 1, 2}
	tests := []struct {
		name    string
		queries []int
		msg     string
	}{
		{"negative", []int{-1}, "outside the 3 test documents"},
		{"past the end", []int{0, 3}, "outside the 3 test documents"},
		{"repeated", []int{1, 2, 1}, "listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.msg) {
					t.Errorf("panic %v, want one containing %q", r, tc.msg)
				}
			}()
			LinkAUCDocs(test, [][2]int32{{0, 1}}, tc.queries, NegSqEuclidean(x, 1))
		})
	}
}

func TestMeanSE(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		per      []float64
		mean, se float64 // NaN: want NaN
		n        int
	}{
		// s² = ((1.5)²+(0.5)²+(0.5)²+(1.5)²)/3 = 5/3; SE = √(5/3/4).
		{"four values", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 12), 4},
		{"NaNs left out", []float64{nan, 1, 2, nan, 3, 4}, 2.5, math.Sqrt(5.0 / 12), 4},
		{"equal values", []float64{50, 50, 50}, 50, 0, 3},
		{"one value", []float64{nan, 70}, 70, nan, 1},
		{"none", []float64{nan}, nan, nan, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mean, se, n := MeanSE(tc.per)
			if n != tc.n || !close(mean, tc.mean, 1e-12) || !close(se, tc.se, 1e-12) {
				t.Errorf("MeanSE = %v ± %v over %d, want %v ± %v over %d", mean, se, n, tc.mean, tc.se, tc.n)
			}
		})
	}
}

func TestMicroF1SE(t *testing.T) {
	tests := []struct {
		f1   float64
		n    int
		want float64 // NaN: want NaN
	}{
		{50, 100, 5},                             // 100·√(0.25/100)
		{90, 10000, 100 * math.Sqrt(0.09/10000)}, // 0.3
		{100, 40, 0},
		{0, 40, 0},
		{75, 0, math.NaN()},
	}
	for _, tc := range tests {
		if got := MicroF1SE(tc.f1, tc.n); !close(got, tc.want, 1e-12) {
			t.Errorf("MicroF1SE(%v, %d) = %v, want %v", tc.f1, tc.n, got, tc.want)
		}
	}
}

// equalNaN reports whether a and b are equal element by element, to the
// bit, NaN matching NaN.
func equalNaN(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
