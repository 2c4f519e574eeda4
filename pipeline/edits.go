package pipeline

import (
	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/model"
)

// SaveEdits writes l as the edit log of the model in dir, in place
// (model.SaveEdits: edits.json and config.json), and records both files in
// the folder's manifest, so that a later run into the folder still takes
// them as its own. Either file changed by someone else since gtformer
// wrote it is not replaced.
func SaveEdits(dir string, l *edits.Log) error {
	for _, name := range []string{edits.File, model.ConfigFile} {
		if err := Replaceable(dir, name); err != nil {
			return err
		}
	}
	if err := model.SaveEdits(dir, l); err != nil {
		return err
	}
	for _, name := range []string{edits.File, model.ConfigFile} {
		if err := Record(dir, name); err != nil {
			return err
		}
	}
	return nil
}
