package faulttest

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

const childEnv = "FAULTTEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "exit7":
		os.Stderr.WriteString("exiting 7\n")
		os.Exit(7)
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	os.Exit(m.Run())
}

// TestRunChild: a child's exit code and stderr come back; a child that
// SIGKILL ends reports Killed.
func TestRunChild(t *testing.T) {
	for _, tc := range []struct {
		mode, stderr string
		code         int
	}{{"exit7", "exiting 7", 7}, {"kill", "", Killed}} {
		code, stderr, err := RunChild([]string{"-test.run=^$"}, []string{childEnv + "=" + tc.mode})
		if err != nil || code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q, %v; want %d and %q", tc.mode, code, stderr, err, tc.code, tc.stderr)
		}
	}
}
