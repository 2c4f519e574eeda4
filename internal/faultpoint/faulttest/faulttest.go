// Package faulttest runs a test binary again as a child process that a
// fault (internal/faultpoint) stops: the tests' side of fault injection,
// kept out of the packages the gtformer binary links.
package faulttest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Killed is RunChild's exit code for a child that SIGKILL ended.
const Killed = -1

// RunChild runs this test binary again as a child process with args and
// extra environment entries (the child reads them in TestMain and stops
// itself at a point) and returns its exit code, Killed when SIGKILL ended
// it, and what it wrote to stderr.
func RunChild(args, env []string) (code int, stderr string, err error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, errb.String(), nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return Killed, errb.String(), nil
		}
		return ee.ExitCode(), errb.String(), nil
	}
	return 0, errb.String(), err
}
