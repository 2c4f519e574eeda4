package metrics

import (
	"fmt"
	"github.com/gtformer/gtformer/internal/parallel"
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
//
// Each document's AUC counts, for every negative, the positives scored
// above it (and half those tied): O(n log p) for n test documents and p
// positives, the same number as ROCAUC's rank sum, without sorting n
// scores. The scoring itself is n² calls of score; for large test sets
// LinkAUCBlocked computes the scores in blocks through matrix products.
func LinkAUC(test []int32, links [][2]int32, score ScoreFunc) (auc float64, docs int) {
	nbr := linkedPositions(test, links)
	per := make([]float64, len(test))
	parallel.Each(len(test), func() func(i int) {
		scores := make([]float64, len(test))
		var tmp rowScratch
		return func(i int) {
			per[i] = math.NaN()
			if len(nbr[i]) == 0 {
				return
			}
			for b, d := range test {
				if b != i {
					scores[b] = score(test[i], d)
				}
			}
			per[i] = tmp.auc(scores, i, nbr[i])
		}
	})
	return meanAUC(per)
}

// BlockScoreFunc fills dst (len(rows)·len(test), row-major) with the link
// scores of the test documents at positions rows of test against every test
// document; a document's entry against itself is never read. It is called
// from one goroutine at a time and may use every core.
type BlockScoreFunc func(rows []int, dst []float64)

// linkAUCBlock is the number of anchor rows LinkAUCBlocked scores at once.
const linkAUCBlock = 64

// LinkAUCBlocked is LinkAUC with the scores computed a block of anchor
// documents at a time by score: memory is one block of scores
// (linkAUCBlock × len(test) float64), and score can use a matrix product
// for the whole block. Given the same scores it returns the same number as
// LinkAUC.
func LinkAUCBlocked(test []int32, links [][2]int32, score BlockScoreFunc) (auc float64, docs int) {
	nbr := linkedPositions(test, links)
	var anchors []int
	for i, l := range nbr {
		if len(l) > 0 {
			anchors = append(anchors, i)
		}
	}
	per := make([]float64, len(test))
	for i := range per {
		per[i] = math.NaN()
	}
	n := len(test)
	dst := make([]float64, linkAUCBlock*n)
	for lo := 0; lo < len(anchors); lo += linkAUCBlock {
		rows := anchors[lo:min(lo+linkAUCBlock, len(anchors))]
		score(rows, dst[:len(rows)*n])
		parallel.Each(len(rows), func() func(r int) {
			var tmp rowScratch
			return func(r int) {
				i := rows[r]
				per[i] = tmp.auc(dst[r*n:(r+1)*n], i, nbr[i])
			}
		})
	}
	return meanAUC(per)
}

// linkedPositions returns, for each position in test, the sorted distinct
// positions of the test documents linked to it.
func linkedPositions(test []int32, links [][2]int32) [][]int {
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
	return nbr
}

// meanAUC averages the per-document AUCs that are not NaN.
func meanAUC(per []float64) (auc float64, docs int) {
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

// rowScratch is one worker's scratch for rowScratch.auc.
type rowScratch struct {
	pos []float64
}

// auc returns the ROC-AUC in percent of anchor self's ranking: scores holds
// its score against every position (scores[self] is ignored), positives
// the sorted positions of its linked documents; NaN without a negative.
// u = Σ over negatives of the positives above it plus half those tied is
// the Mann-Whitney statistic, the rank sum minus p(p+1)/2 that rocAUC
// computes; both are sums of halves and exact in float64, so the two
// agree to the bit.
func (s *rowScratch) auc(scores []float64, self int, positives []int) float64 {
	p := len(positives)
	nNeg := len(scores) - 1 - p
	if nNeg <= 0 {
		return math.NaN()
	}
	s.pos = s.pos[:0]
	for _, b := range positives {
		s.pos = append(s.pos, scores[b])
	}
	slices.Sort(s.pos)
	var above, tied int64
	next := 0 // positives[next] is the next positive position to skip
	for b, v := range scores {
		if b == self {
			continue
		}
		if next < p && positives[next] == b {
			next++
			continue
		}
		lo, _ := slices.BinarySearch(s.pos, v) // first positive ≥ v
		hi := lo
		for hi < p && s.pos[hi] == v {
			hi++
		}
		above += int64(p - hi)
		tied += int64(hi - lo)
	}
	u := float64(above) + float64(tied)/2
	return 100 * u / (float64(p) * float64(nNeg))
}
