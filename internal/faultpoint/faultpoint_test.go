package faultpoint

import (
	"slices"
	"testing"
)

// TestSetReachedRestore: a hook sees the points in order; restore puts the
// previous hook back, and with none set Reached does nothing.
func TestSetReachedRestore(t *testing.T) {
	Reached("before any hook") // must not panic
	var outer, inner []string
	restoreOuter := Set(func(p string) { outer = append(outer, p) })
	Reached("a")
	restoreInner := Set(func(p string) { inner = append(inner, p) })
	Reached("b")
	restoreInner()
	Reached("c")
	restoreOuter()
	Reached("d")
	if !slices.Equal(outer, []string{"a", "c"}) || !slices.Equal(inner, []string{"b"}) {
		t.Errorf("outer hook saw %v, inner %v; want [a c] and [b]", outer, inner)
	}
	restore := Set(nil)
	Reached("e")
	restore()
	if len(outer) != 2 {
		t.Errorf("a removed hook still sees points: %v", outer)
	}
}
