package metrics

import (
	"fmt"

	"github.com/gtformer/gtformer/internal/parallel"
)

// DefaultK is the number of neighbours of the paper's kNN protocol.
const DefaultK = 5

// KNN predicts a label for each test row by a majority vote among its k
// nearest training rows under Euclidean distance, as scikit-learn's
// KNeighborsClassifier(n_neighbors=k) with uniform weights does.
//
// train is (Ntr,dim) and test is (Nte,dim), row-major; yTrain has Ntr labels.
// Neighbours are ordered by distance, then by training index (deterministic
// tie-breaking); a tied vote goes to the smallest label, as in scikit-learn.
// k larger than Ntr is clamped to Ntr. Squared distances are computed as
// |a|²+|b|²−2a·b with float64 accumulation, in parallel over test rows.
// Above ExactKNNPairs test×training pairs the dot products come from
// float32 matrix products in blocks of bounded size instead (KNNBlocked):
// the same neighbours up to float32 rounding of near-ties, at BLAS speed.
func KNN(train []float32, yTrain []int32, test []float32, dim, k int) []int32 {
	nTr, nTe := knnRows(train, yTrain, test, dim)
	if int64(nTr)*int64(nTe) > ExactKNNPairs {
		return KNNBlocked(train, yTrain, test, dim, k)
	}
	trNorm := rowSqNorms(train, dim)
	return KNNFunc(nTe, yTrain, k, func(i int, dst []float64) {
		a := test[i*dim : (i+1)*dim]
		var an float64
		for _, v := range a {
			an += float64(v) * float64(v)
		}
		dots(a, train, dim, dst)
		for j := range dst {
			dst[j] = an + trNorm[j] - 2*dst[j]
		}
	})
}

// knnRows checks KNN's arguments (programmer errors panic) and returns the
// training and test row counts.
func knnRows(train []float32, yTrain []int32, test []float32, dim int) (nTr, nTe int) {
	if dim <= 0 || len(train)%dim != 0 || len(test)%dim != 0 {
		panic(fmt.Sprintf("metrics: KNN: dim %d does not divide train (%d) and test (%d) lengths", dim, len(train), len(test)))
	}
	nTr, nTe = len(train)/dim, len(test)/dim
	if len(yTrain) != nTr {
		panic(fmt.Sprintf("metrics: KNN: %d training labels for %d training rows", len(yTrain), nTr))
	}
	return nTr, nTe
}

// KNNFunc is KNN over a caller-supplied distance: dist(i, dst) fills dst
// (length len(yTrain)) with the distances of test item i to every training
// item. Any monotone function of the distance gives the same predictions.
// dist is called concurrently from several goroutines, each with its own dst.
// It lets callers with sparse or otherwise special vectors reuse the
// neighbour selection and vote of KNN.
func KNNFunc(nTest int, yTrain []int32, k int, dist func(i int, dst []float64)) []int32 {
	if k < 1 {
		panic(fmt.Sprintf("metrics: KNN: k = %d, want ≥ 1", k))
	}
	nTr := len(yTrain)
	if nTr == 0 {
		panic("metrics: KNN: no training items")
	}
	k = min(k, nTr)
	pred := make([]int32, nTest)
	parallel.Each(nTest, func() func(i int) {
		d := make([]float64, nTr)
		nb := make([]int, 0, k) // indices of the k nearest so far, nearest first
		return func(i int) {
			dist(i, d)
			nb = nearest(d, k, nb[:0])
			pred[i] = vote(yTrain, nb)
		}
	})
	return pred
}

// nearest returns the indices of the k smallest d[j], ordered by (d[j], j).
// Scanning j in increasing order and inserting only on a strictly smaller
// distance keeps the earlier index first among equal distances.
func nearest(d []float64, k int, nb []int) []int {
	for j, v := range d {
		if len(nb) == k && v >= d[nb[k-1]] {
			continue
		}
		p := len(nb)
		if p < k {
			nb = append(nb, j)
		} else {
			p = k - 1
		}
		for p > 0 && d[nb[p-1]] > v {
			nb[p] = nb[p-1]
			p--
		}
		nb[p] = j
	}
	return nb
}

// vote returns the most frequent label among the neighbours, the smallest
// label on a tie (scipy.stats.mode, used by scikit-learn, does the same).
// O(k²), which beats a map for the small k used here.
func vote(y []int32, nb []int) int32 {
	best, bestN := int32(0), 0
	for _, j := range nb {
		l, n := y[j], 0
		for _, j2 := range nb {
			if y[j2] == l {
				n++
			}
		}
		if n > bestN || (n == bestN && l < best) {
			best, bestN = l, n
		}
	}
	return best
}

// rowSqNorms returns |x_j|² for each row of x (N,dim).
func rowSqNorms(x []float32, dim int) []float64 {
	n := make([]float64, len(x)/dim)
	for j := range n {
		var s float64
		for _, v := range x[j*dim : (j+1)*dim] {
			s += float64(v) * float64(v)
		}
		n[j] = s
	}
	return n
}

// dots sets dst[j] = a·x_j for every row x_j of x (N,dim), four rows at a
// time so that the float64 accumulators run independently.
func dots(a, x []float32, dim int, dst []float64) {
	n := len(dst)
	j := 0
	for ; j+4 <= n; j += 4 {
		// Reslicing to len(a) lets the compiler drop the bounds checks.
		r0 := x[j*dim : (j+1)*dim][:len(a)]
		r1 := x[(j+1)*dim : (j+2)*dim][:len(a)]
		r2 := x[(j+2)*dim : (j+3)*dim][:len(a)]
		r3 := x[(j+3)*dim : (j+4)*dim][:len(a)]
		var s0, s1, s2, s3 float64
		for c, v := range a {
			av := float64(v)
			s0 += av * float64(r0[c])
			s1 += av * float64(r1[c])
			s2 += av * float64(r2[c])
			s3 += av * float64(r3[c])
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = s0, s1, s2, s3
	}
	for ; j < n; j++ {
		var s float64
		for c, v := range x[j*dim : (j+1)*dim] {
			s += float64(a[c]) * float64(v)
		}
		dst[j] = s
	}
}
