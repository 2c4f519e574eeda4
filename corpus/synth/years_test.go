package synth

import (
	"slices"
	"strconv"
	"testing"
)

// TestYears: every document gets a year in range, the draw repeats, and
// the rising branch's share of the documents of the last years is well
// above its share of the first years, as planted.
func TestYears(t *testing.T) {
	_, tr, err := Generate(Default())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Years(tr, 2000, 2020, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Years(tr, 2000, 2020, 1)
	if f.Name != YearField || len(f.Values) != len(tr.Leaf) || !slices.Equal(f.Values, again.Values) {
		t.Fatalf("field %s of %d values (repeats: %v)", f.Name, len(f.Values), slices.Equal(f.Values, again.Values))
	}
	var early, earlyR, late, lateR float64
	for i, v := range f.Values {
		y, err := strconv.Atoi(v)
		if err != nil || y < 2000 || y > 2020 {
			t.Fatalf("document %d: year %q", i, v)
		}
		rising := tr.Branch(tr.Leaf[i]) == Rising
		switch {
		case y <= 2004:
			early++
			if rising {
				earlyR++
			}
		case y >= 2016:
			late++
			if rising {
				lateR++
			}
		}
	}
	if a, b := earlyR/early, lateR/late; !(b > 2*a) {
		t.Errorf("rising branch's share: %.2f in 2000-2004, %.2f in 2016-2020", a, b)
	}
	for _, c := range [][2]int{{2020, 2000}, {0, 20000}} {
		if _, err := Years(tr, c[0], c[1], 1); err == nil {
			t.Errorf("years %d-%d accepted", c[0], c[1])
		}
	}
}
