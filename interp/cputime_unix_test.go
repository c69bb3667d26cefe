//go:build unix

package interp

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system, every thread): unlike the
// wall clock, it does not grow while a loaded machine runs other processes.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
