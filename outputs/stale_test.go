package outputs_test

import (
	"slices"
	"testing"

	"github.com/gtformer/gtformer/outputs"
)

// TestRunFilesListsWriteFiles: every file Write writes is one a later run
// may replace or remove (RunFiles).
func TestRunFilesListsWriteFiles(t *testing.T) {
	for _, name := range outputs.WriteFiles {
		if !slices.Contains(outputs.RunFiles, name) {
			t.Errorf("Write writes %s, which RunFiles does not list", name)
		}
	}
}
