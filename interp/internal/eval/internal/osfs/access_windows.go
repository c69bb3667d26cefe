package osfs

import (
	"io/fs"
	"os"
)

// access answers from the mode bits Go derives on Windows (read-only attribute, executable
// extensions): Windows has no access(2).
func access(name string, mode uint32) error {
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	perm := uint32(fi.Mode().Perm())
	for bit, want := range map[uint32]uint32{4: 0o444, 2: 0o222, 1: 0o111} {
		if mode&bit != 0 && perm&want == 0 {
			return &fs.PathError{Op: "access", Path: name, Err: fs.ErrPermission}
		}
	}
	return nil
}

// setUmask: Windows has no umask; new files take their ACL from their directory.
func setUmask(int) int { return 0o022 }
