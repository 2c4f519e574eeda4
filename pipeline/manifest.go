package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/filehash"
	"github.com/gtformer/gtformer/outputs"
)

// FilesManifest lists the output files a run wrote into its folder, each
// with the SHA-256 of its content, so that a later run replaces or removes
// only those, and only while unchanged: a file the user put there under an
// output's name, or edited since, is never touched. A folder written
// before the manifest has none; its files of the outputs' names are then
// taken as gtformer's.
const FilesManifest = ".gtformer-files.json"

type filesManifest struct {
	Format string            `json:"format"` // "gtformer-files/1"
	Files  map[string]string `json:"files"`  // name → hex SHA-256
	// Pending lists, while an in-place save (SaveEdits) writes a file,
	// the hashes it may have on the way, taken as gtformer's as well as
	// the one in Files: a save cut short leaves its files gtformer's.
	// nil: no save under way.
	Pending map[string][]string `json:"pending,omitempty"`
}

// readManifest returns dir's manifest, or nil when it has none.
func readManifest(dir string) (*filesManifest, error) {
	path := filepath.Join(dir, FilesManifest)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	var m filesManifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.Format != "gtformer-files/1" {
		return nil, fmt.Errorf("pipeline: %s is not a gtformer manifest (%v)", path, err)
	}
	if m.Files == nil {
		m.Files = map[string]string{}
	}
	return &m, nil
}

// write saves man as dir's manifest.
func (man *filesManifest) write(dir string) error {
	man.Format = "gtformer-files/1"
	if err := atomicfile.WriteJSON(filepath.Join(dir, FilesManifest), man); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	return nil
}

// ours reports whether dir/name is absent or is a file a run wrote and
// nobody changed since (with no manifest: any file of an output's name).
func ours(dir, name string, man *filesManifest) (bool, error) {
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return true, nil
	} else if err != nil {
		return false, err
	}
	if man == nil {
		return true, nil
	}
	want, listed := man.Files[name]
	if !listed && len(man.Pending[name]) == 0 {
		return false, nil
	}
	_, got, err := filehash.SHA256(path)
	if err != nil {
		return false, err
	}
	return (listed && got == want) || slices.Contains(man.Pending[name], got), nil
}

// checkOwned refuses, before any work, a folder where a file of an
// output's name is not one a run wrote there unchanged.
func checkOwned(dir string) error {
	man, err := readManifest(dir)
	if err != nil {
		return err
	}
	for _, name := range outputs.RunFiles {
		ok, err := ours(dir, name, man)
		if err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		if !ok {
			return &SettingsError{fmt.Errorf("pipeline: %s was not written by gtformer, or changed since: "+
				"a run never replaces it; move it away or give another folder", filepath.Join(dir, name))}
		}
	}
	return nil
}

// recordWritten saves the manifest of the files this run wrote.
func recordWritten(dir string, written []string) error {
	files := map[string]string{}
	for _, name := range written {
		_, sum, err := filehash.SHA256(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		files[name] = sum
	}
	return (&filesManifest{Files: files}).write(dir)
}

// staleFiles are the output files of an earlier run that this run (which
// wrote written) did not write and that are still as that run left them.
func staleFiles(dir string, written []string, man *filesManifest) ([]string, error) {
	var stale []string
	for _, name := range outputs.RunFiles {
		if slices.Contains(written, name) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if ok, err := ours(dir, name, man); err != nil {
			return nil, err
		} else if ok {
			stale = append(stale, name)
		}
	}
	return stale, nil
}

// Replaceable reports an error when dir/name exists and is not a file a
// gtformer run wrote there and nobody changed since, for commands that
// write one file of a run's names into a model folder (eval.json).
func Replaceable(dir, name string) error {
	man, err := readManifest(dir)
	if err != nil {
		return err
	}
	return replaceable(dir, name, man)
}

// replaceable is Replaceable with dir's manifest read (nil: none).
func replaceable(dir, name string, man *filesManifest) error {
	ok, err := ours(dir, name, man)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if !ok {
		return fmt.Errorf("pipeline: %s was not written by gtformer, or changed since: not replacing it", filepath.Join(dir, name))
	}
	return nil
}

// Record adds dir/name, as it is now, to dir's manifest, when dir has one
// (a folder without one takes every file of a run's names as gtformer's).
func Record(dir, name string) error {
	man, err := readManifest(dir)
	if err != nil || man == nil {
		return err
	}
	_, sum, err := filehash.SHA256(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	man.Files[name] = sum
	return man.write(dir)
}
