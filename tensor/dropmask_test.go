package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDropMaskRowIsPick: the branch-free mask row equals the definition,
// pick(dropBits(key, i·⌈cols/2⌉ + j/2)) per element (low half for even j,
// high half for odd), for even and odd widths and several rates (the
// vector path where the CPU has one: sixteen at a time, the rest scalar).
func TestDropMaskRowIsPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	for _, cols := range []int{1, 2, 7, 15, 16, 17, 31, 33, 128, 129, 256, 512} {
		for _, p := range []float32{0, 0.1, 0.5, 0.9} {
			x := New(3, cols)
			d := newDropSpec("test", p, rng, x)
			m := make([]float32, cols)
			for i := range 5 {
				d.row(i, m)
				for j, got := range m {
					h := dropBits(d.key, uint64(i)*uint64((cols+1)/2)+uint64(j/2))
					if j%2 == 1 {
						h >>= 32
					}
					if want := d.pick(uint32(h)); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("cols %d, p %v, row %d, column %d: %v, want %v", cols, p, i, j, got, want)
					}
				}
			}
		}
	}
}
