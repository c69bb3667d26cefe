//go:build !linux

package sandbox

import "golang.org/x/sys/unix"

// walkFlags opens a root's path components (O_PATH is Linux's).
const walkFlags = unix.O_RDONLY
