//go:build unix

package native

import "syscall"

// The exit statuses of a tool its CPU time or file size limit ended (the kernel's signals).
const (
	cpuLimitStatus      = 128 + int(syscall.SIGXCPU)
	fileSizeLimitStatus = 128 + int(syscall.SIGXFSZ)
)

// jobLimits: on Unix the limits are set in the tool's process (the confinement wrapper, else a
// bash ulimit prefix), not by its process group.
const jobLimits = false
