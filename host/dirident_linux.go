package host

import (
	"os"
	"syscall"
)

// dirIdentity is what tells a directory, and its entries, changed: device and inode, size,
// mode and modification time.
type dirIdentity struct {
	valid      bool
	dev, ino   uint64
	size       int64
	mode       uint32
	mtime      int64 // nanoseconds
	ctimeNsecs int64
}

// identityOf stats path (following links) without the allocations of os.Stat.
func identityOf(path string) (dirIdentity, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return dirIdentity{}, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		break
	}
	return dirIdentity{valid: true, dev: st.Dev, ino: st.Ino, size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctimeNsecs: st.Ctim.Nano()}, nil
}

func (a dirIdentity) equal(b dirIdentity) bool { return a.valid && a == b }
