package harness

import (
	"os"

	"golang.org/x/sys/windows"
)

// KillPid ends the process pid.
func KillPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// TerminatePid ends the process pid: Windows has no SIGTERM for a console-less child, so this is
// KillPid.
func TerminatePid(pid int) error { return KillPid(pid) }

// PidAlive reports whether pid runs.
func PidAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// Mkfifo makes no FIFO: Windows has none in its file system (ok false).
func Mkfifo(string) (ok bool, err error) { return false, nil }
