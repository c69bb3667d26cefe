//go:build unix

package main

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

const rlimInfinity = unix.RLIM_INFINITY

func getrlimit(id int) (cur, max uint64, ok bool) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(id, &lim); err != nil {
		return 0, 0, false
	}
	return uint64(lim.Cur), uint64(lim.Max), true
}

// processUmask is the umask the process's parent gave it (bash -c under umask 027).
func processUmask() fs.FileMode {
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	return fs.FileMode(mask)
}
