package outdir_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/internal/outdir"
)

// TestReadOnly: a folder that cannot be written is refused by Open, before
// any work. Root writes through permission bits, so as root the folder is
// a read-only file system, mounted in a private mount namespace.
func TestReadOnly(t *testing.T) {
	if dir := os.Getenv("OUTDIR_TEST_RO"); dir != "" {
		_, err := outdir.Open(filepath.Join(dir, "out"), known)
		if err == nil {
			os.Stdout.WriteString("opened\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(0)
	}
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		_, err := outdir.Open(dir, known)
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("read-only folder: %v, want not writable", err)
		}
		return
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("GTFORMER_REQUIRE_SHARED") != "" {
			t.Fatal("unshare is missing: the read-only case cannot be tested as root")
		}
		t.Skip("running as root without unshare: no read-only file system to test with")
	}
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o ro none "$1/out" && exec "$2" -test.run='^TestReadOnly$'`, "_", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "OUTDIR_TEST_RO="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if os.Getenv("GTFORMER_REQUIRE_SHARED") != "" {
			t.Fatalf("mounting a read-only file system: %v: %s", err, out)
		}
		t.Skipf("cannot mount a read-only file system here (%v: %s)", err, out)
	}
	if !strings.Contains(string(out), "not writable") {
		t.Fatalf("read-only file system: %s, want not writable", out)
	}
}
