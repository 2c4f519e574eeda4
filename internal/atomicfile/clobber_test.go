package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestNeverClobber: a write replaces only what is ours to replace. A named
// pipe, a directory, and a symbolic link to either are refused with an
// error naming the path and its kind, and are left as they were; a
// symbolic link to a regular file, or to a name that does not exist yet,
// gets its target written and stays a link. No temporary file is left
// behind. (A real device under /dev is never used: a failing test would
// replace it for the whole machine; a named pipe is a node of the same
// sort that a rename would destroy.)
func TestNeverClobber(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) // makes dir/out (and whatever it points to)
		want  string                         // substring of the error; "" for success
		// written is the file that must hold the new content on success
		// (relative to dir), and kept the nodes whose type must not change.
		written string
		kept    map[string]fs.FileMode
	}{
		{"named pipe", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, "out")) },
			"is a named pipe: not replaced", "", map[string]fs.FileMode{"out": fs.ModeNamedPipe}},
		{"directory", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "out")) },
			"is a directory: not replaced", "", map[string]fs.FileMode{"out": fs.ModeDir}},
		{"link to a named pipe", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe"))
			symlink(t, "pipe", filepath.Join(dir, "out"))
		}, "is a symbolic link to " + "DIR/pipe, which is a named pipe", "", map[string]fs.FileMode{"out": fs.ModeSymlink, "pipe": fs.ModeNamedPipe}},
		{"link to a directory", func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "sub"))
			symlink(t, filepath.Join(dir, "sub"), filepath.Join(dir, "out"))
		}, "which is a directory", "", map[string]fs.FileMode{"out": fs.ModeSymlink, "sub": fs.ModeDir}},
		{"link loop", func(t *testing.T, dir string) {
			symlink(t, "b", filepath.Join(dir, "out"))
			symlink(t, "out", filepath.Join(dir, "b"))
		}, "levels of symbolic links", "", map[string]fs.FileMode{"out": fs.ModeSymlink, "b": fs.ModeSymlink}},
		{"link to a regular file", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "real"), "old")
			symlink(t, "real", filepath.Join(dir, "out"))
		}, "", "real", map[string]fs.FileMode{"out": fs.ModeSymlink}},
		{"chain of links into another directory", func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "sub"))
			writeFile(t, filepath.Join(dir, "sub", "real"), "old")
			symlink(t, filepath.Join(dir, "sub", "real"), filepath.Join(dir, "sub", "link"))
			symlink(t, "sub/link", filepath.Join(dir, "out"))
		}, "", "sub/real", map[string]fs.FileMode{"out": fs.ModeSymlink, "sub/link": fs.ModeSymlink}},
		{"dangling link", func(t *testing.T, dir string) { symlink(t, "new", filepath.Join(dir, "out")) },
			"", "new", map[string]fs.FileMode{"out": fs.ModeSymlink}},
		{"regular file", func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "out"), "old") },
			"", "out", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			before := entries(t, dir)
			err := WriteFile(filepath.Join(dir, "out"), func(w io.Writer) error {
				_, err := io.WriteString(w, "new content")
				return err
			})
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			switch {
			case want == "" && err != nil:
				t.Fatalf("write failed: %v", err)
			case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Join(dir, "out"))):
				t.Fatalf("error %v, want one naming %s and %q", err, filepath.Join(dir, "out"), want)
			}
			if want != "" {
				var nr *NotRegularError
				if !strings.Contains(tc.name, "loop") && !errors.As(err, &nr) {
					t.Errorf("error %T is not a *NotRegularError", err)
				}
			}
			if tc.written != "" {
				b, err := os.ReadFile(filepath.Join(dir, tc.written))
				if err != nil || string(b) != "new content" {
					t.Errorf("%s holds %q (%v), want the new content", tc.written, b, err)
				}
			}
			for name, mode := range tc.kept {
				fi, err := os.Lstat(filepath.Join(dir, name))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fi.Mode().Type() != mode {
					t.Errorf("%s is now %v, was %v", name, fi.Mode().Type(), mode)
				}
			}
			after := entries(t, dir)
			if tc.written == "new" {
				after = slices.DeleteFunc(after, func(s string) bool { return s == "new" })
			}
			if !slices.Equal(before, after) {
				t.Errorf("directory held %v before and %v after: a temporary file was left or a node replaced", before, after)
			}
		})
	}
}

// TestCommitRechecksDestination: a destination that becomes a directory
// while it is being written is refused at Commit, and the temporary file
// is removed.
func TestCommitRechecksDestination(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	mkdir(t, path)
	err = f.Commit()
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Commit over a new directory: %v", err)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"out"}) {
		t.Errorf("directory holds %v, want only out", names)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, to, path string) {
	t.Helper()
	if err := os.Symlink(to, path); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
