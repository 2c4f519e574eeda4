package metrics

import "math"

// NMI returns the normalised mutual information between two labelings of
// the same items, I(A;B) / ((H(A)+H(B))/2) — scikit-learn's
// normalized_mutual_info_score with its default arithmetic normalisation —
// in [0,1]; 1 when both labelings are the same partition. Two labelings that
// each put every item in one class share all their (zero) information: 1,
// as scikit-learn. It measures, for instance, how well the learned topic
// paths recover a planted tree's leaves.
func NMI(a, b []int32) float64 {
	if len(a) != len(b) {
		panic("metrics: NMI: labelings of different lengths")
	}
	n := float64(len(a))
	if n == 0 {
		return math.NaN()
	}
	ca, cb := map[int32]float64{}, map[int32]float64{}
	joint := map[[2]int32]float64{}
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		joint[[2]int32{a[i], b[i]}]++
	}
	h := func(c map[int32]float64) float64 {
		var s float64
		for _, v := range c {
			p := v / n
			s -= p * math.Log(p)
		}
		return s
	}
	ha, hb := h(ca), h(cb)
	if ha == 0 && hb == 0 {
		return 1
	}
	var mi float64
	for k, v := range joint {
		p := v / n
		mi += p * math.Log(p/(ca[k[0]]/n*cb[k[1]]/n))
	}
	return math.Max(0, mi/((ha+hb)/2))
}
