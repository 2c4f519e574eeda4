// Package gemm is a pure-Go single-precision matrix product (sgemm) for
// row-major matrices, fast enough to train on machines without OpenBLAS.
//
// It follows the layout of Goto and van de Geijn's "Anatomy of
// high-performance matrix multiplication" (and BLIS): op(B) is copied
// ("packed") in blocks of kc rows × nc columns into panels of NR columns,
// each task packs its rows of op(A) for the same kc steps into panels of MR
// rows, and an assembly micro-kernel computes one MR×NR tile of C at a time
// with the whole tile in vector registers. The A panel being used (MR×kc)
// stays in L1 while the task's B panels stream from L2. The AVX-512
// kernels skip the copy where a k step's values already lie together or a
// row apart — A's rows, a transposed A's columns, an untransposed B's rows
// — and read them in place (Kernel.direct, Kernel.strided); a product with
// few tiles over many k blocks (a weight gradient) gives each task whole
// tiles over every block (Kernel.deep).
//
// Kernels: AVX-512 (12×32 tile) and AVX2+FMA (6×16 tile) on amd64, chosen by
// the caller from Kernels() (those the CPU supports, fastest first). Other
// architectures, and amd64 built with the purego tag, have none; callers use
// gonum's blas32 there.
//
// Every element of C is computed by the same arithmetic whatever the number
// of cores, however tasks are scheduled and wherever its row and column sit
// (k in blocks of kc, in order, each block by one kernel call, edge tiles
// like full ones): a product is bit-for-bit repeatable, and a row of C is
// the same whether computed alone or among others.
package gemm

import (
	"fmt"
	"sync"
	"unsafe"
)

// Parallel runs fn over disjoint ranges covering [0,n), possibly at the same
// time on several goroutines, and returns when all have finished; cost is
// the work of one unit of n in floating-point operations, for deciding
// whether splitting is worth it. The caller of Sgemm supplies it, so that
// the product shares the caller's worker pool instead of starting its own.
type Parallel func(n, cost int, fn func(lo, hi int))

// Kernel is one micro-kernel with its blocking.
type Kernel struct {
	name   string
	mr, nr int // tile: rows of op(A), columns of op(B)
	kc     int // k steps per packed block
	mc     int // rows of op(A) per task at most (a multiple of mr)
	nc     int // columns of op(B) per packed block (a multiple of nr)
	id     int // which assembly kernel Kernel.call runs
	// direct: the kernel can read full tiles' rows of an untransposed A in
	// place (callDirect), so that only a task's last, partial panel is
	// packed; false: every panel is packed.
	direct bool
	// strided: the kernel can read its operands at any stride
	// (callStrided), so that the full panels of a transposed A and of an
	// untransposed B are read in place, unpacked (both are runs of
	// contiguous values per k step).
	strided bool
}

