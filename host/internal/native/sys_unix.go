//go:build unix

package native

import (
	"os"
	"syscall"
)

// The exit statuses of a tool its CPU time or file size limit ended (the kernel's signals).
const (
	cpuLimitStatus      = 128 + int(syscall.SIGXCPU)
	fileSizeLimitStatus = 128 + int(syscall.SIGXFSZ)
)

// jobLimits: on Unix the limits are set in the tool's process (the confinement wrapper, else a
// bash ulimit prefix), not by its process group.
const jobLimits = false

// bashArgs are the options a tool's bash starts with (none: an executable script runs itself).
func bashArgs() []string { return nil }

// jqCommand makes p the binary self under the name jq (it dispatches on argv[0]).
func jqCommand(self, p string) error { return os.Symlink(self, p) }
