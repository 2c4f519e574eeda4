//go:build amd64 && !purego

package optim

import "golang.org/x/sys/cpu"

// hasAVX says whether adamRow runs its four-lane kernel (AVX: 256-bit
// float64 multiply, add, divide and square root).
var hasAVX = cpu.X86.HasAVX

// adamAVX runs adamRowGo's arithmetic on n elements (a multiple of 4),
// four float64 lanes at a time with the same operations in the same order
// (no fused multiply-adds; IEEE multiply, add, divide and square root are
// correctly rounded in either form), so its results are those of the
// scalar loop bit for bit. k holds l2, b1, 1−b1, b2, 1−b2, shrink,
// stepSize, invSqrtBC2 and eps, in that order. See adam_amd64.s.
//
//go:noescape
func adamAVX(p, gr, m, v *float32, n int, k *[9]float64)

// adamRow is one row's update (see Adam.update); the vector kernel takes
// the largest multiple of four elements, the scalar loop the rest.
func adamRow(p, g, m, v []float32, k *[9]float64) {
	n := len(p)
	g, m, v = g[:n], m[:n], v[:n]
	done := 0
	if hasAVX && n >= 4 {
		done = n &^ 3
		adamAVX(&p[0], &g[0], &m[0], &v[0], done, k)
	}
	adamRowGo(p[done:], g[done:], m[done:], v[done:], k)
}

// scaleAVX writes g[i] = float32(float64(g[i])·s) for i < n (a multiple
// of 4), four float64 lanes at a time: the conversions and the one
// multiply of the scalar loop, so the same bits. See adam_amd64.s.
//
//go:noescape
func scaleAVX(gr *float32, n int, s float64)

// scaleRow is scaleGrad's per-range loop (see there).
func scaleRow(g []float32, s float64) {
	done := 0
	if hasAVX && len(g) >= 4 {
		done = len(g) &^ 3
		scaleAVX(&g[0], done, s)
	}
	scaleRowGo(g[done:], s)
}
