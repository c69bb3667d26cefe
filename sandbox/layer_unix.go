//go:build linux || darwin || freebsd || netbsd || openbsd

package sandbox

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// oNoFollow is O_NOFOLLOW (open fails on a final link).
const oNoFollow = syscall.O_NOFOLLOW

// permits answers whether the server's user may open fi as want says (AccessRead,
// AccessWrite, AccessExec), as the kernel would: a layer checks what a write to the root itself
// would have been refused.
func permits(fi fs.FileInfo, want uint32) bool {
	perm := uint32(fi.Mode().Perm())
	if os.Geteuid() == 0 {
		return want&AccessExec == 0 || fi.IsDir() || perm&0o111 != 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
	case st.Uid == uint32(os.Geteuid()):
		perm >>= 6
	case st.Gid == uint32(os.Getegid()):
		perm >>= 3
	}
	return perm&7&want == want
}

// owns reports whether the server's user may change fi's mode and times (owner or root).
func owns(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return os.Geteuid() == 0 || !ok || st.Uid == uint32(os.Geteuid())
}

// inoOf is fi's inode number (0 when unknown).
func inoOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// fileIdentity is what tells a file apart from its replacement: its status-change time, inode
// and device.
func fileIdentity(fi fs.FileInfo) (ctimeNs int64, ino, dev uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	_, ctime := statTimesOf(st)
	return ctime.UnixNano(), uint64(st.Ino), uint64(st.Dev)
}

// accessTimeOf is fi's access time (its modification time when unknown).
func accessTimeOf(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		atime, _ := statTimesOf(st)
		return atime
	}
	return fi.ModTime()
}

// layerStat is the raw stat of a layer entry: from's, with the layer's mode, size, times and
// inode; for an entry with no file of its own, the server's user owns it.
func layerStat(from fs.FileInfo, li *layerInfo) any {
	var st syscall.Stat_t
	if from != nil {
		if s, ok := from.Sys().(*syscall.Stat_t); ok {
			st = *s
		}
	} else {
		st.Uid, st.Gid = uint32(os.Geteuid()), uint32(os.Getegid())
		set(&st.Nlink, 1)
	}
	mode := uint64(li.mode.Perm())
	switch {
	case li.mode.IsDir():
		mode |= syscall.S_IFDIR
	case li.mode&fs.ModeSymlink != 0:
		mode |= syscall.S_IFLNK
	default:
		mode |= syscall.S_IFREG
	}
	if li.mode&fs.ModeSticky != 0 {
		mode |= syscall.S_ISVTX
	}
	set(&st.Mode, mode)
	st.Size = li.size
	st.Ino = li.ino
	setStatTimes(&st, li.atime, li.mtime)
	return &st
}
