package outdir_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gtformer/gtformer/internal/outdir"
)

var known = []string{"config.json", "tree.json", "topics.txt", "metrics.json", "map.png", "map.svg", "eval.json", "checkpoint"}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpen: which folders a run may write into.
func TestOpen(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string // laid out before Open
		wantErr error             // nil: Open succeeds
		errHas  string
	}{
		{name: "absent folder", files: nil},
		{name: "empty folder", files: map[string]string{}},
		{name: "the user's files under output names", files: map[string]string{
			"map.png": "mine", "map.svg": "mine", "eval.json": "{}", "config.json": `{"lr": 1}`,
		}, wantErr: outdir.ErrForeign, errHas: "config.json"},
		{name: "the user's notes", files: map[string]string{"notes.txt": "x"}, wantErr: outdir.ErrForeign, errHas: "notes.txt"},
		{name: "an earlier gtformer's model folder", files: map[string]string{
			"config.json": `{"format": "gtformer-model/1"}`, "map.png": "old",
		}},
		{name: "an earlier gtformer's run stopped before its outputs", files: map[string]string{
			"checkpoint/000003.epoch-2/manifest.json": "{}",
		}},
		{name: "a checkpoint-like folder of the user's", files: map[string]string{
			"checkpoint/photos/a.jpg": "x",
		}, wantErr: outdir.ErrForeign},
		{name: "a manifest that is not gtformer's", files: map[string]string{
			outdir.ManifestFile: `{"hello": 1}`,
		}, errHas: "not a gtformer manifest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if c.files != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for n, s := range c.files {
				write(t, filepath.Join(dir, n), s)
			}
			d, err := outdir.Open(dir, known)
			if c.wantErr == nil && c.errHas == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				d.Close()
				return
			}
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded, want an error")
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
			if !strings.Contains(err.Error(), c.errHas) || !strings.HasPrefix(err.Error(), "outdir: ") {
				t.Errorf("error %q: want the prefix outdir: and %q", err, c.errHas)
			}
			for n, s := range c.files {
				if got := read(t, filepath.Join(dir, n)); got != s {
					t.Errorf("%s changed to %q", n, got)
				}
			}
		})
	}
}

// TestReplaceOnlyWhatWasWritten: a file gtformer wrote may be replaced or
// removed while unchanged; a file it did not write, or one changed since,
// never is.
func TestReplaceOnlyWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	d, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	write(t, filepath.Join(dir, "topics.txt"), "ours")
	write(t, filepath.Join(dir, "map.png"), "ours too")
	if err := d.Record("topics.txt", "map.png"); err != nil {
		t.Fatal(err)
	}
	if err := d.CheckReplace("topics.txt"); err != nil {
		t.Errorf("unchanged file of ours: %v", err)
	}
	if err := d.CheckReplace("metrics.json"); err != nil {
		t.Errorf("absent file: %v", err)
	}
	write(t, filepath.Join(dir, "notes.txt"), "the user's")
	if err := d.CheckReplace("notes.txt"); !errors.Is(err, outdir.ErrForeign) {
		t.Errorf("the user's file: %v, want ErrForeign", err)
	}
	write(t, filepath.Join(dir, "topics.txt"), "edited by the user")
	if err := d.CheckReplace("topics.txt"); !errors.Is(err, outdir.ErrForeign) {
		t.Errorf("edited file: %v, want ErrForeign", err)
	}
	removed, err := d.RemoveStale([]string{"metrics.json"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{"map.png"}) {
		t.Errorf("removed %v, want [map.png]", removed)
	}
	if got := read(t, filepath.Join(dir, "topics.txt")); got != "edited by the user" {
		t.Errorf("the edited file became %q", got)
	}
	if got := read(t, filepath.Join(dir, "notes.txt")); got != "the user's" {
		t.Errorf("the user's file became %q", got)
	}
	// The manifest carries over to the next run.
	d.Close()
	d2, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer d2.Close()
	if err := d2.CheckReplace("map.png"); err != nil {
		t.Errorf("removed file: %v", err)
	}
	if err := d2.CheckReplace("notes.txt"); !errors.Is(err, outdir.ErrForeign) {
		t.Errorf("after reopening, the user's file: %v, want ErrForeign", err)
	}
}

// TestLegacyFolderStale: in a folder of an earlier gtformer, the files of
// known output names are its own, as before manifests.
func TestLegacyFolderStale(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "config.json"), `{"format": "gtformer-model/1"}`)
	write(t, filepath.Join(dir, "map.png"), "old")
	write(t, filepath.Join(dir, "notes.txt"), "the user's")
	d, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	removed, err := d.RemoveStale([]string{"config.json"})
	if err != nil || !slices.Equal(removed, []string{"map.png"}) {
		t.Errorf("removed %v, %v; want [map.png]", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the user's notes: %v", err)
	}
}

func TestOwnFolder(t *testing.T) {
	dir := t.TempDir()
	d, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Own("checkpoint"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "checkpoint", "000001.epoch-1", "manifest.json"), "{}")
	if err := d.CheckReplace("checkpoint"); err != nil {
		t.Errorf("owned folder: %v", err)
	}
	if _, err := d.RemoveStale(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint", "000001.epoch-1")); err != nil {
		t.Errorf("RemoveStale touched a folder: %v", err)
	}
}

func TestNotAFolder(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	write(t, file, "x")
	if _, err := outdir.Open(file, known); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file: %v", err)
	}
	link := filepath.Join(tmp, "dangling")
	if err := os.Symlink(filepath.Join(tmp, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := outdir.Open(link, known); err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a dangling link: %v", err)
	}
}

// TestOneWriter: a second Open of a folder is refused while the first
// holds it, and allowed once it is closed.
func TestOneWriter(t *testing.T) {
	dir := t.TempDir()
	d, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatal(err)
	}
	if d2, err := outdir.Open(dir, known); !errors.Is(err, outdir.ErrBusy) {
		d2.Close()
		t.Fatalf("second writer: %v, want ErrBusy", err)
	} else if !strings.Contains(err.Error(), "process") {
		t.Errorf("message %q does not name the holder", err)
	}
	d.Close()
	d3, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	d3.Close()
}

// TestLockDiesWithProcess: a process that holds the folder and is killed
// (SIGKILL: no cleanup runs) leaves it free.
func TestLockDiesWithProcess(t *testing.T) {
	if dir := os.Getenv("OUTDIR_TEST_HOLD"); dir != "" {
		d, err := outdir.Open(dir, known)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(3)
		}
		_ = d
		os.Stdout.WriteString("holding\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithProcess$")
	cmd.Env = append(os.Environ(), "OUTDIR_TEST_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "holding") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("holder said %q", buf[:n])
	}
	if _, err := outdir.Open(dir, known); !errors.Is(err, outdir.ErrBusy) {
		t.Errorf("while another process holds it: %v, want ErrBusy", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	d, err := outdir.Open(dir, known)
	if err != nil {
		t.Fatalf("after kill -9 of the holder: %v", err)
	}
	d.Close()
}
