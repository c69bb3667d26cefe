package sandbox

import "errors"

// ErrLocked is TryLock's error when another process or file holds the lock.
var ErrLocked = errors.New("file is locked")
