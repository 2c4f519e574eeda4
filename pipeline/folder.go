package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/train"
)

// LockFile is the file a run holds locked in its folder while it writes
// there (a second run into the folder is refused; the lock goes when the
// process ends, however it ends). It stays afterwards and marks the folder
// as a gtformer output, whose files a later run may replace.
const LockFile = ".gtformer.lock"

// claimDir makes dir if it is missing and claims it for one run, before
// any training: a folder that holds files and is not a gtformer output (no
// LockFile, no checkpoint) is refused, so that a run never deletes or
// overwrites files it did not write; own are the names the caller itself
// put there. The lock file's creation also finds an unwritable folder.
// release unlocks the folder.
func claimDir(dir string, own []string) (release func(), err error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			to, _ := os.Readlink(dir)
			return nil, &SettingsError{fmt.Errorf("pipeline: output folder %s is a symbolic link to %s, which does not exist", dir, to)}
		}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, &SettingsError{fmt.Errorf("pipeline: output folder %s exists and is not a folder", dir)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pipeline: output folder: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pipeline: output folder: %w", err)
	}
	var foreign []string
	marked := train.HasCheckpoint(filepath.Join(dir, "checkpoint"))
	for _, e := range entries {
		switch name := e.Name(); {
		case name == LockFile:
			marked = true
		case !slices.Contains(own, name):
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 && !marked {
		if len(foreign) > 5 {
			foreign = append(foreign[:5], "...")
		}
		return nil, &SettingsError{fmt.Errorf("pipeline: %s holds files (%s) and is not a gtformer output folder: "+
			"give a new or empty folder (a run never replaces files it did not write)", dir, strings.Join(foreign, ", "))}
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pipeline: output folder %s is not writable: %w", dir, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("pipeline: another gtformer run is writing into %s (it holds %s locked): "+
				"wait for it to end, or give another folder", dir, LockFile)
		}
		return nil, fmt.Errorf("pipeline: locking %s: %w", path, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// errLocked is lockFile's error when another process holds the lock.
var errLocked = errors.New("locked by another process")
