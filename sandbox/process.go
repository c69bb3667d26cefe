package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// ExitStatus is the shell's status of a finished process from its Wait (or Run) error: 0 for
// nil, its exit code, or 128+N when signal N killed it. ok is false when err does not come from
// a process that ran to its end (it could not start, say); the caller picks the status then.
func ExitStatus(err error) (status int, ok bool) {
	if err == nil {
		return 0, true
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), true
	}
	return ee.ExitCode(), true
}
