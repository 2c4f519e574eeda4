package baseline

import (
	"math"
	"slices"

	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/tensor"
)

// The blocked path scores large sets as the model's evaluation does
// (metrics.KNNBlocked, evaluate.LinkScoreBlock): rows are copied into dense
// float32 tiles and their dot products come from matrix products
// (tensor.Gemm), with the squared norms in float64. Rows at least
// denseMinDensity full take it: a matrix product does a multiply-add per
// column, zeros included, some thirty times faster than the sparse loop's
// one gather per stored entry, so it wins from about that density on.
const denseMinDensity = 1.0 / 32

// Tile sizes, in float32 entries: query rows are gathered in chunks of at
// most queryEntries (64 MiB), reference rows in tiles of at most
// tileEntries (16 MiB), so memory stays bounded whatever the corpus.
// They are variables so that tests can cut small sets into many tiles.
var (
	queryEntries = 1 << 24
	tileEntries  = 1 << 22
)

// gemmRows is the number of query rows per matrix product, so that one
// block of products (gemmRows × a reference tile) stays small.
const gemmRows = 256

// useDense reports whether x is scored on dense tiles when a set is large.
func useDense(x *Vectors) bool { return x.Dim > 0 && x.Density() >= denseMinDensity }

// rowsPerTile is how many rows of dim columns fit in entries (at least 1).
func rowsPerTile(entries, dim int) int { return max(entries/max(dim, 1), 1) }

// gather writes the rows docs of x densely into dst[:len(docs)·x.Dim].
func gather(x *Vectors, docs []int32, dst []float32) {
	dim := x.Dim
	parallel.For(len(docs), 16, dim, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := dst[r*dim : (r+1)*dim]
			clear(row)
			idx, val := x.Row(int(docs[r]))
			for k, c := range idx {
				row[c] = val[k]
			}
		}
	})
}

// knnDense is Evaluate's kNN on the blocked path: each query document's k
// nearest training documents (squared Euclidean distance |a|²+|b|²−2a·b),
// ordered and voted as metrics.KNN does. Training tiles are visited in
// order, so ties go to the earlier training document as in the exact path.
func knnDense(x *Vectors, norms []float64, train []int32, yTrain []int32, queries []int32, k int) []int32 {
	dim := x.Dim
	k = min(k, len(train))
	trNorm := make([]float64, len(train))
	for a, d := range train {
		trNorm[a] = norms[d]
	}
	nbs := make([]*metrics.Neighbors, len(queries))
	for q := range nbs {
		nbs[q] = metrics.NewNeighbors(k)
	}
	qChunk := min(rowsPerTile(queryEntries, dim), len(queries))
	tChunk := min(rowsPerTile(tileEntries, dim), len(train))
	qbuf := make([]float32, qChunk*dim)
	tbuf := make([]float32, tChunk*dim)
	dots := make([]float32, gemmRows*tChunk)
	for qlo := 0; qlo < len(queries); qlo += qChunk {
		qn := min(qChunk, len(queries)-qlo)
		gather(x, queries[qlo:qlo+qn], qbuf)
		for tlo := 0; tlo < len(train); tlo += tChunk {
			tn := min(tChunk, len(train)-tlo)
			gather(x, train[tlo:tlo+tn], tbuf)
			for blo := 0; blo < qn; blo += gemmRows {
				bn := min(gemmRows, qn-blo)
				tensor.Gemm(false, true, bn, tn, dim, 1, qbuf[blo*dim:], dim, tbuf, dim, 0, dots, tn)
				parallel.For(bn, 1, tn, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						q := qlo + blo + r
						an, nb := norms[queries[q]], nbs[q]
						for c, v := range dots[r*tn : (r+1)*tn] {
							nb.Offer(tlo+c, an+trNorm[tlo+c]-2*float64(v))
						}
					}
				})
			}
		}
	}
	pred := make([]int32, len(queries))
	for q, nb := range nbs {
		pred[q] = nb.Vote(yTrain)
	}
	return pred
}

// linkRows is the number of anchors whose link scores linkBlocked computes
// at once (metrics' own block, so each block is one call of the score).
const linkRows = 64

