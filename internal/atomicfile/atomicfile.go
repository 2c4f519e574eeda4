// Package atomicfile writes files so that readers never see a half-written
// one: data goes to a temporary file in the destination's directory, is
// flushed and fsynced, and only then renamed over the destination. Rename
// within one directory is atomic on POSIX file systems, so after a crash or
// an error the destination holds either its old content or the new one.
package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// bufSize is the write buffer: large enough that writing 500,000 short lines
// costs few system calls.
const bufSize = 1 << 20

// File is a destination being written. Write to it, then call Commit to
// publish the content or Abort to discard it. Abort after Commit is a no-op,
// so `defer f.Abort()` is the idiomatic cleanup.
type File struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	done bool
}

// Create starts writing path. The temporary file is created in the same
// directory (so the final rename does not cross file systems), with a name
// starting with "." and the destination's base name, so a leftover after a
// crash is recognisable.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("atomicfile: create temporary file for %s: %w", path, err)
	}
	return &File{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, bufSize)}, nil
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
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("atomicfile: write %s: %w", f.path, err)
	}
	// Make the rename itself durable; failure here does not undo the write,
	// and some file systems do not support syncing a directory.
	if d, derr := os.Open(filepath.Dir(f.path)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteJSON writes v as indented JSON with a final newline, atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
