package wasm

import (
	"fmt"
	"io/fs"
)

// ownedPrivate refuses every cache directory on Windows: who may read and write a file there is
// an ACL, which this check does not read, and the cache holds native code the server runs. The
// runtime then compiles in memory (New logs why), and DefaultCacheDir names no directory.
func ownedPrivate(p string, _ fs.FileInfo, _ bool) error {
	return fmt.Errorf("%w: %s: a disk cache is not used on Windows (its ACLs are not checked); compiled modules stay in memory", ErrCacheUnsafe, p)
}
