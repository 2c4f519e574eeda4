package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/filehash"
)

// FileWrite is one file an in-place save writes: its name within the
// model's folder and its whole content.
type FileWrite struct {
	Name string
	Data []byte
}

// EditsSave is an in-place replacement of a saved model's edit log,
// prepared (PrepareEdits) and not yet written. It writes three files in
// turn, each atomically: config.json naming the new log's SHA-256 with the
// old one still accepted (SavedConfig.Replacing), the new edits.json, and
// config.json naming the new log alone. Cut short at any point, the folder
// loads, with the old log or the new one.
type EditsSave struct {
	dir    string
	writes []FileWrite
}

// SaveEdits replaces the edit log of the model saved in dir by l, in
// place (a label needs no new weights): PrepareEdits, then Commit. The
// model in dir must load (its files unchanged).
func SaveEdits(dir string, l *edits.Log) error {
	s, err := PrepareEdits(dir, l)
	if err != nil {
		return err
	}
	return s.Commit()
}

// PrepareEdits checks that the model saved in dir loads unchanged and
// prepares the replacement of its edit log by l, writing nothing.
func PrepareEdits(dir string, l *edits.Log) (*EditsSave, error) {
	path := filepath.Join(dir, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: save edits: %w", err)
	}
	sc, err := ParseConfig(path, raw)
	if err != nil {
		return nil, err
	}
	now, err := verifyFiles(dir, sc)
	if err != nil {
		return nil, err
	}
	log, err := edits.Encode(l)
	if err != nil {
		return nil, fmt.Errorf("model: save edits: %w", err)
	}
	if sc.Files == nil {
		// A model saved before hashes: record them all now.
		if sc.Files, err = hashFiles(dir, []string{TreeFile, WeightsFile}); err != nil {
			return nil, fmt.Errorf("model: save edits: %w", err)
		}
	}
	// The log's hash as it is now (verified: the one Files names, or,
	// after a save that was cut short, the one Replacing names); "" when
	// there is none.
	sc.Files[edits.File] = filehash.Bytes(log)
	sc.Replacing = map[string]string{edits.File: now[edits.File]}
	during, err := configJSON(sc)
	if err != nil {
		return nil, err
	}
	sc.Replacing = nil
	after, err := configJSON(sc)
	if err != nil {
		return nil, err
	}
	return &EditsSave{dir: dir, writes: []FileWrite{
		{Name: ConfigFile, Data: during}, {Name: edits.File, Data: log}, {Name: ConfigFile, Data: after},
	}}, nil
}

// configJSON returns config.json's bytes for sc, as Save writes them.
func configJSON(sc *SavedConfig) ([]byte, error) {
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("model: save edits: %w", err)
	}
	return append(b, '\n'), nil
}

// Writes returns the files Commit writes, in its order; a name may come
// twice (config.json). A caller that keeps hashes of the folder's files
// records these before Commit.
func (s *EditsSave) Writes() []FileWrite { return s.writes }

// Commit writes the prepared files in turn, each atomically.
func (s *EditsSave) Commit() error {
	for _, w := range s.writes {
		if err := w.Save(s.dir); err != nil {
			return fmt.Errorf("model: save edits: %w", err)
		}
	}
	return nil
}

// Save writes the file into dir atomically.
func (w FileWrite) Save(dir string) error {
	return atomicfile.WriteFile(filepath.Join(dir, w.Name), func(f io.Writer) error {
		_, err := f.Write(w.Data)
		return err
	})
}

// verifyFiles checks the files config.json names against their hashes
// (or, while an in-place save is under way, the hashes they had before),
// and returns each checked file's hash as read ("" for one absent before
// a save that was cut short).
func verifyFiles(dir string, sc *SavedConfig) (map[string]string, error) {
	now := map[string]string{}
	names := []string{TreeFile, WeightsFile}
	if _, ok := sc.Files[edits.File]; ok {
		names = append(names, edits.File)
	}
	for _, name := range names {
		want, ok := sc.Files[name]
		if !ok {
			if sc.Files == nil {
				continue // saved before hashes were recorded
			}
			return nil, fmt.Errorf("model: %s names no SHA-256 for %s", filepath.Join(dir, ConfigFile), name)
		}
		was, replacing := sc.Replacing[name]
		_, got, err := filehash.SHA256(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) && replacing && was == "" {
			now[name] = ""
			continue // absent before the save that was cut short
		}
		if err != nil {
			return nil, fmt.Errorf("model: load: %w", err)
		}
		if got != want && !(replacing && got == was) {
			return nil, fmt.Errorf("model: %s has SHA-256 %.12s…, but %s records %.12s…: the file changed since the model was saved (damaged or replaced); restore it or train again",
				filepath.Join(dir, name), got, ConfigFile, want)
		}
		now[name] = got
	}
	return now, nil
}
