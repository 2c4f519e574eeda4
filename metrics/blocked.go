package metrics

import (
	"fmt"
	"github.com/gtformer/gtformer/internal/parallel"

	"github.com/gtformer/gtformer/tensor"
)

// ExactKNNPairs is the number of test×training pairs up to which KNN
// computes every distance in float64, one test row at a time (the paper's
// three corpora need at most about 2 million). Above it, KNN goes through
// KNNBlocked: an exact float64 scan of 445K documents would take hours.
const ExactKNNPairs = 1 << 28

// Tiles of KNNBlocked: test rows per block and training rows per tile,
// so the float32 dot products of one tile take 256×8192×4 B = 8 MiB.
const (
	knnTestBlock  = 256
	knnTrainBlock = 8192
)

// KNNBlocked is KNN with the dot products a·b computed by float32 matrix
// products (tensor.Gemm) over tiles of test and training rows, so memory
// stays bounded (one tile of products and k neighbours per test row) and
// the work runs at BLAS speed. Distances are |a|²+|b|²−2a·b with the norms
// in float64; neighbours are ordered by (distance, training index) as in
// KNN, so results differ from KNN's only where float32 rounding reorders
// near-ties.
func KNNBlocked(train []float32, yTrain []int32, test []float32, dim, k int) []int32 {
	nTr, nTe := knnRows(train, yTrain, test, dim)
	if k < 1 {
		panic(fmt.Sprintf("metrics: KNN: k = %d, want ≥ 1", k))
	}
	if nTr == 0 {
		panic("metrics: KNN: no training items")
	}
	k = min(k, nTr)
	trNorm := rowSqNorms(train, dim)
	teNorm := rowSqNorms(test, dim)
	pred := make([]int32, nTe)
	dots := make([]float32, knnTestBlock*knnTrainBlock)
	// Per test row of a block: its k nearest so far (indices, distances),
	// nearest first.
	nbIdx := make([][]int, knnTestBlock)
	nbDist := make([][]float64, knnTestBlock)
	for r := range nbIdx {
		nbIdx[r] = make([]int, 0, k)
		nbDist[r] = make([]float64, 0, k)
	}
	for lo := 0; lo < nTe; lo += knnTestBlock {
		bt := min(knnTestBlock, nTe-lo)
		for r := range bt {
			nbIdx[r], nbDist[r] = nbIdx[r][:0], nbDist[r][:0]
		}
		for jlo := 0; jlo < nTr; jlo += knnTrainBlock {
			bj := min(knnTrainBlock, nTr-jlo)
			// dots (bt, bj) = test[lo:lo+bt] · train[jlo:jlo+bj]ᵀ
			tensor.Gemm(false, true, bt, bj, dim, 1, test[lo*dim:], dim, train[jlo*dim:], dim, 0, dots, bj)
			parallel.Each(bt, func() func(r int) {
				return func(r int) {
					an := teNorm[lo+r]
					row := dots[r*bj : (r+1)*bj]
					idx, dist := nbIdx[r], nbDist[r]
					for c, v := range row {
						d := an + trNorm[jlo+c] - 2*float64(v)
						idx, dist = insertNearest(idx, dist, k, jlo+c, d)
					}
					nbIdx[r], nbDist[r] = idx, dist
				}
			})
		}
		for r := range bt {
			pred[lo+r] = vote(yTrain, nbIdx[r])
		}
	}
	return pred
}

// insertNearest adds item j at distance d to the k nearest so far (idx,
// dist, nearest first), keeping an earlier item first among equal
// distances: items arrive in increasing j, and one enters a full list only
// when strictly nearer than its last.
func insertNearest(idx []int, dist []float64, k, j int, d float64) ([]int, []float64) {
	if len(idx) == k && d >= dist[k-1] {
		return idx, dist
	}
	p := len(idx)
	if p < k {
		idx, dist = append(idx, j), append(dist, d)
	} else {
		p = k - 1
	}
	for p > 0 && dist[p-1] > d {
		idx[p], dist[p] = idx[p-1], dist[p-1]
		p--
	}
	idx[p], dist[p] = j, d
	return idx, dist
}
