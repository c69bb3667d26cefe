package sandbox

import (
	"io/fs"
	"syscall"
	"time"
)

// hostStat reads what Windows keeps: the times (the creation time stands for the status-change
// time, which NTFS does not expose here). Windows has no inode numbers or owners in a FileInfo;
// links and owners are the defaults StatOf gives.
func hostStat(fi fs.FileInfo) (StatT, bool) {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return StatT{}, false
	}
	return StatT{Nlink: 1, Mode: RawMode(fi.Mode()), Blksize: 4096, Blocks: (fi.Size() + 511) / 512,
		Atime: time.Unix(0, d.LastAccessTime.Nanoseconds()), Ctime: time.Unix(0, d.CreationTime.Nanoseconds())}, true
}
