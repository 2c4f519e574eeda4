package tensor

import (
	"math"
	"testing"
)

// A NaN logit must make its row NaN for every row width: the vector
// exponential (rows of 8 or more) would otherwise return finite
// probabilities and hide the NaN from the trainer's guard.
func TestSoftmaxPropagatesNaN(t *testing.T) {
	for _, c := range []int{3, 8, 40, 64} {
		x := New(2, c)
		for i := range x.Data {
			x.Data[i] = float32(i % 7)
		}
		x.Data[c+1] = float32(math.NaN())
		tp := NewTape()
		y := tp.Softmax(x, nil)
		for j := 0; j < c; j++ {
			if v := y.Data[c+j]; !math.IsNaN(float64(v)) {
				t.Fatalf("width %d: row with a NaN logit gives y[%d] = %v, want NaN", c, j, v)
			}
			if v := y.Data[j]; math.IsNaN(float64(v)) {
				t.Fatalf("width %d: the clean row became NaN", c)
			}
		}
	}
}
