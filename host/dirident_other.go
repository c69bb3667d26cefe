//go:build !linux

package host

import "os"

// dirIdentity is what tells a directory, and its entries, changed.
type dirIdentity struct {
	valid bool
	fi    os.FileInfo
	mtime int64 // nanoseconds
}

func identityOf(path string) (dirIdentity, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return dirIdentity{}, err
	}
	return dirIdentity{valid: true, fi: fi, mtime: fi.ModTime().UnixNano()}, nil
}

// equal: os.SameFile compares device and inode (or the platform's file identity).
func (a dirIdentity) equal(b dirIdentity) bool {
	return a.valid && b.valid && os.SameFile(a.fi, b.fi) && a.mtime == b.mtime && a.fi.Size() == b.fi.Size() && a.fi.Mode() == b.fi.Mode()
}