// Name is the kernel's name as the tensor package reports it: "go-avx512"
// or "go-avx2".
func (kn *Kernel) Name() string { return kn.name }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C, where op(A) is m×k and
// op(B) is k×n, all row-major: A is m×k with rows lda floats apart (k×m when
// tA), B is k×n with rows ldb apart (n×k when tB), C is m×n with rows ldc
// apart. With beta = 0, C is not read. par spreads the work over up to
// workers goroutines; nil runs everything on the calling goroutine.
//
// Sgemm panics when the dimensions or slices do not fit (a programmer
// error).
func (kn *Kernel) Sgemm(par Parallel, workers int, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	CheckArgs(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scale(m, n, beta, c, ldc)
		return
	}
	if par == nil {
		workers = 1
	}
	pr := getProduct()
	*pr = product{kn: kn, tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, beta0: beta, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
		grid: kn.plan(m, n, workers), packFn: pr.packFn, computeFn: pr.computeFn, deepFn: pr.deepFn,
		serial: workers == 1, own: pr.own}
	if workers > 1 && kn.deep(m, n, k) {
		// Few tiles over many k blocks: each task runs every block of
		// its tiles itself, one parallel call in all.
		pr.grid = kn.deepPlan(m, n, workers)
		par(pr.mTasks*pr.nSplit, 2*m*n*k/(pr.mTasks*pr.nSplit), pr.deepFn)
	} else {
		pb := pr.buf(&bBufs, 0, kn.kc*min(roundUp(n, kn.nr), kn.nc))
		for jc := 0; jc < n; jc += kn.nc {
			pr.jc, pr.nc = jc, min(kn.nc, n-jc)
			pr.panels = (pr.nc + kn.nr - 1) / kn.nr
			pr.perSplit = (pr.panels + pr.nSplit - 1) / pr.nSplit
			for pc := 0; pc < k; pc += kn.kc {
				pr.pc, pr.kc = pc, min(kn.kc, k-pc)
				pr.beta = beta
				if pc > 0 {
					pr.beta = 1 // later k blocks add to what the first wrote
				}
				pr.bp = pb.f[:pr.panels*pr.kc*kn.nr]
				tasks := pr.mTasks * pr.nSplit
				if workers > 1 {
					par(pr.panels, 2*pr.kc*kn.nr, pr.packFn)
					par(tasks, 2*pr.mc*pr.kc*pr.perSplit*kn.nr, pr.computeFn)
				} else {
					pr.pack(0, pr.panels)
					pr.compute(0, tasks)
				}
			}
		}
		pr.putBuf(&bBufs, pb)
	}
	pr.a, pr.b, pr.c, pr.bp = nil, nil, nil, nil // do not keep the caller's matrices alive
	products.put(pr)
}

// product is one Sgemm call's state, shared by its tasks. It is reused
// (products), with its pack and compute methods bound once, so that handing
// them to Parallel allocates nothing.
type product struct {
	kn            *Kernel
	tA, tB        bool
	m, n, k       int
	alpha         float32
	beta0         float32 // the caller's beta (the first k block's)
	a, b, c       []float32
	lda, ldb, ldc int
	grid              // the task grid
	block             // the current block of the shared schedule
	panels        int // B panels in the current column block
	perSplit      int // B panels per task
	packFn        func(lo, hi int)
	computeFn     func(lo, hi int)
	deepFn        func(lo, hi int)
	// serial: the product runs on the calling goroutine alone, and takes
	// its packing space from own (B, then A), which stays with the product
	// from call to call, rather than from the shared lists: a small
	// product (an attention head's) then takes one lock, not three.
	serial bool
	own    [2]buf
}

// buf returns packing space for n floats: the product's own buffer i
// (0: B, 1: A) when it runs serially, else one from l.
func (pr *product) buf(l *freeList[buf], i, n int) *buf {
	if pr.serial {
		b := &pr.own[i]
		b.grow(n)
		return b
	}
	return getBuf(l, n)
}

// putBuf returns b, which pr.buf gave, to l unless the product owns it.
func (pr *product) putBuf(l *freeList[buf], b *buf) {
	if !pr.serial {
		l.put(b)
	}
}

// block is one k block of one column block: what a task's tiles read.
type block struct {
	jc, nc, pc, kc int       // columns jc…jc+nc, k steps pc…pc+kc
	beta           float32   // 1 after the first k block: later blocks add to what it wrote
	bp             []float32 // packed B: panel jp at bp[(jp−p0)·kc·nr:]
	p0             int       // the first panel bp holds
}

var products freeList[product]

// getProduct returns a product with its methods bound.
func getProduct() *product {
	pr := products.get()
	if pr.packFn == nil {
		pr.packFn, pr.computeFn, pr.deepFn = pr.pack, pr.compute, pr.deepTasks
	}
	return pr
}

// pack packs B panels [lo,hi) of the current block.
func (pr *product) pack(lo, hi int) {
	for jp := lo; jp < hi; jp++ {
		pr.packPanel(&pr.block, jp)
	}
}

