package pipeline

import "io"

// WriteFolder writes a model folder made from another model (a curated
// tree: gtformer topics merge, move, delete, reduce, label) into dir, with
// a run's rules: the folder is claimed (a folder of other files is
// refused, as is one another gtformer command is writing), a file of an
// output's name there is replaced only when a run wrote it and nobody
// changed it since, and the files write returns are recorded in the
// folder's manifest; an earlier run's outputs that write did not replace
// are removed (and named on log).
func WriteFolder(dir string, write func() (written []string, err error), log io.Writer) error {
	release, err := claimDir(dir, []string{FilesManifest})
	if err != nil {
		return err
	}
	defer release()
	if err := checkOwned(dir); err != nil {
		return err
	}
	written, err := write()
	if err != nil {
		return err
	}
	return removeStale(dir, written, log)
}
