package sandbox

import (
	"io/fs"
	"time"
)

// StatT is the part of a file's stat(2) fields the utilities show (ls -l, stat, find, du,
// test -ef), the same on every platform: the host's own stat structure differs per OS, and
// Windows has none. Virtual files (devices, shown programs, the directories on the way to a
// root) carry one as their Sys(); StatOf reads it from any FileInfo.
type StatT struct {
	Dev, Ino, Nlink uint64
	// Major and Minor are a device's numbers (ls -l, stat %t %T).
	Major, Minor uint32
	// Mode is st_mode: the file type bits and the permissions.
	Mode            uint32
	Uid, Gid        uint32
	Blocks, Blksize int64
	Atime, Ctime    time.Time
	// Owned reports whether Uid and Gid are the host's (false on Windows and for virtual files).
	Owned bool
}

// StatOf returns fi's stat fields: the host's where fi describes a host file, the virtual ones a
// virtual file carries, else what the FileInfo says (one link, the mode, the times as the
// modification time).
func StatOf(fi fs.FileInfo) StatT {
	switch s := fi.Sys().(type) {
	case *StatT:
		return s.epochTimes()
	case StatT:
		return s.epochTimes()
	}
	if st, ok := hostStat(fi); ok {
		return st
	}
	return StatT{Nlink: 1, Mode: RawMode(fi.Mode()), Atime: fi.ModTime(), Ctime: fi.ModTime(), Blksize: 4096,
		Blocks: (fi.Size() + 511) / 512}
}

// Unix file type bits of st_mode.
const (
	sIFMT   = 0o170000
	sIFSOCK = 0o140000
	sIFLNK  = 0o120000
	sIFREG  = 0o100000
	sIFBLK  = 0o060000
	sIFDIR  = 0o040000
	sIFCHR  = 0o020000
	sIFIFO  = 0o010000
)

// RawMode is m as st_mode: the type bits and the permission and set-id bits.
func RawMode(m fs.FileMode) uint32 {
	out := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		out |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		out |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		out |= 0o1000
	}
	switch {
	case m&fs.ModeDir != 0:
		out |= sIFDIR
	case m&fs.ModeSymlink != 0:
		out |= sIFLNK
	case m&fs.ModeNamedPipe != 0:
		out |= sIFIFO
	case m&fs.ModeSocket != 0:
		out |= sIFSOCK
	case m&fs.ModeCharDevice != 0:
		out |= sIFCHR
	case m&fs.ModeDevice != 0:
		out |= sIFBLK
	default:
		out |= sIFREG
	}
	return out
}

// epochTimes dates a virtual file without times at the epoch, as a zero stat structure does.
func (s StatT) epochTimes() StatT {
	if s.Atime.IsZero() {
		s.Atime = time.Unix(0, 0)
	}
	if s.Ctime.IsZero() {
		s.Ctime = time.Unix(0, 0)
	}
	return s
}
