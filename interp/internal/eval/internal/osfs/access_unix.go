//go:build unix

package osfs

import "syscall"

func access(name string, mode uint32) error { return syscall.Access(name, mode) }
