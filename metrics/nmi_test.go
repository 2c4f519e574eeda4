package metrics

import (
	"math"
	"testing"
)

// Values from scikit-learn's normalized_mutual_info_score (arithmetic mean
// normalisation), worked by hand here:
//   - identical partitions up to renaming: 1.
//   - a = [0,0,1,1], b = [0,1,0,1]: independent, 0.
//   - a = [0,0,0,1,1,1], b = [0,0,1,1,2,2]: H(a) = ln 2, H(b) = ln 3; from
//     the joint counts {(0,0):2, (0,1):1, (1,1):1, (1,2):2},
//     I = Σ p·ln(p/(pa·pb)) = 2·(1/3)·ln((1/3)/(1/2·1/3)) + 2·(1/6)·ln((1/6)/(1/2·1/3))
//     = (2/3)·ln 2 + (1/3)·ln 1 = (2/3)·ln 2
//     (check: H(b|a) = −(2/3·ln 2/3 + 1/3·ln 1/3) = ln 3 − (2/3)·ln 2, and
//     I = H(b) − H(b|a)), so NMI = (2/3)·ln 2 / ((ln 2 + ln 3)/2) ≈ 0.5158.
func TestNMI(t *testing.T) {
	cases := []struct {
		a, b []int32
		want float64
	}{
		{[]int32{0, 0, 1, 1, 2}, []int32{5, 5, 3, 3, 9}, 1},
		{[]int32{0, 0, 1, 1}, []int32{0, 1, 0, 1}, 0},
		{[]int32{0, 0, 0, 1, 1, 1}, []int32{0, 0, 1, 1, 2, 2}, (2.0 / 3 * math.Ln2) / ((math.Ln2 + math.Log(3)) / 2)},
		{[]int32{1, 1, 1}, []int32{2, 2, 2}, 1},
		{[]int32{1, 1, 1, 1}, []int32{0, 1, 2, 3}, 0},
	}
	for _, c := range cases {
		if got := NMI(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("NMI(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if !math.IsNaN(NMI(nil, nil)) {
		t.Error("NMI of empty labelings is not NaN")
	}
}
