package confine

import "golang.org/x/sys/unix"

// walkFlags opens a path's components without needing read permission on them.
const walkFlags = unix.O_PATH
