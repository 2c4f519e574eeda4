package preset

import (
	"reflect"
	"testing"

	"github.com/gtformer/gtformer/train"
)

func TestGet(t *testing.T) {
	for _, c := range []struct {
		name Name
		want Settings
		bad  bool
	}{
		{Default, DefaultSettings(), false},
		{"", DefaultSettings(), false},
		{Paper, PaperSettings(), false},
		{"papers", Settings{}, true},
	} {
		got, err := Get(c.name)
		if (err != nil) != c.bad || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Get(%q) = %+v, %v", c.name, got, err)
		}
	}
}

// TestSettingsValid: every preset, at full and built-in size, is a
// configuration the model and trainer accept.
func TestSettingsValid(t *testing.T) {
	for _, n := range Names {
		for _, builtin := range []bool{false, true} {
			s, _ := Get(n)
			if builtin {
				s.Builtin()
			}
			s.Config.Vocab, s.Config.NumLabels = 2, 2
			if err := s.Config.Validate(); err != nil {
				t.Errorf("%s (built-in %v): %v", n, builtin, err)
			}
			if err := s.Options.Validate(); err != nil {
				t.Errorf("%s (built-in %v): %v", n, builtin, err)
			}
			if err := s.Options.CheckModel(&s.Config); err != nil {
				t.Errorf("%s (built-in %v): %v", n, builtin, err)
			}
		}
	}
	if p := PaperSettings(); p.Options.TopicInit != train.TopicInitRandom || p.Config.Hops != 1 {
		t.Errorf("paper: %+v", p)
	}
}
