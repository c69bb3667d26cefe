//go:build darwin || freebsd || netbsd || openbsd

package builtins

import (
	"syscall"
	"time"
)

// statTimes returns a file's access and status-change times (the fields differ per OS).
func statTimes(st *syscall.Stat_t) (atime, ctime time.Time) {
	return time.Unix(int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec)), time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}

// statDev returns a file's device number.
func statDev(st *syscall.Stat_t) uint64 { return uint64(st.Dev) }
