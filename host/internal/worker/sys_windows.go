package worker

import (
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// procAttr: nothing beyond the process group (sandbox.StartGroup's Job Object, which also ends
// the worker when the server's handle to it closes, as Pdeathsig does on Linux).
func procAttr() *syscall.SysProcAttr { return nil }

// cpuUsed is the CPU time (user + kernel) this process has used.
func cpuUsed() time.Duration {
	var c, e, k, u windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &c, &e, &k, &u) != nil {
		return 0
	}
	return time.Duration(k.Nanoseconds() + u.Nanoseconds())
}
