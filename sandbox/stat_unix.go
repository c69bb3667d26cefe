//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// hostStat reads the host's stat structure (statTimes differs per OS).
func hostStat(fi fs.FileInfo) (StatT, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return StatT{}, false
	}
	atime, ctime := statTimes(st)
	return StatT{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Nlink: uint64(st.Nlink),
		Major: unix.Major(uint64(st.Rdev)), Minor: unix.Minor(uint64(st.Rdev)),
		Mode: uint32(st.Mode), Uid: st.Uid, Gid: st.Gid, Blocks: int64(st.Blocks), Blksize: int64(st.Blksize),
		Atime: atime, Ctime: ctime, Owned: true}, true
}

// set stores v in a stat field, whose type differs per OS.
func set[T ~int16 | ~uint16 | ~int32 | ~uint32 | ~uint64](f *T, v uint64) { *f = T(v) }
