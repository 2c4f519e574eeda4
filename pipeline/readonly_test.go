package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimReadOnlyFileSystem: an --out on a read-only file system is
// found when the folder is claimed, before any data is read or any step
// taken (it used to surface at the first checkpoint, after an epoch). Root
// writes through permission bits, so the folder is a read-only tmpfs
// mounted in a private mount namespace of a child test process.
func TestClaimReadOnlyFileSystem(t *testing.T) {
	if dir := os.Getenv("PIPELINE_TEST_RO"); dir != "" {
		_, err := claimDir(filepath.Join(dir, "out"), nil)
		if err == nil {
			os.Stdout.WriteString("claimed\n")
		} else {
			os.Stdout.WriteString(err.Error() + "\n")
		}
		os.Exit(0)
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: TestRunRefusesForeignFolder checks a read-only folder by its permission bits")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("GTFORMER_REQUIRE_SHARED") != "" {
			t.Fatal("unshare is missing: the read-only case cannot be tested as root")
		}
		t.Skip("root without unshare: no read-only file system to test with")
	}
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o ro none "$1/out" && exec "$2" -test.run='^TestClaimReadOnlyFileSystem$'`, "_", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "PIPELINE_TEST_RO="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if os.Getenv("GTFORMER_REQUIRE_SHARED") != "" {
			t.Fatalf("mounting a read-only file system: %v: %s", err, out)
		}
		t.Skipf("cannot mount a read-only file system here (%v: %s)", err, out)
	}
	if !strings.Contains(string(out), "not writable") && !strings.Contains(string(out), "read-only file system") {
		t.Fatalf("read-only file system: %s, want the folder refused as not writable", out)
	}
}
