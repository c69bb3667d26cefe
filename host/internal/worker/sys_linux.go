package worker

import (
	"syscall"
	"time"
)

// procAttr puts a worker in its own process group and kills it when the server dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// asLimit is RLIMIT_AS (address space), which Linux enforces.
const asLimit = syscall.RLIMIT_AS

// nprocLimit is RLIMIT_NPROC (6 on Linux; the syscall package does not name it).
const nprocLimit = 0x6

// cpuUsed is the CPU time (user + system) this process has used.
func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
