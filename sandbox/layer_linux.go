//go:build linux

package sandbox

import (
	"bufio"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func statTimesOf(st *syscall.Stat_t) (atime, ctime time.Time) {
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
}

func setStatTimes(st *syscall.Stat_t, atime, mtime time.Time) {
	st.Atim = syscall.NsecToTimespec(atime.UnixNano())
	st.Mtim = syscall.NsecToTimespec(mtime.UnixNano())
}

// processUmask is the server's umask (Linux 4.7+ shows it in /proc/self/status; reading it with
// umask(2) would change it for every thread meanwhile), else the usual 022.
func processUmask() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(n) & fs.ModePerm
			}
		}
	}
	return 0o022
}

// isWhiteout reports whether fi is an overlay's whiteout: a character device 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0
}

// isOpaque reports whether the overlay directory at p hides the one below it (the
// user.overlay.opaque mark of an overlay mounted in a user namespace).
func isOpaque(p string) bool {
	var b [2]byte
	n, err := unix.Lgetxattr(p, "user.overlay.opaque", b[:])
	return err == nil && n == 1 && b[0] == 'y'
}
