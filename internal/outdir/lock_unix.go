//go:build unix

package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// takeLock locks LockFile with flock(2), without waiting: the kernel drops
// the lock when the descriptor closes, which happens when the process ends
// however it ends, so no stale lock survives a crash.
func (d *Dir) takeLock() error {
	path := filepath.Join(d.path, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("outdir: lock %s: %w", d.path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		pid := "another process"
		if raw, rerr := os.ReadFile(path); rerr == nil {
			if n, perr := strconv.Atoi(strings.TrimSpace(string(raw))); perr == nil {
				pid = "process " + strconv.Itoa(n)
			}
		}
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s is being written by %s (another gtformer run): wait for it to end, or choose another folder", ErrBusy, d.path, pid)
		}
		return fmt.Errorf("outdir: lock %s: %w", d.path, err)
	}
	// The holder's id, for the message a second writer gets.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	d.lock = f
	return nil
}
