//go:build unix

package pipeline

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockGoesWithKilledProcess: a folder whose writer was killed (kill -9,
// no chance to let go) can be claimed at once. The writer is this test
// binary run again as a child that claims the folder and waits.
func TestLockGoesWithKilledProcess(t *testing.T) {
	if dir := os.Getenv("GTFORMER_TEST_HOLD_LOCK"); dir != "" {
		if _, err := claimDir(dir, nil); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockGoesWithKilledProcess$")
	cmd.Env = append(os.Environ(), "GTFORMER_TEST_HOLD_LOCK="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q", line)
	}
	if _, err := claimDir(dir, nil); err == nil || !strings.Contains(err.Error(), "another gtformer run") {
		t.Errorf("while the child holds the folder: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	release, err := claimDir(dir, nil)
	if err != nil {
		t.Fatalf("after kill -9: %v", err)
	}
	release()
}
