//go:build darwin || freebsd || netbsd || openbsd

package sandbox

import (
	"io/fs"
	"syscall"
	"time"
)

func statTimesOf(st *syscall.Stat_t) (atime, ctime time.Time) {
	return time.Unix(int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec)), time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}

func setStatTimes(st *syscall.Stat_t, atime, mtime time.Time) {
	st.Atimespec = syscall.NsecToTimespec(atime.UnixNano())
	st.Mtimespec = syscall.NsecToTimespec(mtime.UnixNano())
}

// processUmask is the usual 022 (these systems do not show the umask without changing it).
func processUmask() fs.FileMode { return 0o022 }

// isWhiteout: no overlays here (native tools cannot run in review mode).
func isWhiteout(fs.FileInfo) bool { return false }

func isOpaque(string) bool { return false }
