//go:build unix

package sandbox

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// statIsDir is os.Stat(host).IsDir() without the FileInfo os.Stat allocates: NewFS checks
// every root of every call, and only the type is wanted. Errors are os.Stat's (*fs.PathError
// over the errno, so errors.Is(err, fs.ErrNotExist) still holds for a missing root).
func statIsDir(host string) (bool, error) {
	var st unix.Stat_t
	for {
		err := unix.Stat(host, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, &fs.PathError{Op: "stat", Path: host, Err: err}
		}
		return st.Mode&unix.S_IFMT == unix.S_IFDIR, nil
	}
}
