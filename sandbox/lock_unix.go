//go:build unix

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on f without waiting (flock); ErrLocked when another holds it.
func TryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// Unlock releases TryLock's lock.
func Unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
