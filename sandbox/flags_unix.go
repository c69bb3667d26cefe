//go:build unix

package sandbox

import "syscall"

// Open flags the sandbox adds: O_NONBLOCK so that opening a FIFO never waits for a peer, and
// O_DIRECTORY where only a directory may be opened.
const (
	oNonblock  = syscall.O_NONBLOCK
	oDirectory = syscall.O_DIRECTORY
)
