// Package baseline computes honest, training-free document representations
// and scores them with the paper's protocol (package metrics), so that every
// evaluation table can show what a model adds over them (docs/design.md,
// "Baselines"):
//
//   - tfidf: tf-idf vectors (scikit-learn TfidfTransformer defaults);
//   - tfidf-graph: the same, averaged twice over the split's neighbour lists;
//   - glove-graph: mean word vectors of each document, averaged likewise.
//
// Representation: vectors are sparse rows (CSR, float32 values, float64
// arithmetic). tf-idf rows hold a document's distinct words (tens of
// entries); two hops of averaging over Cora's citation graph leave them
// about a fifth full, which sparse storage still handles at the cost of a
// dense matrix at worst, while a corpus of 500,000 documents and 50,000
// words, where a dense (N,V) float32 matrix would need 100 GB, stays within
// memory. Callers that want a dense (N,V) matrix (e.g. to feed plots) use
// Vectors.Dense when N·V is small.
package baseline

import (
	"fmt"
	"math"
	"slices"
)

// Vectors is a sparse (N,Dim) matrix in CSR form: row i has the entries
// Val[Ptr[i]:Ptr[i+1]] in columns Idx[Ptr[i]:Ptr[i+1]], columns ascending,
// no explicit zeros.
type Vectors struct {
	Dim int
	Ptr []int64
	Idx []int32
	Val []float32
}

// Clone returns a deep copy of v.
func (v *Vectors) Clone() *Vectors {
	return &Vectors{Dim: v.Dim, Ptr: slices.Clone(v.Ptr), Idx: slices.Clone(v.Idx), Val: slices.Clone(v.Val)}
}

// NumRows is N.
func (v *Vectors) NumRows() int { return len(v.Ptr) - 1 }

// Row returns the columns and values of row i (aliasing v).
func (v *Vectors) Row(i int) ([]int32, []float32) {
	return v.Idx[v.Ptr[i]:v.Ptr[i+1]], v.Val[v.Ptr[i]:v.Ptr[i+1]]
}

// NNZ is the number of stored entries.
func (v *Vectors) NNZ() int { return len(v.Idx) }

// Density is NNZ / (N·Dim).
func (v *Vectors) Density() float64 {
	if v.NumRows() == 0 || v.Dim == 0 {
		return 0
	}
	return float64(v.NNZ()) / (float64(v.NumRows()) * float64(v.Dim))
}

// MaxDense is the largest N·Dim that Dense materialises (1 GiB of float32).
const MaxDense = 1 << 28

// Dense returns the rows as a row-major (N,Dim) float32 matrix. It reports an
// error when N·Dim exceeds MaxDense.
func (v *Vectors) Dense() ([]float32, error) {
	n := v.NumRows()
	if int64(n)*int64(v.Dim) > MaxDense {
		return nil, fmt.Errorf("baseline: a dense %d×%d matrix exceeds %d entries; use the sparse rows", n, v.Dim, MaxDense)
	}
	out := make([]float32, n*v.Dim)
	for i := range n {
		idx, val := v.Row(i)
		for k, c := range idx {
			out[i*v.Dim+int(c)] = val[k]
		}
	}
	return out, nil
}

// sqNorms returns |row_i|² in float64.
func (v *Vectors) sqNorms() []float64 {
	out := make([]float64, v.NumRows())
	for i := range out {
		_, val := v.Row(i)
		var s float64
		for _, x := range val {
			s += float64(x) * float64(x)
		}
		out[i] = s
	}
	return out
}

// dot is the dot product of two sparse rows (sorted columns), in float64.
func dot(ai []int32, av []float32, bi []int32, bv []float32) float64 {
	var s float64
	for p, q := 0, 0; p < len(ai) && q < len(bi); {
		switch {
		case ai[p] < bi[q]:
			p++
		case ai[p] > bi[q]:
			q++
		default:
			s += float64(av[p]) * float64(bv[q])
			p++
			q++
		}
	}
	return s
}

// accumulator sums sparse rows into a dense float64 buffer and emits the
// sum as a sparse row, touching only the columns it saw.
type accumulator struct {
	sum     []float64
	seen    []bool
	touched []int32
}

func newAccumulator(dim int) *accumulator {
	return &accumulator{sum: make([]float64, dim), seen: make([]bool, dim)}
}

func (a *accumulator) add(idx []int32, val []float32) {
	for k, c := range idx {
		if !a.seen[c] {
			a.seen[c] = true
			a.touched = append(a.touched, c)
		}
		a.sum[c] += float64(val[k])
	}
}

// flush appends the accumulated row, scaled by s, to v and resets.
func (a *accumulator) flush(v *Vectors, s float64) {
	slices.Sort(a.touched)
	for _, c := range a.touched {
		if x := float32(a.sum[c] * s); x != 0 {
			v.Idx = append(v.Idx, c)
			v.Val = append(v.Val, x)
		}
		a.sum[c], a.seen[c] = 0, false
	}
	a.touched = a.touched[:0]
	v.Ptr = append(v.Ptr, int64(len(v.Idx)))
}

// l2Normalize scales every nonzero row to unit Euclidean norm in place.
func l2Normalize(v *Vectors) {
	for i, n := range v.sqNorms() {
		if n == 0 {
			continue
		}
		s := 1 / math.Sqrt(n)
		_, val := v.Row(i)
		for k := range val {
			val[k] = float32(float64(val[k]) * s)
		}
	}
}