// packPanel packs panel jp of blk into its place in blk.bp, unless the
// tasks read it in place (inPlaceB).
func (pr *product) packPanel(blk *block, jp int) {
	nr, kc := pr.kn.nr, blk.kc
	j := jp * nr
	if pr.inPlaceB() && j+nr <= blk.nc {
		return
	}
	packB(blk.bp[(jp-blk.p0)*kc*nr:(jp-blk.p0+1)*kc*nr], pr.b, pr.ldb, pr.tB, blk.pc, kc, blk.jc+j, min(nr, blk.nc-j), nr)
}

// compute runs tasks [lo,hi) of the current block: task t covers row block
// t/nSplit against B panel range t%nSplit.
func (pr *product) compute(lo, hi int) {
	for t := lo; t < hi; t++ {
		i0 := (t / pr.nSplit) * pr.mc
		p0 := (t % pr.nSplit) * pr.perSplit
		pr.task(&pr.block, i0, min(i0+pr.mc, pr.m), p0, min(p0+pr.perSplit, pr.panels))
	}
}

// grid is how one packed block of B is shared out: mTasks row blocks of mc
// rows, each split into nSplit ranges of B's panels.
type grid struct{ mc, mTasks, nSplit int }

// plan picks the task grid: blocks of at most kn.mc rows, smaller ones (and
// B split as well) when that is what it takes to give every worker about
// four tasks, so that a core slowed by other load hands work over.
func (kn *Kernel) plan(m, n, workers int) grid {
	g := grid{mc: min(kn.mc, roundUp(m, kn.mr)), nSplit: 1}
	if workers > 1 {
		want := 4 * workers
		g.mc = max(kn.mr, min(g.mc, roundUp((m+want-1)/want, kn.mr)))
		if mTasks := (m + g.mc - 1) / g.mc; mTasks < want {
			panels := (min(n, kn.nc) + kn.nr - 1) / kn.nr
			g.nSplit = max(1, min(panels/2, (want+mTasks-1)/mTasks))
		}
	}
	g.mTasks = (m + g.mc - 1) / g.mc
	return g
}

// deep reports whether a product takes the deep schedule: one column
// block, few tiles and many k blocks (a weight gradient, Xᵀ·dY over
// thousands of rows). The shared schedule would pack B and run the tiles
// in two parallel calls per k block, each too small to pay for starting
// and joining the workers; the deep one gives each task whole tiles over
// every k block. The arithmetic of an element is the same either way.
func (kn *Kernel) deep(m, n, k int) bool {
	return n <= kn.nc && k >= deepMinK*kn.kc && m*n <= deepMaxArea
}

// The deep schedule's bounds: at least deepMinK k blocks, and C small
// enough (deepMaxArea elements) that the tiles come in few tasks.
const (
	deepMinK    = 4
	deepMaxArea = 512 * 512
)

// deepPlan splits C into deepTasksPer tasks per worker along its longer
// side. Each task packs what it reads itself, so splitting the rows packs
// B again for every row block, and splitting the columns packs A again:
// splitting the longer side repacks the smaller operand.
func (kn *Kernel) deepPlan(m, n, workers int) grid {
	want := deepTasksPer * workers
	if n > m {
		panels := (n + kn.nr - 1) / kn.nr
		return grid{mc: roundUp(m, kn.mr), mTasks: 1, nSplit: max(1, min(panels, want))}
	}
	g := grid{mc: roundUp((m+want-1)/want, kn.mr), nSplit: 1}
	g.mTasks = (m + g.mc - 1) / g.mc
	return g
}

// deepTasksPer is how many deep tasks each worker gets.
const deepTasksPer = 1

