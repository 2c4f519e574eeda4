package optim

import (
	"math"
	"testing"
)

// TestScheduleBreakpoints evaluates each schedule at the ends of warm-up
// and decay, values worked out by hand from the definition in At.
func TestScheduleBreakpoints(t *testing.T) {
	lin := Schedule{Peak: 1e-3, Floor: 1e-5, Warmup: 10, Total: 110, Decay: Linear}
	cos := lin
	cos.Decay = Cosine
	con := Schedule{Peak: 2e-3, Warmup: 4, Decay: Constant}
	none := Schedule{Peak: 0.1, Floor: 0.01, Warmup: 0, Total: 4, Decay: Linear}
	mid := (1e-3 + 1e-5) / 2
	tests := []struct {
		name string
		s    Schedule
		step int64
		want float64
	}{
		{"linear first warm-up step", lin, 0, 1e-4},
		{"linear mid warm-up", lin, 4, 5e-4},
		{"linear last warm-up step", lin, 9, 1e-3},
		{"linear decay start", lin, 10, 1e-3},
		{"linear quarter", lin, 35, 1e-5 + 0.75*(1e-3-1e-5)},
		{"linear midpoint", lin, 60, mid},
		{"linear last decay step", lin, 109, 1e-5 + 0.01*(1e-3-1e-5)},
		{"linear total", lin, 110, 1e-5},
		{"linear after", lin, 10_000, 1e-5},
		{"cosine first warm-up step", cos, 0, 1e-4},
		{"cosine decay start", cos, 10, 1e-3},
		{"cosine quarter", cos, 35, 1e-5 + (1e-3-1e-5)*(1+math.Sqrt2/2)/2},
		{"cosine midpoint", cos, 60, mid},
		{"cosine three quarters", cos, 85, 1e-5 + (1e-3-1e-5)*(1-math.Sqrt2/2)/2},
		{"cosine total", cos, 110, 1e-5},
		{"cosine after", cos, 111, 1e-5},
		{"constant warm-up", con, 1, 1e-3},
		{"constant after warm-up", con, 4, 2e-3},
		{"constant forever", con, 1 << 40, 2e-3},
		{"no warm-up start", none, 0, 0.1},
		{"no warm-up step 1", none, 1, 0.01 + 0.09*0.75},
		{"no warm-up end", none, 4, 0.01},
		{"negative step", lin, -3, 1e-4},
	}
	for _, tc := range tests {
		if err := tc.s.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := tc.s.At(tc.step); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: At(%d) = %.17g, want %.17g", tc.name, tc.step, got, tc.want)
		}
	}
}

// TestScheduleMonotone: warm-up never decreases, decay never increases,
// and values stay within [Floor, Peak] after warm-up.
func TestScheduleMonotone(t *testing.T) {
	for _, d := range []Decay{Linear, Cosine} {
		s := Schedule{Peak: 1, Floor: 0.1, Warmup: 7, Total: 50, Decay: d}
		prev := 0.0
		for step := int64(0); step < 60; step++ {
			lr := s.At(step)
			if step < s.Warmup && lr < prev || step > s.Warmup && lr > prev {
				t.Errorf("%v: At(%d) = %v after %v", d, step, lr, prev)
			}
			if step >= s.Warmup && (lr < s.Floor || lr > s.Peak) {
				t.Errorf("%v: At(%d) = %v outside [floor, peak]", d, step, lr)
			}
			prev = lr
		}
	}
}

func TestScheduleValidate(t *testing.T) {
	for _, s := range []Schedule{
		{Peak: 0, Total: 1, Decay: Linear},
		{Peak: math.Inf(1), Total: 1, Decay: Linear},
		{Peak: 1, Floor: 2, Total: 1, Decay: Linear},
		{Peak: 1, Floor: -1, Total: 1, Decay: Cosine},
		{Peak: 1, Warmup: -1, Total: 1, Decay: Linear},
		{Peak: 1, Warmup: 10, Total: 5, Decay: Cosine},
		{Peak: 1, Total: 5, Decay: Decay(7)},
	} {
		if s.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", s)
		}
	}
	for _, name := range []string{"constant", "linear", "cosine"} {
		d, err := ParseDecay(name)
		if err != nil || d.String() != name {
			t.Errorf("ParseDecay(%q) = %v, %v", name, d, err)
		}
	}
	if _, err := ParseDecay("exp"); err == nil {
		t.Error("ParseDecay(exp): want an error")
	}
}
