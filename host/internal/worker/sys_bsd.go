//go:build unix && !linux

package worker

import (
	"syscall"
	"time"
)

// procAttr puts a worker in its own process group (no parent-death signal outside Linux: a
// worker notices the server's end when its stdin closes).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// asLimit: macOS does not enforce RLIMIT_AS; RLIMIT_DATA is the closest it honours.
const asLimit = syscall.RLIMIT_DATA

// nprocLimit is RLIMIT_NPROC (7 on the BSDs and macOS; the syscall package does not name it).
const nprocLimit = 0x7

// cpuUsed is the CPU time (user + system) this process has used.
func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