// deepTasks runs deep tasks [lo,hi): task t covers row block t/nSplit
// against its range of the panels, over every k block, packing those
// panels into a buffer of its own.
func (pr *product) deepTasks(lo, hi int) {
	kn := pr.kn
	panels := (pr.n + kn.nr - 1) / kn.nr
	per := (panels + pr.nSplit - 1) / pr.nSplit
	for t := lo; t < hi; t++ {
		i0 := (t / pr.nSplit) * pr.mc
		p0 := (t % pr.nSplit) * per
		p1 := min(p0+per, panels)
		if i0 >= pr.m || p0 >= p1 {
			continue
		}
		pb := getBuf(&bBufs, kn.kc*(p1-p0)*kn.nr)
		blk := block{jc: 0, nc: pr.n, p0: p0}
		for pc := 0; pc < pr.k; pc += kn.kc {
			blk.pc, blk.kc = pc, min(kn.kc, pr.k-pc)
			blk.beta = pr.beta0
			if pc > 0 {
				blk.beta = 1
			}
			blk.bp = pb.f[:(p1-p0)*blk.kc*kn.nr]
			for jp := p0; jp < p1; jp++ {
				pr.packPanel(&blk, jp)
			}
			pr.task(&blk, i0, min(i0+pr.mc, pr.m), p0, p1)
		}
		bBufs.put(pb)
	}
}

// inPlaceA reports whether the full panels of A are read where they are,
// untransposed by kernel12x32d or transposed by the strided kernel, when
// their rows do not all fall into one set of the L1 cache (rows 4 KiB
// apart would evict each other).
func (pr *product) inPlaceA() bool {
	return pr.lda%1024 != 0 && (pr.kn.direct && !pr.tA || pr.kn.strided && pr.tA)
}

// inPlaceB reports whether the full panels of B are read where they are:
// an untransposed B, by a kernel that reads it at a stride.
func (pr *product) inPlaceB() bool {
	return pr.kn.strided && !pr.tB && pr.ldb%1024 != 0
}

// task computes rows [i0,i1) of C against B panels [p0,p1) of blk.
func (pr *product) task(blk *block, i0, i1, p0, p1 int) {
	kn, kc, c, ldc, beta := pr.kn, blk.kc, pr.c, pr.ldc, blk.beta
	mr, nr := kn.mr, kn.nr
	direct := 0 // rows of A read in place: its full panels
	if pr.inPlaceA() {
		direct = (i1 - i0) / mr * mr
	}
	strided := kn.strided && pr.tA
	inB := pr.inPlaceB()
	size := roundUp(i1-i0-direct, mr) * kc
	pa := pr.buf(&aBufs, 1, size+maxTile)
	ap, tile := pa.f[:size], pa.f[size:size+maxTile]
	if size > 0 {
		packA(ap, pr.a, pr.lda, pr.tA, i0+direct, i1-i0-direct, blk.pc, kc, mr)
	}
	for i := i0; i < i1; i += mr {
		rows := min(mr, i1-i)
		var apan []float32
		if i-i0 >= direct {
			apan = ap[(i-i0-direct)*kc : (i-i0-direct+mr)*kc]
		}
		for jp := p0; jp < p1; jp++ {
			j := jp * nr
			cols := min(nr, blk.nc-j)
			full := rows == mr && cols == nr
			// The tile's rows of C, or for an edge tile a copy of the part
			// inside C, so that every element goes through the same
			// arithmetic as in a full tile (a row's result does not depend
			// on where the row sits in A, nor on how many rows A has).
			cp, cld := &tile[0], nr
			if full {
				// In bounds: CheckArgs made sure C holds m rows of n (and
				// A m rows of k).
				cp, cld = &c[i*ldc+blk.jc+j], ldc
			} else if beta != 0 {
				for r := range rows {
					o := (i+r)*ldc + blk.jc + j
					copy(tile[r*nr:r*nr+cols], c[o:o+cols])
				}
			}
			b, sb := pr.b, nr // B's panel and its stride: packed, or in place
			if inB && cols == nr {
				b, sb = pr.b[blk.pc*pr.ldb+blk.jc+j:], pr.ldb // op(B)[p][j+q] at b[p·ldb + q]
			} else {
				b = blk.bp[(jp-blk.p0)*kc*nr:]
			}
			switch {
			case strided:
				a, sa := apan, mr // packed, or in place: op(A)[i+r][p] at a[p·lda + r]
				if apan == nil {
					a, sa = pr.a[blk.pc*pr.lda+i:], pr.lda
				}
				kn.callStrided(kc, &a[0], sa, &b[0], sb, cp, cld, pr.alpha, beta)
			case apan == nil && sb == nr:
				kn.callDirect(kc, &pr.a[i*pr.lda+blk.pc], pr.lda, &b[0], cp, cld, pr.alpha, beta)
			case apan == nil:
				kn.callDirectStrided(kc, &pr.a[i*pr.lda+blk.pc], pr.lda, &b[0], sb, cp, cld, pr.alpha, beta)
			case sb == nr:
				kn.call(kc, &apan[0], &b[0], cp, cld, pr.alpha, beta)
			default:
				kn.callStrided(kc, &apan[0], mr, &b[0], sb, cp, cld, pr.alpha, beta)
			}
			if !full {
				for r := range rows {
					o := (i+r)*ldc + blk.jc + j
					copy(c[o:o+cols], tile[r*nr:r*nr+cols])
				}
			}
		}
	}
	pr.putBuf(&aBufs, pa)
}

