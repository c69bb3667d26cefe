//go:build unix && !linux

package confine

import "golang.org/x/sys/unix"

// walkFlags opens a path's components (O_PATH is Linux's).
const walkFlags = unix.O_RDONLY
