package tensor

import "fmt"

// MatMul returns op(a)·op(b), where a and b are viewed as 2-D (Rows×Cols) and
// op transposes when the flag is set. Without transA the result keeps a's
// leading dimensions, so (B,T,K)·(K,N) gives (B,T,N); with transA it is
// (M,N).
//
//	C = op(A)·op(B):  d op(A) = dC·op(B)ᵀ,  d op(B) = op(A)ᵀ·dC
func (tp *Tape) MatMul(a, b *Tensor, transA, transB bool) *Tensor {
	m, k := a.Rows(), a.Cols()
	if transA {
		m, k = k, m
	}
	kb, n := b.Rows(), b.Cols()
	if transB {
		kb, n = n, kb
	}
	if k != kb {
		panic(fmt.Sprintf("tensor: MatMul: inner dimensions differ: %v (transA=%v) and %v (transB=%v)", a.Shape, transA, b.Shape, transB))
	}
	var y *Tensor
	if !transA && len(a.Shape) > 2 {
		var shape [MaxDims]int
		r := copy(shape[:], a.Shape[:len(a.Shape)-1])
		shape[r] = n
		y = tp.alloc(anyGrad2(a, b), shape[:r+1]...)
	} else {
		y = tp.alloc(anyGrad2(a, b), m, n)
	}
	sgemm(transA, transB, m, n, k, 1, a.Data, a.Cols(), b.Data, b.Cols(), 0, y.Data, n)
	if nd := tp.push(y, matMulBackward); nd != nil {
		nd.a, nd.b = a, b
		nd.i = [4]int{m, n, k, boolInt(transA) | boolInt(transB)<<1}
	}
	return y
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func matMulBackward(nd *node) {
	a, b, dC := nd.a, nd.b, nd.out.Grad
	m, n, k := nd.i[0], nd.i[1], nd.i[2]
	tA, tB := nd.i[3]&1 != 0, nd.i[3]&2 != 0
	lda, ldb := a.Cols(), b.Cols()
	if a.Grad != nil {
		if !tA { // dA (m×k) += dC·op(B)ᵀ
			sgemm(false, !tB, m, k, n, 1, dC, n, b.Data, ldb, 1, a.Grad, lda)
		} else { // dA (k×m) += op(B)·dCᵀ
			sgemm(tB, true, k, m, n, 1, b.Data, ldb, dC, n, 1, a.Grad, lda)
		}
	}
	if b.Grad != nil {
		if !tB { // dB (k×n) += op(A)ᵀ·dC
			sgemm(!tA, false, k, n, m, 1, a.Data, lda, dC, n, 1, b.Grad, ldb)
		} else { // dB (n×k) += dCᵀ·op(A)
			sgemm(true, tA, n, k, m, 1, dC, n, a.Data, lda, 1, b.Grad, ldb)
		}
	}
}

// Linear returns x·w + b for x (…,in), w (in,out) and b (out) or nil; the
// result is (…,out).
//
// The bias is written into the output rows first and the product added with
// β=1, so bias costs no extra pass over the output.
//
//	y = x·w + b:  dx += dy·wᵀ,  dw += xᵀ·dy,  db += Σ_rows dy
func (tp *Tape) Linear(x, w, b *Tensor) *Tensor {
	if len(w.Shape) != 2 || x.Cols() != w.Shape[0] {
		panic(fmt.Sprintf("tensor: Linear: input %v does not fit weight %v (want (…,%d) and (in,out))", x.Shape, w.Shape, x.Cols()))
	}
	in, out := w.Shape[0], w.Shape[1]
	if b != nil && (len(b.Data) != out) {
		panic(fmt.Sprintf("tensor: Linear: bias %v does not fit weight %v", b.Shape, w.Shape))
	}
	var shape [MaxDims]int
	r := copy(shape[:], x.Shape[:len(x.Shape)-1])
	shape[r] = out
	y := tp.alloc(x.Grad != nil || w.Grad != nil || (b != nil && b.Grad != nil), shape[:r+1]...)
	rows := x.Rows()
	beta := float32(0)
	if b != nil {
		beta = 1
		parallelFor(rows, 64, out, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(y.Data[i*out:(i+1)*out], b.Data)
			}
		})
	}
	sgemm(false, false, rows, out, in, 1, x.Data, in, w.Data, out, beta, y.Data, out)
	if nd := tp.push(y, linearBackward); nd != nil {
		nd.a, nd.b, nd.c = x, w, b
		if b != nil && b.Grad != nil {
			nd.aux2 = tp.alloc(false, reduceBlocks(x.Rows()), out) // db partial sums
		}
	}
	return y
}