// maxTile bounds mr·nr over the kernels (12·32).
const maxTile = 12 * 32

// packA copies rows i0…i0+rows of op(A), k steps p0…p0+kc, into dst as
// panels of mr rows: panel q holds for each step p the mr values
// op(A)[i0+q·mr+r][p0+p] at dst[q·mr·kc + p·mr + r], zero past the last row.
func packA(dst, a []float32, lda int, tA bool, i0, rows, p0, kc, mr int) {
	for q := 0; q < rows; q += mr {
		pan := dst[q*kc : (q+mr)*kc]
		r := min(mr, rows-q)
		if tA {
			// op(A)[i][p] = a[p·lda + i]: each step is a contiguous run.
			copySteps(pan, mr, a[p0*lda+i0+q:], lda, r, kc)
		} else {
			// op(A)[i][p] = a[i·lda + p]: a transpose.
			transpose(pan, mr, a[(i0+q)*lda+p0:], lda, r, kc)
		}
		zeroPast(pan, mr, r, kc)
	}
}

// transpose writes dst[p·step + r] = src[r·lds + p] for r < rows, p < n:
// rows of the source become columns of a panel. Four rows go at a time
// (interleave4); the rest one by one.
func transpose(dst []float32, step int, src []float32, lds, rows, n int) {
	r := 0
	for ; r+4 <= rows; r += 4 {
		interleave4(dst[r:], step, src[r*lds:], lds, n)
	}
	for ; r < rows; r++ {
		d := dst[r:]
		for p, v := range src[r*lds : r*lds+n] {
			d[p*step] = v
		}
	}
}

// zeroPast clears, in each of the n steps of a panel of width step, the
// values from column w on (the padding of an edge panel).
func zeroPast(pan []float32, step, w, n int) {
	if w < step {
		for p := range n {
			clear(pan[p*step+w : (p+1)*step])
		}
	}
}

// interleave4Go is interleave4 in Go: dst[p·step + r] = src[r·lds + p].
func interleave4Go(dst []float32, step int, src []float32, lds, n int) {
	r0, r1, r2, r3 := src[:n], src[lds:lds+n], src[2*lds:2*lds+n], src[3*lds:3*lds+n]
	for p := range n {
		d := dst[p*step : p*step+4]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
	}
}

// copyStepsGo is copySteps in Go.
func copyStepsGo(dst []float32, step int, src []float32, lds, w, n int) {
	for p := range n {
		copy(dst[p*step:p*step+w], src[p*lds:p*lds+w])
	}
}

// packB copies columns j0…j0+cols of op(B), k steps p0…p0+kc, into the panel
// dst: step p's nr values at dst[p·nr…], zero past the last column.
func packB(dst, b []float32, ldb int, tB bool, p0, kc, j0, cols, nr int) {
	if tB {
		// op(B)[p][j] = b[j·ldb + p]: a transpose of B's rows.
		transpose(dst, nr, b[j0*ldb+p0:], ldb, cols, kc)
	} else {
		// op(B)[p][j] = b[p·ldb + j]: each step is a contiguous run.
		copySteps(dst, nr, b[p0*ldb+j0:], ldb, cols, kc)
	}
	zeroPast(dst, nr, cols, kc)
}

