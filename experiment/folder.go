package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkOut refuses an output folder that holds files and is not an
// experiment's (no runs/ folder, no results.json): the results written at
// its top (results.json, results.md, the ablation charts) would replace
// files of the user's.
func checkOut(out string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n == "runs" || n == "results.json" {
			return nil
		}
		names = append(names, e.Name())
	}
	if len(names) > 5 {
		names = append(names[:5], "...")
	}
	return fmt.Errorf("experiment: %s holds files (%s) and is not an experiment's folder (no runs/, no results.json): "+
		"give a new or empty folder (an experiment never replaces files it did not write)", filepath.Clean(out), strings.Join(names, ", "))
}