func linearBackward(nd *node) {
	x, w, b, dy := nd.a, nd.b, nd.c, nd.out.Grad
	in, out := w.Shape[0], w.Shape[1]
	rows := x.Rows()
	if x.Grad != nil {
		sgemm(false, true, rows, in, out, 1, dy, out, w.Data, out, 1, x.Grad, in)
	}
	if w.Grad != nil {
		sgemm(true, false, in, out, rows, 1, x.Data, in, dy, out, 1, w.Grad, out)
	}
	if b != nil && b.Grad != nil {
		colSumInto(b.Grad, dy, rows, out, nd.aux2.Data)
	}
}

// colSumInto adds the column sums of the rows×cols matrix m to dst (cols).
// Rows are split into reduceBlocks(rows) fixed blocks, each summed whole rows
// at a time (sequential memory) into its own partial row of part, and the
// partials are added in block order (deterministic; see parallelBlocks).
func colSumInto(dst, m []float32, rows, cols int, part []float32) {
	clear(part)
	parallelBlocks(rows, cols, func(b, lo, hi int) {
		d := part[b*cols : (b+1)*cols]
		for r := lo; r < hi; r++ {
			addTo(d, m[r*cols:(r+1)*cols]) // per column the same adds in row order, eight lanes at a time
		}
	})
	for b := range reduceBlocks(rows) {
		for j, v := range part[b*cols : (b+1)*cols] {
			dst[j] += v
		}
	}
}

// BatchedMatMul returns op(a[i])·op(b[i]) for each i of a batch: a (B,M,K)
// and b (B,K,N) (before the optional transposes) give (B,M,N). The batch is
// spread over the cores with one single-threaded BLAS call per item, which
// beats threaded BLAS on many small products.
//
//	C_i = op(A_i)·op(B_i):  d op(A_i) = dC_i·op(B_i)ᵀ,  d op(B_i) = op(A_i)ᵀ·dC_i
func (tp *Tape) BatchedMatMul(a, b *Tensor, transA, transB bool) *Tensor {
	if len(a.Shape) != 3 || len(b.Shape) != 3 || a.Shape[0] != b.Shape[0] {
		panic(fmt.Sprintf("tensor: BatchedMatMul: want (B,M,K) and (B,K,N), got %v and %v", a.Shape, b.Shape))
	}
	bs := a.Shape[0]
	m, k := a.Shape[1], a.Shape[2]
	if transA {
		m, k = k, m
	}
	kb, n := b.Shape[1], b.Shape[2]
	if transB {
		kb, n = n, kb
	}
	if k != kb {
		panic(fmt.Sprintf("tensor: BatchedMatMul: inner dimensions differ: %v (transA=%v) and %v (transB=%v)", a.Shape, transA, b.Shape, transB))
	}
	y := tp.alloc(anyGrad2(a, b), bs, m, n)
	sa, sb, sc := m*k, k*n, m*n
	lda, ldb := a.Shape[2], b.Shape[2]
	parallelFor(bs, 1, 2*m*n*k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sgemmSerial(transA, transB, m, n, k, 1, a.Data[i*sa:(i+1)*sa], lda, b.Data[i*sb:(i+1)*sb], ldb, 0, y.Data[i*sc:(i+1)*sc], n)
		}
	})
	if nd := tp.push(y, batchedMatMulBackward); nd != nil {
		nd.a, nd.b = a, b
		nd.i = [4]int{m, n, k, boolInt(transA) | boolInt(transB)<<1}
	}
	return y
}

func batchedMatMulBackward(nd *node) {
	a, b, dC := nd.a, nd.b, nd.out.Grad
	m, n, k := nd.i[0], nd.i[1], nd.i[2]
	tA, tB := nd.i[3]&1 != 0, nd.i[3]&2 != 0
	lda, ldb := a.Shape[2], b.Shape[2]
	sa, sb, sc := m*k, k*n, m*n
	parallelFor(a.Shape[0], 1, 4*m*n*k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			A, B, G := a.Data[i*sa:(i+1)*sa], b.Data[i*sb:(i+1)*sb], dC[i*sc:(i+1)*sc]
			if a.Grad != nil {
				dA := a.Grad[i*sa : (i+1)*sa]
				if !tA {
					sgemmSerial(false, !tB, m, k, n, 1, G, n, B, ldb, 1, dA, lda)
				} else {
					sgemmSerial(tB, true, k, m, n, 1, B, ldb, G, n, 1, dA, lda)
				}
			}
			if b.Grad != nil {
				dB := b.Grad[i*sb : (i+1)*sb]
				if !tB {
					sgemmSerial(!tA, false, k, n, m, 1, A, lda, G, n, 1, dB, ldb)
				} else {
					sgemmSerial(true, tA, n, k, m, 1, G, n, A, lda, 1, dB, ldb)
				}
			}
		}
	})
}
