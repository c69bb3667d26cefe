//go:build unix

package harness

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// KillPid kills the process pid (SIGKILL).
func KillPid(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// TerminatePid asks the process pid to end (SIGTERM).
func TerminatePid(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// PidAlive reports whether pid runs (on Linux a zombie waiting for a reaper does not count).
func PidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc (macOS): signal 0 reached it
	}
	// The state follows the command name in parentheses, which may itself hold one.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// Mkfifo makes a FIFO at p; ok is false where the platform has none (Windows).
func Mkfifo(p string) (ok bool, err error) { return true, syscall.Mkfifo(p, 0o666) }
