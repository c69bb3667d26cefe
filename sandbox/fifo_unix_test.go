//go:build unix

package sandbox

import "syscall"

// mkfifo makes a FIFO at p (ok false where the platform has none).
func mkfifo(p string) (ok bool, err error) { return true, syscall.Mkfifo(p, 0o600) }
