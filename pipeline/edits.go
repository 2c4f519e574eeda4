package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/internal/filehash"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
)

// SaveEdits writes l as the edit log of the model in dir, in place
// (model.PrepareEdits: edits.json and config.json), writes topics.json and
// topics.txt again with the log's labels (outputs.RenderTopics), and
// records the files in the folder's manifest, so that a later run into the
// folder still takes them as its own. A file changed by someone else since
// gtformer wrote it is not replaced: then nothing is written.
//
// Every content the files will have on the way is in the manifest
// (Pending) before the first is written, and the model loads whole after
// each of its writes: a save cut short leaves a folder that loads and
// whose files are still gtformer's, and the next save completes.
func SaveEdits(dir string, l *edits.Log) error {
	steps, err := saveEditsSteps(dir, l)
	if err != nil {
		return err
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// saveEditsSteps checks dir and prepares SaveEdits as the writes it makes,
// in order, each a whole file written atomically: the manifest with the
// contents to come, the model's files and the topics' in turn, and the
// manifest with the contents that came.
func saveEditsSteps(dir string, l *edits.Log) ([]func() error, error) {
	names := []string{edits.File, model.ConfigFile}
	if _, err := os.Stat(filepath.Join(dir, outputs.TopicsFile)); err == nil {
		names = append(names, outputs.TopicsFile, outputs.TopicsTextFile)
	}
	man, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if err := replaceable(dir, name, man); err != nil {
			return nil, err
		}
	}
	save, err := model.PrepareEdits(dir, l)
	if err != nil {
		return nil, err
	}
	topics, err := outputs.RenderTopics(dir, l)
	if err != nil {
		return nil, err
	}
	writes := slices.Concat(save.Writes(), topics)
	var steps []func() error
	if man != nil {
		steps = append(steps, func() error {
			// Every content the files take on the way, beside what they
			// hold now (Files, or a cut-short save's Pending, kept).
			if man.Pending == nil {
				man.Pending = map[string][]string{}
			}
			for _, w := range writes {
				man.Pending[w.Name] = append(man.Pending[w.Name], filehash.Bytes(w.Data))
			}
			return man.write(dir)
		})
	}
	for _, w := range writes {
		steps = append(steps, func() error {
			if err := w.Save(dir); err != nil {
				return fmt.Errorf("pipeline: save edits: %w", err)
			}
			return nil
		})
	}
	if man != nil {
		steps = append(steps, func() error {
			for _, w := range writes {
				man.Files[w.Name] = filehash.Bytes(w.Data) // a name's last write is its content
			}
			man.Pending = nil
			return man.write(dir)
		})
	}
	return steps, nil
}
