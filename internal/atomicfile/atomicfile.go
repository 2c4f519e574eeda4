// Package atomicfile writes files so that readers never see a half-written
// one: data goes to a temporary file in the destination's directory, is
// flushed and fsynced, and only then renamed over the destination. Rename
// within one directory is atomic on POSIX file systems, so after a crash or
// an error the destination holds either its old content or the new one.
//
// Only what is ours to replace is replaced: a destination that is absent or
// a regular file is written; a symbolic link is followed and its target
// written (the link stays); a directory, device, named pipe or socket, or a
// link that leads to one, is refused with an error naming it (renaming a
// regular file over /dev/full as root would replace the device node for the
// whole machine).
package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/internal/faultpoint"
)

// bufSize is the write buffer: large enough that writing 500,000 short lines
// costs few system calls.
const bufSize = 1 << 20

// File is a destination being written. Write to it, then call Commit to
// publish the content or Abort to discard it. Abort after Commit is a no-op,
// so `defer f.Abort()` is the idiomatic cleanup.
type File struct {
	path   string // as given, for messages
	target string // what is written: path, or where its symbolic links lead
	tmp    *os.File
	w      *bufio.Writer
	done   bool
}

// Create starts writing path, which must be absent, a regular file, or a
// symbolic link leading to one of those (see the package comment). The
// temporary file is created in the destination's directory (so the final
// rename does not cross file systems), with a name starting with "." and
// the destination's base name, so a leftover after a crash is
// recognisable.
func Create(path string) (*File, error) {
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("atomicfile: create temporary file for %s: %w", path, err)
	}
	return &File{path: path, target: target, tmp: tmp, w: bufio.NewWriterSize(tmp, bufSize)}, nil
}

// Check reports whether path may be written: nil when it is absent, a
// regular file, or a symbolic link leading to one of those; otherwise a
// *NotRegularError (or the error met following it). A caller that reads
// the destination before replacing it checks it first: opening a named
// pipe for reading blocks.
func Check(path string) error {
	_, err := resolve(path)
	return err
}

// maxLinks bounds the symbolic links followed (Linux's own limit).
const maxLinks = 40

// NotRegularError reports a destination that is not ours to replace.
type NotRegularError struct {
	Path string // as given
	Via  string // where its symbolic links lead, "" when Path is not a link
	Kind string // "a directory", "a device", "a named pipe", ...
}

func (e *NotRegularError) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("atomicfile: %s is a symbolic link to %s, which is %s: not replaced (write to a regular file)", e.Path, e.Via, e.Kind)
	}
	return fmt.Sprintf("atomicfile: %s is %s: not replaced (write to a regular file)", e.Path, e.Kind)
}

// resolve follows path's symbolic links to what a write should replace: a
// regular file or a name that does not exist yet (in an existing or
// missing directory: CreateTemp reports the latter).
func resolve(path string) (string, error) {
	p := path
	for links := 0; ; links++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("atomicfile: %w", err)
		}
		m := fi.Mode()
		if m.IsRegular() {
			return p, nil
		}
		if m&fs.ModeSymlink == 0 {
			via := p
			if via == path {
				via = ""
			}
			return "", &NotRegularError{Path: path, Via: via, Kind: kindOf(m)}
		}
		if links == maxLinks {
			return "", fmt.Errorf("atomicfile: %s: more than %d levels of symbolic links", path, maxLinks)
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("atomicfile: %w", err)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
}

// kindOf names a file type that is not a regular file or a link.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file"
	}
}

// Write buffers p.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("atomicfile: write to %s after Commit or Abort", f.path)
	}
	return f.w.Write(p)
}

// WriteString buffers s without converting it to a byte slice.
func (f *File) WriteString(s string) (int, error) {
	if f.done {
		return 0, fmt.Errorf("atomicfile: write to %s after Commit or Abort", f.path)
	}
	return f.w.WriteString(s)
}

// Commit flushes, fsyncs and renames the temporary file to the destination.
// The file gets mode 0644 rather than CreateTemp's 0600, since data files
// are meant to be shared. On error the temporary file is removed and the
// destination is untouched.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: Commit of %s after Commit or Abort", f.path)
	}
	f.done = true
	faultpoint.Reached("commit " + f.path)
	err := f.w.Flush()
	if err == nil {
		err = f.tmp.Chmod(0o644)
	}
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The destination may have changed since Create (a long write):
		// check again that it is still ours to replace.
		var target string
		if target, err = resolve(f.path); err == nil && target != f.target {
			err = fmt.Errorf("%s changed while it was being written (now leads to %s)", f.path, target)
		}
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.target)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		var nr *NotRegularError
		if errors.As(err, &nr) {
			return err
		}
		return fmt.Errorf("atomicfile: write %s: %w", f.path, err)
	}
	// Make the rename itself durable; failure here does not undo the write,
	// and some file systems do not support syncing a directory.
	SyncDir(filepath.Dir(f.target))
	faultpoint.Reached("committed " + f.path)
	return nil
}

// SyncDir makes the entries of dir (a rename or a removal in it) durable.
// Errors are ignored: some file systems cannot sync a directory, and the
// entries are then as durable as they can be made.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Abort discards the temporary file. It is a no-op after Commit or Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// WriteFile writes path atomically with the content produced by write, which
// receives a buffered writer. If write returns an error (or a panic unwinds
// through it), nothing is left behind and the destination is untouched.
func WriteFile(path string, write func(w io.Writer) error) (err error) {
	if write == nil {
		return errors.New("atomicfile: WriteFile with nil write function")
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteJSON writes v as indented JSON with a final newline, atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
