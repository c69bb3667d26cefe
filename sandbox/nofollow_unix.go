//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// OpenNoFollow opens the host file p for reading, never through a symlink in its last component
// (a link planted there must not make the server read a file elsewhere) and never blocking on a
// FIFO. The caller checks what it opened (a regular file, its size).
func OpenNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
