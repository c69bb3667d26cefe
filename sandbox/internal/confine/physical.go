//go:build unix

package confine

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotPhysical is PhysicalDir's error for a path that leads through a symlink (or a
// component that is no longer a directory).
var ErrNotPhysical = errors.New("the path now leads through a symlink")

// PhysicalDir opens the directory physically at the absolute path p, following no symlink on
// the way, and returns its descriptor (O_PATH on Linux: no read permission is needed). A root
// that was vetted when it was given and whose path a symlink replaced since would otherwise
// confine a process (or an os.Root) to whatever the link names, `/` included.
func PhysicalDir(p string) (int, error) {
	fd, err := unix.Open("/", walkFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, walkFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err == unix.ENOTDIR || err == unix.ELOOP {
			return -1, ErrNotPhysical
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// checkPhysical refuses rules whose roots no longer lie where they were given.
func checkPhysical(paths []string) error {
	for _, p := range paths {
		fd, err := PhysicalDir(p)
		if errors.Is(err, unix.ENOENT) {
			continue // a missing root grants nothing (pathRules)
		}
		if err != nil {
			return &rootError{p, err}
		}
		unix.Close(fd)
	}
	return nil
}

type rootError struct {
	path string
	err  error
}

func (e *rootError) Error() string { return "confine: root " + e.path + ": " + e.err.Error() }
func (e *rootError) Unwrap() error { return e.err }
