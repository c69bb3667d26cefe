//go:build darwin || freebsd || netbsd || openbsd

package sandbox

import (
	"syscall"
	"time"
)

func statTimes(st *syscall.Stat_t) (atime, ctime time.Time) {
	return time.Unix(int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec)), time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
