//go:build !(linux && (amd64 || arm64)) || nodlopen

package blaslib

import (
	"strings"
	"testing"
)

// TestNothingLoads: this build never loads a library, and says which one
// it was asked for.
func TestNothingLoads(t *testing.T) {
	if l, err := Open("libopenblas.so.0"); l != nil || err == nil || !strings.Contains(err.Error(), "loading libopenblas.so.0: this build does not load") {
		t.Errorf("Open = %v, %v", l, err)
	}
	if l, err := Find(); l != nil || err == nil {
		t.Errorf("Find = %v, %v", l, err)
	}
}
