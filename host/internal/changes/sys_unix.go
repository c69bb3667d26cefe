//go:build unix

package changes

import (
	"fmt"
	"os"
	"syscall"
)

// oNonblock keeps opening a FIFO found in a root from waiting for a writer.
const oNonblock = syscall.O_NONBLOCK

// lockFile takes an exclusive lock on f until it is closed (or its process dies).
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// private checks that the store is the server's user's alone: owned by it, and no one else may
// write it (or a change set could be swapped under a person's decision).
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("the changes directory %s is not a directory", dir)
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("the changes directory %s belongs to another user (uid %d)", dir, st.Uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the changes directory %s may be written by others (mode %04o); chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}
