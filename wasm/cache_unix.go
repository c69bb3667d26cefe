//go:build unix

package wasm

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownedPrivate checks that fi (of p) is a directory (or a regular file) owned by the server's
// user with no access for group or others.
func ownedPrivate(p string, fi fs.FileInfo, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is a %v, not a %s", ErrCacheUnsafe, p, fi.Mode().Type(), map[bool]string{true: "directory", false: "regular file"}[dir])
	case !ok || st.Uid != uint32(os.Geteuid()):
		return fmt.Errorf("%w: %s is not owned by the server's user (uid %d)", ErrCacheUnsafe, p, os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: %s has mode %v; it must allow nobody but its owner (chmod go= %s)", ErrCacheUnsafe, p, fi.Mode().Perm(), p)
	}
	return nil
}
