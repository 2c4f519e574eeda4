package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesForeignFolder: a folder holding files that no gtformer run
// wrote is refused before any training, and its files stay as they were
// (train once removed a user's map.png and eval.json as "an earlier run's"
// and overwrote their config.json).
func TestRunRefusesForeignFolder(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		own   []string
	}{
		{"the user's files by gtformer's names", []string{"map.png", "eval.json", "config.json"}, nil},
		{"other files", []string{"notes.txt"}, nil},
		{"other files beside the caller's own", []string{"run.json", "notes.txt"}, []string{"run.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sp := tinySpec(t, dir)
			sp.OwnFiles = c.own
			_, err := Run(sp)
			var bad *SettingsError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), "not a gtformer output folder") {
				t.Fatalf("error %v: want a refusal of the folder", err)
			}
			for _, f := range c.files {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "mine\n" {
					t.Errorf("%s: %q, %v", f, b, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused folder got a lock file: %v", err)
			}
		})
	}
}

// TestRunFolderRules: the caller's own files are accepted; a folder a run
// wrote is a gtformer output that the next run may replace; a second
// writer of one folder is refused while the first holds it, and accepted
// once it has let go; a folder that cannot be made is found before
// training.
func TestRunFolderRules(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := tinySpec(t, dir)
	sp.OwnFiles = []string{"run.json"}
	sp.ValidOnly = true
	if _, err := Run(sp); err != nil {
		t.Fatal(err)
	}
	release, err := claimDir(dir, nil)
	if err != nil {
		t.Fatalf("a finished run's folder: %v", err)
	}
	_, err = Run(sp)
	if err == nil || !strings.Contains(err.Error(), "another gtformer run is writing into") {
		t.Errorf("second writer: error %v", err)
	}
	release()
	if _, err := Run(sp); err != nil {
		t.Errorf("after the first writer let go: %v", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sp = tinySpec(t, filepath.Join(file, "out"))
	if _, err := Run(sp); err == nil || !strings.Contains(err.Error(), "output folder") {
		t.Errorf("--out under a file: error %v", err)
	}
	if os.Geteuid() == 0 {
		t.Log("root writes through permission bits: TestClaimReadOnlyFileSystem checks a read-only file system")
	} else {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(ro, 0o755)
		if _, err := Run(tinySpec(t, ro)); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only folder: error %v", err)
		}
	}
}

// TestClaimOddPaths: an --out that is a dangling symbolic link or a file is
// refused as a settings mistake that names what the path is.
func TestClaimOddPaths(t *testing.T) {
	tmp := t.TempDir()
	link := filepath.Join(tmp, "dangling")
	if err := os.Symlink(filepath.Join(tmp, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{link, "symbolic link to " + filepath.Join(tmp, "nowhere") + ", which does not exist"},
		{file, "exists and is not a folder"},
	} {
		_, err := claimDir(c.path, nil)
		var se *SettingsError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a settings error with %q", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("the file became %q", b)
	}
}
