package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists the names in dir, so a test can check that no temporary
// file is left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		old     string // existing content, "" for none
		write   func(w io.Writer) error
		wantErr error
		want    string // content after the call; old content on error
	}{
		{"new file", "", func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }, nil, "hello\n"},
		{"replace", "old\n", func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }, nil, "new\n"},
		{"empty", "old\n", func(w io.Writer) error { return nil }, nil, ""},
		{"failing writer, no old file", "", func(w io.Writer) error {
			io.WriteString(w, "partial")
			return errBoom
		}, errBoom, ""},
		{"failing writer keeps old file", "old\n", func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("x", 3<<20)) // more than the buffer: reaches the disk
			return errBoom
		}, errBoom, "old\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if want := "atomicfile: write " + path + ": boom"; err != nil && err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
			got, rerr := os.ReadFile(path)
			switch {
			case tc.wantErr != nil && tc.old == "":
				if !os.IsNotExist(rerr) {
					t.Fatalf("destination exists after failed write (err %v)", rerr)
				}
			case rerr != nil:
				t.Fatal(rerr)
			case string(got) != tc.want:
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			if tc.wantErr == nil {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o644 {
					t.Errorf("mode %v, want 0644", fi.Mode().Perm())
				}
			}
			names := entries(t, dir)
			wantNames := 1
			if tc.wantErr != nil && tc.old == "" {
				wantNames = 0
			}
			if len(names) != wantNames {
				t.Errorf("directory holds %v, want %d file(s)", names, wantNames)
			}
		})
	}
}

func TestWriteFilePanicLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	func() {
		defer func() { recover() }()
		WriteFile(path, func(w io.Writer) error { io.WriteString(w, "x"); panic("writer bug") })
	}()
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("directory holds %v after a panic, want nothing", names)
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "x"), func(io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "x") {
		t.Fatalf("err = %v, want an error naming the file", err)
	}
}

func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.bin")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "abc")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("destination visible before Commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // no-op after Commit
	if b, _ := os.ReadFile(path); string(b) != "abc" {
		t.Fatalf("content %q", b)
	}
	if _, err := f.Write([]byte("more")); err == nil {
		t.Error("Write after Commit succeeded")
	}
	if err := f.Commit(); err == nil {
		t.Error("second Commit succeeded")
	}

	g, err := Create(filepath.Join(dir, "b.bin"))
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("discard me")
	g.Abort()
	if names := entries(t, dir); len(names) != 1 || names[0] != "a.bin" {
		t.Fatalf("directory holds %v, want only a.bin", names)
	}
}

func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting.txt")
	err := WriteFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "hello")
		return err
	})
	b, _ := os.ReadFile(path)
	fmt.Printf("%v %q\n", err, b)
	// Output: <nil> "hello\n"
}
