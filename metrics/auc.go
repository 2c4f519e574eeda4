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
// LinkAUCBlocked computes the scores in blocks through matrix products, and
// LinkAUCDocs scores only a sample of the documents (n per query).
func LinkAUC(test []int32, links [][2]int32, score ScoreFunc) (auc float64, docs int) {
	return meanAUC(LinkAUCDocs(test, links, nil, score))
}

// LinkAUCDocs returns the per-document AUCs that LinkAUC averages, for the
// test documents at the positions queries of test (every position when
// queries is nil), in the order of queries: each query ranks every other
// test document, exactly as in LinkAUC, so a sample of queries estimates
// LinkAUC's mean without changing any document's AUC. A query without a
// held-out link or without a negative gets NaN. Positions outside test or
// repeated are programmer errors and panic.
func LinkAUCDocs(test []int32, links [][2]int32, queries []int, score ScoreFunc) []float64 {
	nbr := linkedPositions(test, links)
	queries = queryPositions("LinkAUCDocs", len(test), queries)
	per := make([]float64, len(queries))
	parallel.Each(len(queries), func() func(q int) {
		scores := make([]float64, len(test))
		var tmp rowScratch
		return func(q int) {
			i := queries[q]
			per[q] = math.NaN()
			if len(nbr[i]) == 0 {
				return
			}
			for b, d := range test {
				if b != i {
					scores[b] = score(test[i], d)
				}
			}
			per[q] = tmp.auc(scores, i, nbr[i])
		}
	})
	return per
}

// queryPositions returns queries, or every position of an n-document test
// set when it is nil, after checking that each lies in [0, n) once.
func queryPositions(fn string, n int, queries []int) []int {
	if queries == nil {
		queries = make([]int, n)
		for i := range queries {
			queries[i] = i
		}
		return queries
	}
	seen := make([]bool, n)
	for _, p := range queries {
		if p < 0 || p >= n {
			panic(fmt.Sprintf("metrics: %s: query position %d outside the %d test documents", fn, p, n))
		}
		if seen[p] {
			panic(fmt.Sprintf("metrics: %s: query position %d listed twice", fn, p))
		}
		seen[p] = true
	}
	return queries
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
	return meanAUC(LinkAUCDocsBlocked(test, links, nil, score))
}

// LinkAUCDocsBlocked is LinkAUCDocs with the scores computed by score a
// block of queries at a time, as in LinkAUCBlocked; given the same scores
// it returns the same numbers as LinkAUCDocs.
func LinkAUCDocsBlocked(test []int32, links [][2]int32, queries []int, score BlockScoreFunc) []float64 {
	nbr := linkedPositions(test, links)
	queries = queryPositions("LinkAUCDocsBlocked", len(test), queries)
	var anchors []int // indices into queries of the queries with a link
	for q, i := range queries {
		if len(nbr[i]) > 0 {
			anchors = append(anchors, q)
		}
	}
	per := make([]float64, len(queries))
	for q := range per {
		per[q] = math.NaN()
	}
	n := len(test)
	dst := make([]float64, linkAUCBlock*n)
	rows := make([]int, 0, linkAUCBlock)
	for lo := 0; lo < len(anchors); lo += linkAUCBlock {
		block := anchors[lo:min(lo+linkAUCBlock, len(anchors))]
		rows = rows[:0]
		for _, q := range block {
			rows = append(rows, queries[q])
		}
		score(rows, dst[:len(rows)*n])
		parallel.Each(len(rows), func() func(r int) {
			var tmp rowScratch
			return func(r int) {
				i := rows[r]
				per[block[r]] = tmp.auc(dst[r*n:(r+1)*n], i, nbr[i])
			}
		})
	}
	return per
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
	auc, _, docs = MeanSE(per)
	return auc, docs
}

// MeanSE returns the mean of the values of per that are not NaN, in order
// (LinkAUC's mean of LinkAUCDocs), the standard error of that mean for a
// sample drawn uniformly, s/√n with s the sample standard deviation (NaN
// below two values; no finite-population correction, so it errs on the
// large side), and their number n. With no value the mean is NaN.
func MeanSE(per []float64) (mean, se float64, n int) {
	var sum float64
	for _, v := range per {
		if !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean = sum / float64(n)
	if n < 2 {
		return mean, math.NaN(), n
	}
	var ss float64
	for _, v := range per {
		if !math.IsNaN(v) {
			ss += (v - mean) * (v - mean)
		}
	}
	return mean, math.Sqrt(ss / float64(n-1) / float64(n)), n
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
