//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mcp-bash/mcp-bash/sandbox/internal/confine"
)

// openRootAt opens the root directory p and makes sure it is the directory physically at p:
// os.OpenRoot follows symlinks on the way, so a component of a vetted root replaced by a symlink
// later (by a native tool or an allowlisted command writing the root's parent, git checking out a
// link, another user) would make a later call's root whatever the link names, `/` included.
// Walking p with O_NOFOLLOW on every component and comparing the directory found with the one
// opened is free of races: whatever is swapped in between, the two differ.
func openRootAt(p string) (*os.Root, error) {
	r, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	if err := physicallyAt(r, p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func physicallyAt(r *os.Root, p string) error {
	moved := &fs.PathError{Op: "openat", Path: p, Err: &refused{"the root " + p + " was replaced by a symlink since it was given"}}
	fd, err := confine.PhysicalDir(p)
	if errors.Is(err, confine.ErrNotPhysical) {
		return moved // a symlink (or no longer a directory) on the way
	}
	if err != nil {
		return &fs.PathError{Op: "openat", Path: p, Err: err}
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil {
		return &fs.PathError{Op: "fstat", Path: p, Err: err}
	}
	fi, err := r.Stat(".")
	if err != nil {
		return err
	}
	if rs, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(rs.Dev) != uint64(st.Dev) || uint64(rs.Ino) != uint64(st.Ino) {
		return moved
	}
	return nil
}
