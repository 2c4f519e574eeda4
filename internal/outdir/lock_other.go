//go:build !unix

package outdir

// takeLock has no advisory lock to take on this system: a second writer is
// not detected.
func (d *Dir) takeLock() error { return nil }
