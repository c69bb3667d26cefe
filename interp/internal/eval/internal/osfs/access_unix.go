//go:build unix

package osfs

import "syscall"

func access(name string, mode uint32) error { return syscall.Access(name, mode) }

// setUmask sets the process's umask and returns the previous one.
func setUmask(mask int) int { return syscall.Umask(mask) }
