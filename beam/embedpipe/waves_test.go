package embedpipe

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFanOut: wave w's fan-out sends a document's outbox only to its
// targets of wave w, and over all waves every (sender, target) pair gets
// exactly one message carrying the sender's key and states; one wave
// sends everything.
func TestFanOut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type msg struct{ from, to int64 }
	var boxes []int64
	outs := map[int64]outbox{}
	want := map[msg]bool{}
	for i := range 300 {
		key := int64(i)
		if i%2 == 1 {
			key = newKey(int64(i%5), int64(i))
		}
		var targets []int64
		for range r.IntN(12) {
			x := int64(r.IntN(500))
			if r.IntN(2) == 0 {
				x = newKey(int64(r.IntN(5)), x)
			}
			targets = append(targets, x)
		}
		slices.Sort(targets)
		targets = slices.Compact(targets)
		for _, x := range targets {
			want[msg{key, x}] = true
		}
		boxes = append(boxes, key)
		outs[key] = outbox{State: []float32{float32(i), -float32(i)}, Targets: targets}
	}
	for _, waves := range []int{1, 8, 16} {
		t.Run(fmt.Sprintf("waves%d", waves), func(t *testing.T) {
			got := map[msg]int{}
			perWave := make([]int, waves)
			for w := range waves {
				f := &fanOutFn{Waves: waves, Wave: w}
				for _, key := range boxes {
					f.ProcessElement(key, outs[key], func(to int64, m nbrState) {
						if waveOf(to, waves) != w {
							t.Errorf("wave %d sent to %d, of wave %d", w, to, waveOf(to, waves))
						}
						if m.Key != key || !slices.Equal(m.State, outs[key].State) {
							t.Errorf("wave %d: message %+v from %d", w, m, key)
						}
						got[msg{key, to}]++
						perWave[w]++
					})
				}
			}
			for m, n := range got {
				if n != 1 || !want[m] {
					t.Errorf("%+v sent %d times; a target: %v", m, n, want[m])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d messages sent, want %d", len(got), len(want))
			}
			for w, n := range perWave {
				if waves > 1 && n == 0 {
					t.Errorf("wave %d sent nothing: %v", w, perWave)
				}
			}
		})
	}
}

// TestSend: a hop stage's outbox leaves out the sender (its own features
// join it by key) without changing the node's targets, and a document
// that only reads itself sends nothing.
func TestSend(t *testing.T) {
	targets := []int64{1, 5, 9}
	var got []outbox
	emit := func(key int64, o outbox) {
		if key != 5 {
			t.Errorf("outbox keyed %d", key)
		}
		got = append(got, o)
	}
	send(5, targets, []float32{1}, emit)
	if len(got) != 1 || !slices.Equal(got[0].Targets, []int64{1, 9}) || !slices.Equal(targets, []int64{1, 5, 9}) {
		t.Errorf("got %+v, targets now %v", got, targets)
	}
	got = nil
	send(5, []int64{5}, []float32{1}, emit)
	send(5, nil, []float32{1}, emit)
	if len(got) != 0 {
		t.Errorf("sent %+v", got)
	}
}
