package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// oneQueryReference is OneQueryAttention's definition in float64: the key
// rows projected to k = x·wk + bk and v = x·wv + bv (the key bias
// included, which the op leaves out), then one query per sequence.
func oneQueryReference(q, x, wk, bk, wv, bv *Tensor, heads int, kOff []int, mask []bool) []float64 {
	seqs, c := q.Shape[0], q.Shape[1]
	rk, n := x.Shape[0], x.Shape[1]
	d := c / heads
	proj := func(w, b *Tensor) []float64 {
		out := make([]float64, rk*c)
		for j := range rk {
			for o := range c {
				s := float64(b.Data[o])
				for i := range n {
					s += float64(x.Data[j*n+i]) * float64(w.Data[i*c+o])
				}
				out[j*c+o] = s
			}
		}
		return out
	}
	k, v := proj(wk, bk), proj(wv, bv)
	want := make([]float64, seqs*c)
	for s := range seqs {
		for h := range heads {
			var z float64
			w := make([]float64, kOff[s+1]-kOff[s])
			for j := range w {
				if mask != nil && !mask[kOff[s]+j] {
					continue
				}
				var dot float64
				for l := range d {
					dot += float64(q.Data[s*c+h*d+l]) * k[(kOff[s]+j)*c+h*d+l]
				}
				w[j] = math.Exp(dot / math.Sqrt(float64(d)))
				z += w[j]
			}
			for j := range w {
				for l := range d {
					if z > 0 {
						want[s*c+h*d+l] += w[j] / z * v[(kOff[s]+j)*c+h*d+l]
					}
				}
			}
		}
	}
	return want
}

// TestOneQueryAttention checks the folded attention against its float64
// definition and against PackedAttention over explicitly projected keys
// and values (one query per sequence), with sequences of different
// lengths, an empty one, masked keys and a sequence whose keys are all
// masked (zeros, as PackedAttention gives).
func TestOneQueryAttention(t *testing.T) {
	for _, tc := range []struct {
		name          string
		heads, c, n   int
		lens          []int
		masked        bool
		withValueBias bool
	}{
		{"small", 2, 6, 5, []int{5, 2, 0, 4, 1}, false, true},
		{"masked", 2, 6, 5, []int{5, 2, 3, 4, 1}, true, true},
		{"no value bias", 3, 9, 4, []int{3, 7, 2}, true, false},
		{"model width", 4, 128, 128, []int{61, 12, 96, 40, 1, 77, 59, 23}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(tc.c)))
			kOff := []int{0}
			for _, l := range tc.lens {
				kOff = append(kOff, kOff[len(kOff)-1]+l)
			}
			seqs, rk := len(tc.lens), kOff[len(tc.lens)]
			q, x := randTensor(rng, seqs, tc.c), randTensor(rng, rk, tc.n)
			wk, wv := randTensor(rng, tc.n, tc.c), randTensor(rng, tc.n, tc.c)
			bk, bv := randTensor(rng, tc.c), randTensor(rng, tc.c)
			var mask []bool
			if tc.masked {
				mask = make([]bool, rk)
				for j := range mask {
					mask[j] = rng.IntN(3) > 0
				}
				for j := kOff[1]; j < kOff[2]; j++ {
					mask[j] = false // sequence 1: every key masked
				}
			}
			var bvArg *Tensor
			if tc.withValueBias {
				bvArg = bv
			} else {
				clear(bv.Data)
			}
			tp := NewTape()
			tp.NoGrad = true
			got := tp.OneQueryAttention(q, x, wk, wv, bvArg, tc.heads, kOff, mask)
			want := oneQueryReference(q, x, wk, bk, wv, bv, tc.heads, kOff, mask)
			closeRel(t, "OneQueryAttention against float64", got.Data, want, 2e-4)
			// PackedAttention over the projected rows.
			k := tp.Linear(x, wk, bk)
			v := tp.Linear(x, wv, bv)
			ref := tp.PackedAttention(q, k, v, tc.heads, tp.UniformOffsets(seqs, 1), kOff, mask)
			want32 := make([]float64, len(ref.Data))
			for i, r := range ref.Data {
				want32[i] = float64(r)
			}
			closeRel(t, "OneQueryAttention against PackedAttention", got.Data, want32, 2e-4)
			if tc.masked {
				for _, g := range got.Data[tc.c : 2*tc.c] {
					if g != 0 {
						t.Fatalf("a sequence whose keys are all masked got %v, want zeros", got.Data[tc.c:2*tc.c])
					}
				}
			}
		})
	}
}

// TestOneQueryAttentionRecordingPanics: the op has no backward, so a tape
// that records must refuse it rather than drop the gradient silently.
func TestOneQueryAttentionRecordingPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q, x := randTensor(rng, 1, 4), randTensor(rng, 3, 4)
	w := randTensor(rng, 4, 4)
	defer func() {
		if recover() == nil {
			t.Error("OneQueryAttention on a recording tape did not panic")
		}
	}()
	NewTape().OneQueryAttention(q, x, w, w, nil, 2, []int{0, 3}, nil)
}
