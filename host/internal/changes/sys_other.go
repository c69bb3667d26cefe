//go:build !unix

package changes

import (
	"fmt"
	"os"
)

// oNonblock: these systems have no FIFOs in the filesystem to wait on.
const oNonblock = 0

// lockFile: no advisory locks here; one process at a time must use the store.
func lockFile(*os.File) error { return nil }

func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("the changes directory %s is not a directory", dir)
	}
	return nil
}