// scale sets C = beta·C (C = 0 for beta = 0, even where C held NaN).
func scale(m, n int, beta float32, c []float32, ldc int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		if beta != 1 {
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// CheckArgs panics unless the arguments describe a valid product (see
// Kernel.Sgemm): non-negative dimensions, leading dimensions at least the
// stored widths, and slices long enough for the matrices they hold. Callers
// of a C library's sgemm check with it first, since C would not.
func CheckArgs(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("gemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := Stored(tA, m, k)
	br, bc := Stored(tB, k, n)
	check := func(what string, s []float32, rows, cols, ld int) {
		if ld < cols {
			panic(fmt.Sprintf("gemm: %s: leading dimension %d < %d columns", what, ld, cols))
		}
		if rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
			panic(fmt.Sprintf("gemm: %s: %d values, a %d×%d matrix with rows %d apart needs %d", what, len(s), rows, cols, ld, (rows-1)*ld+cols))
		}
	}
	check("A", a, ar, ac, lda)
	check("B", b, br, bc, ldb)
	check("C", c, m, n, ldc)
	// C must not share memory with A or B: packing and the tasks read
	// operands while other tasks write C, so the result would depend on
	// the schedule (BLAS leaves it undefined too).
	if k > 0 {
		if overlaps(c, m, n, ldc, a, ar, ac, lda) {
			panic("gemm: C overlaps A")
		}
		if overlaps(c, m, n, ldc, b, br, bc, ldb) {
			panic("gemm: C overlaps B")
		}
	}
}

// overlaps says whether the memory spans of two stored matrices (from the
// first element to the last element of the last row) intersect.
func overlaps(x []float32, xr, xc, ldx int, y []float32, yr, yc, ldy int) bool {
	if xr == 0 || xc == 0 || yr == 0 || yc == 0 {
		return false
	}
	x0 := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	y0 := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	x1 := x0 + uintptr((xr-1)*ldx+xc)*4
	y1 := y0 + uintptr((yr-1)*ldy+yc)*4
	return x0 < y1 && y0 < x1
}

// Stored returns the rows and columns of the stored matrix X whose op(X)
// is rows×cols: cols×rows when op transposes.
func Stored(transposed bool, rows, cols int) (int, int) {
	if transposed {
		return cols, rows
	}
	return rows, cols
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// buf is packing space; f is 64-byte aligned, so that the kernels' vector
// loads from packed panels never straddle a cache line.
type buf struct {
	raw, f []float32
}

// Packing buffers (B: kc·nc floats, 512 KiB; A: a task's rows, about
// 100 KiB) and product states are kept on free lists rather than in
// sync.Pools: a pool is emptied by every other garbage collection, and
// reallocating half a megabyte then would make a training step allocate.
// The lists hold what the busiest moment needed (one buffer per
// concurrent task), at most freeListMax each.
var aBufs, bBufs freeList[buf]

const freeListMax = 64

// freeList is a mutex-guarded stack of reusable objects.
type freeList[T any] struct {
	mu    sync.Mutex
	items []*T
}

func (l *freeList[T]) get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.items); n > 0 {
		x := l.items[n-1]
		l.items = l.items[:n-1]
		return x
	}
	return new(T)
}

func (l *freeList[T]) put(x *T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) < freeListMax {
		l.items = append(l.items, x)
	}
}

// getBuf returns a buffer from l with room for n floats.
func getBuf(l *freeList[buf], n int) *buf {
	b := l.get()
	b.grow(n)
	return b
}

// grow makes room for n floats in b, 64-byte aligned.
func (b *buf) grow(n int) {
	if len(b.f) < n {
		b.raw = make([]float32, n+16)
		off := int((64 - uintptr(unsafe.Pointer(&b.raw[0]))%64) % 64 / 4)
		b.f = b.raw[off : off+n]
	}
}