// linkBlockDots returns a function filling dst (len(rows)·len(test),
// row-major) with the dot products of the test documents at positions
// rows against every test document, on the blocked path: the anchors are
// gathered densely and multiplied with tiles of the test rows.
func linkBlockDots(x *Vectors, test []int32) func(rows []int, dst []float64) {
	dim, n := x.Dim, len(test)
	tChunk := min(rowsPerTile(tileEntries, dim), n)
	// The test rows stay dense between calls when they fit in a few tiles;
	// beyond that each call gathers them again, tile by tile.
	var all []float32
	if n*dim <= 4*tileEntries {
		all = make([]float32, n*dim)
		gather(x, test, all)
	}
	var abuf, tbuf, dots []float32
	return func(rows []int, dst []float64) {
		anchors := make([]int32, len(rows))
		for r, p := range rows {
			anchors[r] = test[p]
		}
		abuf = slices.Grow(abuf[:0], len(rows)*dim)[:len(rows)*dim]
		gather(x, anchors, abuf)
		for tlo := 0; tlo < n; tlo += tChunk {
			tn := min(tChunk, n-tlo)
			var tile []float32
			if all != nil {
				tile = all[tlo*dim : (tlo+tn)*dim]
			} else {
				tbuf = slices.Grow(tbuf[:0], tn*dim)[:tn*dim]
				gather(x, test[tlo:tlo+tn], tbuf)
				tile = tbuf
			}
			dots = slices.Grow(dots[:0], len(rows)*tn)[:len(rows)*tn]
			tensor.Gemm(false, true, len(rows), tn, dim, 1, abuf, dim, tile, dim, 0, dots, tn)
			parallel.For(len(rows), 1, tn, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					out := dst[r*n+tlo : r*n+tlo+tn]
					for c, v := range dots[r*tn : (r+1)*tn] {
						out[c] = float64(v)
					}
				}
			})
		}
	}
}

// cosineScore and negSqScore turn a dot product into a link score: the
// cosine, or −(|a|²+|b|²−2a·b), from the squared norms a and b.
func cosineScore(a, b, dot float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return dot / math.Sqrt(a*b)
}

func negSqScore(a, b, dot float64) float64 { return -(a + b - 2*dot) }

// linkBlocked returns the per-query link AUCs by cosine and by −squared
// distance (metrics.LinkAUCDocsBlocked's) of the test documents at the
// positions queries of test (nil: all), leaving out those without a
// held-out link among test documents (they have no AUC; the means skip
// them). Anchors go in blocks of linkRows, and each block's dot products
// are computed once for both scores.
func linkBlocked(x *Vectors, test []int32, links [][2]int32, queries []int, norms []float64) (perCos, perSq []float64) {
	n := len(test)
	pos := make(map[int32]int, n)
	for p, d := range test {
		pos[d] = p
	}
	linked := make([]bool, n)
	for _, l := range links {
		a, okA := pos[l[0]]
		b, okB := pos[l[1]]
		if okA && okB && a != b {
			linked[a], linked[b] = true, true
		}
	}
	if queries == nil {
		queries = make([]int, n)
		for p := range queries {
			queries[p] = p
		}
	}
	var anchors []int
	for _, p := range queries {
		if linked[p] {
			anchors = append(anchors, p)
		}
	}
	teNorm := make([]float64, n)
	for p, d := range test {
		teNorm[p] = norms[d]
	}
	dots := linkBlockDots(x, test)
	buf := make([]float64, linkRows*n)
	at := make(map[int]int, linkRows) // anchor position → its row of buf
	score := func(f func(a, b, dot float64) float64) metrics.BlockScoreFunc {
		return func(rows []int, dst []float64) {
			parallel.For(len(rows), 1, n, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					a, src := teNorm[rows[r]], buf[at[rows[r]]*n:][:n]
					out := dst[r*n : (r+1)*n]
					for q, d := range src {
						out[q] = f(a, teNorm[q], d)
					}
				}
			})
		}
	}
	cos, negSq := score(cosineScore), score(negSqScore)
	for lo := 0; lo < len(anchors); lo += linkRows {
		block := anchors[lo:min(lo+linkRows, len(anchors))]
		clear(at)
		for r, p := range block {
			at[p] = r
		}
		dots(block, buf[:len(block)*n])
		perCos = append(perCos, metrics.LinkAUCDocsBlocked(test, links, block, cos)...)
		perSq = append(perSq, metrics.LinkAUCDocsBlocked(test, links, block, negSq)...)
	}
	return perCos, perSq
}
