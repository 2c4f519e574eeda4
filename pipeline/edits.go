package pipeline

import (
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/outputs"
)

// SaveEdits writes l as the edit log of the model in dir, in place
// (model.SaveEdits: edits.json and config.json), writes topics.json and
// topics.txt again with the log's labels (outputs.RewriteTopics), and
// records the files in the folder's manifest, so that a later run into the
// folder still takes them as its own. A file changed by someone else since
// gtformer wrote it is not replaced: then nothing is written.
func SaveEdits(dir string, l *edits.Log) error {
	names := []string{edits.File, model.ConfigFile}
	if _, err := os.Stat(filepath.Join(dir, outputs.TopicsFile)); err == nil {
		// RewriteTopics writes both from topics.json.
		names = append(names, outputs.TopicsFile, outputs.TopicsTextFile)
	}
	for _, name := range names {
		if err := Replaceable(dir, name); err != nil {
			return err
		}
	}
	if err := model.SaveEdits(dir, l); err != nil {
		return err
	}
	if err := outputs.RewriteTopics(dir); err != nil {
		return err
	}
	for _, name := range names {
		if err := Record(dir, name); err != nil {
			return err
		}
	}
	return nil
}
