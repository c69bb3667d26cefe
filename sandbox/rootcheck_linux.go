package sandbox

import "golang.org/x/sys/unix"

// walkFlags opens a root's path components without needing read permission on them.
const walkFlags = unix.O_PATH
