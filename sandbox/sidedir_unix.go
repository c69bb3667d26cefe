//go:build unix

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// OpenSideDir opens dir, which the server itself created. Its last component must not be a
// symlink; the components above it are the server's own (the scratch base and a directory
// with an unguessable name the tool cannot reach).
func OpenSideDir(dir string) (*SideDir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &SideDir{sideHandle: sideHandle{fd}, path: dir}, nil
}

// sideHandle is the directory's descriptor.
type sideHandle struct{ fd int }

// Close releases the descriptor.
func (d *SideDir) Close() error {
	if d == nil || d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// OpenRegular opens name for reading when it is a regular file (not a symlink, FIFO, device or
// directory). The caller closes it and bounds what it reads.
func (d *SideDir) OpenRegular(name string) (*os.File, error) {
	if err := entry("open", name); err != nil {
		return nil, err
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if err == unix.ELOOP || err == unix.EMLINK {
			err = ErrNotRegular // a symlink
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		if err == nil {
			err = ErrNotRegular
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// Exists reports whether name is present (as anything, a symlink included), without following it.
func (d *SideDir) Exists(name string) bool {
	if entry("stat", name) != nil {
		return false
	}
	var st unix.Stat_t
	return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// Create makes name as a new empty regular file (mode 0600); whatever the tool left under that
// name is removed first (unlinking never follows a symlink), and the exclusive create refuses
// anything planted in between.
func (d *SideDir) Create(name string) error {
	if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	fd, err := d.createExcl(name)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

func (d *SideDir) createExcl(name string) (int, error) {
	if err := entry("create", name); err != nil {
		return -1, err
	}
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	return fd, nil
}

// WriteFile replaces name with data atomically: the data goes to a new file with a random name
// (created exclusively, so no planted link or file is written through) and is then renamed
// over name (rename replaces a symlink itself, never its target).
func (d *SideDir) WriteFile(name string, data []byte) error {
	if err := entry("write", name); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := ".mcpbash-" + hex.EncodeToString(b[:]) + ".tmp"
	fd, err := d.createExcl(tmp)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(d.fd, tmp, d.fd, name)
	}
	if werr != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return &fs.PathError{Op: "write", Path: name, Err: werr}
	}
	return nil
}

// Remove unlinks name (a file, a symlink itself, or an empty directory).
func (d *SideDir) Remove(name string) error {
	if err := entry("remove", name); err != nil {
		return err
	}
	err := unix.Unlinkat(d.fd, name, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		err = unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// Mkdir makes a subdirectory.
func (d *SideDir) Mkdir(name string, perm fs.FileMode) error {
	if err := entry("mkdir", name); err != nil {
		return err
	}
	if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return nil
}
