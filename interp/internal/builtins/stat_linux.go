//go:build linux

package builtins

import (
	"syscall"
	"time"
)

// statTimes returns a file's access and status-change times (the fields differ per OS).
func statTimes(st *syscall.Stat_t) (atime, ctime time.Time) {
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
}

// statDev returns a file's device number.
func statDev(st *syscall.Stat_t) uint64 { return uint64(st.Dev) }
