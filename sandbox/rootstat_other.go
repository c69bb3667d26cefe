//go:build !unix

package sandbox

import "os"

// statIsDir is os.Stat(host).IsDir() (rootstat_unix.go saves the FileInfo's allocation).
func statIsDir(host string) (bool, error) {
	fi, err := os.Stat(host)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}
