package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// ROCAUC returns the area under the ROC curve in percent: the probability
// that a random positive scores above a random negative, a tie counting one
// half (the Mann-Whitney U statistic divided by n_pos·n_neg). It equals
// scikit-learn's roc_auc_score. It returns NaN when there is no positive or
// no negative, where the AUC is undefined.
func ROCAUC(scores []float64, positive []bool) float64 {
	if len(scores) != len(positive) {
		panic(fmt.Sprintf("metrics: ROCAUC: %d scores, %d labels", len(scores), len(positive)))
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	return rocAUC(scores, positive, order)
}

// rocAUC is ROCAUC with caller-provided scratch order (len(scores)).
func rocAUC(scores []float64, positive []bool, order []int) float64 {
	slices.SortFunc(order, func(a, b int) int {
		if scores[a] < scores[b] {
			return -1
		}
		if scores[a] > scores[b] {
			return 1
		}
		return 0
	})
	// Sum of the (1-based, tie-averaged) ranks of the positives.
	var rankSum float64
	nPos := 0
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && scores[order[hi]] == scores[order[lo]] {
			hi++
		}
		mid := float64(lo+1+hi) / 2 // mean of ranks lo+1..hi
		for _, i := range order[lo:hi] {
			if positive[i] {
				rankSum += mid
				nPos++
			}
		}
		lo = hi
	}
	nNeg := len(order) - nPos
	if nPos == 0 || nNeg == 0 {
		return math.NaN()
	}
	u := rankSum - float64(nPos)*float64(nPos+1)/2
	return 100 * u / (float64(nPos) * float64(nNeg))
}

// ScoreFunc scores a candidate link between documents i and j; higher means
// more likely linked. It is called concurrently and must be safe for that.
type ScoreFunc func(i, j int32) float64

// NegSqEuclidean scores a pair by minus the squared Euclidean distance of
// their rows of x (N,dim), the paper's link-prediction score (on the
// embedding coordinates; hyperbolic models pass their own distance).
func NegSqEuclidean(x []float32, dim int) ScoreFunc {
	if dim <= 0 || len(x)%dim != 0 {
		panic(fmt.Sprintf("metrics: NegSqEuclidean: dim %d does not divide %d", dim, len(x)))
	}
	return func(i, j int32) float64 {
		a, b := x[int(i)*dim:int(i+1)*dim], x[int(j)*dim : int(j+1)*dim][:dim]
		var s float64
		for c, v := range a {
			d := float64(v) - float64(b[c])
			s += d * d
		}
		return -s
	}
}

// Cosine scores a pair by the cosine similarity of their rows of x (N,dim);
// a zero row has similarity 0 to everything.
func Cosine(x []float32, dim int) ScoreFunc {
	if dim <= 0 || len(x)%dim != 0 {
		panic(fmt.Sprintf("metrics: Cosine: dim %d does not divide %d", dim, len(x)))
	}
	norm := rowSqNorms(x, dim)
	for i, v := range norm {
		norm[i] = math.Sqrt(v)
	}
	return func(i, j int32) float64 {
		if norm[i] == 0 || norm[j] == 0 {
			return 0
		}
		a, b := x[int(i)*dim:int(i+1)*dim], x[int(j)*dim : int(j+1)*dim][:dim]
		var s float64
		for c, v := range a {
			s += float64(v) * float64(b[c])
		}
		return s / (norm[i] * norm[j])
	}
}

// LinkAUC evaluates link prediction by the paper's protocol: for each test
// document with at least one held-out link, every other test document is
// ranked by score, the ROC-AUC of that ranking (its linked documents being
// the positives) is computed, and the per-document AUCs are averaged.
//
// test lists the test documents; links are the held-out links, in either
// direction (symmetrised here; duplicates, self-links and links with an end
// outside test are ignored). It returns the mean AUC in percent and the
// number of documents averaged; a document linked to every other test
// document has no negatives and is left out. With no such document the mean
// is NaN.
func LinkAUC(test []int32, links [][2]int32, score ScoreFunc) (auc float64, docs int) {
	pos := map[int32]int{} // document id -> position in test
	for p, d := range test {
		if _, dup := pos[d]; dup {
			panic(fmt.Sprintf("metrics: LinkAUC: document %d listed twice in test", d))
		}
		pos[d] = p
	}
	nbr := make([][]int, len(test)) // positions of linked test documents
	for _, l := range links {
		a, okA := pos[l[0]]
		b, okB := pos[l[1]]
		if !okA || !okB || a == b {
			continue
		}
		nbr[a] = append(nbr[a], b)
		nbr[b] = append(nbr[b], a)
	}
	for i := range nbr {
		sort.Ints(nbr[i])
		nbr[i] = slices.Compact(nbr[i])
	}
	per := make([]float64, len(test))
	parallelFor(len(test), func() func(i int) {
		n := len(test) - 1
		scores := make([]float64, n)
		positive := make([]bool, n)
		order := make([]int, n)
		return func(i int) {
			per[i] = math.NaN()
			if len(nbr[i]) == 0 {
				return
			}
			clear(positive)
			for _, b := range nbr[i] {
				positive[b-btoi(b > i)] = true
			}
			c := 0
			for b, d := range test {
				if b == i {
					continue
				}
				scores[c] = score(test[i], d)
				order[c] = c
				c++
			}
			per[i] = rocAUC(scores, positive, order)
		}
	})
	var sum float64
	for _, v := range per {
		if !math.IsNaN(v) {
			sum += v
			docs++
		}
	}
	if docs == 0 {
		return math.NaN(), 0
	}
	return sum / float64(docs), docs
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
