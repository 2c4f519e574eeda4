//go:build !unix

package pipeline

import "os"

// lockFile does not lock where flock is missing: the folder checks still
// apply, a second writer is not found.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) {}
