package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// OpenSideDir opens dir, which the server itself created. Its last component must not be a link
// (a symbolic link or a junction); the handle is held without delete sharing, so the directory
// cannot be renamed or replaced while the call runs, and every entry is then named below it and
// opened without following a link (FILE_FLAG_OPEN_REPARSE_POINT): Windows has no openat, and
// this is its equivalent of the Unix side's descriptor.
func OpenSideDir(dir string) (*SideDir, error) {
	h, err := openNoFollow(dir, windows.FILE_READ_ATTRIBUTES, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	var info windows.ByHandleFileInformation
	err = windows.GetFileInformationByHandle(h, &info)
	if err == nil && (info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 || info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0) {
		err = ErrNotRegular
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &SideDir{sideHandle: sideHandle{h: h}, path: dir}, nil
}

// sideHandle holds the directory open.
type sideHandle struct{ h windows.Handle }

// openNoFollow opens p itself, never what a link there names, sharing read and write (but
// never delete: what is held cannot be renamed or removed meanwhile).
func openNoFollow(p string, access, disposition, flags uint32) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return windows.InvalidHandle, err
	}
	return windows.CreateFile(name, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, disposition,
		flags|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

// Close releases the handle.
func (d *SideDir) Close() error {
	if d == nil || d.h == 0 || d.h == windows.InvalidHandle {
		return nil
	}
	err := windows.CloseHandle(d.h)
	d.h = windows.InvalidHandle
	return err
}

func (d *SideDir) join(name string) string { return filepath.Join(d.path, name) }

// OpenRegular opens name for reading when it is a regular file (not a link or directory). The
// caller closes it and bounds what it reads.
func (d *SideDir) OpenRegular(name string) (*os.File, error) {
	if err := entry("open", name); err != nil {
		return nil, err
	}
	h, err := openNoFollow(d.join(name), windows.GENERIC_READ, windows.OPEN_EXISTING, 0)
	if err != nil {
		if err == windows.ERROR_ACCESS_DENIED {
			if fi, serr := os.Lstat(d.join(name)); serr == nil && fi.IsDir() {
				err = ErrNotRegular // a directory (opened without backup semantics)
			}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var info windows.ByHandleFileInformation
	err = windows.GetFileInformationByHandle(h, &info)
	if err == nil && info.FileAttributes&(windows.FILE_ATTRIBUTE_REPARSE_POINT|windows.FILE_ATTRIBUTE_DIRECTORY) != 0 {
		err = ErrNotRegular
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// Exists reports whether name is present (as anything, a link included), without following it.
func (d *SideDir) Exists(name string) bool {
	if entry("stat", name) != nil {
		return false
	}
	_, err := os.Lstat(d.join(name))
	return err == nil
}

// Create makes name as a new empty regular file; whatever the tool left under that name is
// removed first (removing a link removes the link), and the exclusive create refuses anything
// planted in between.
func (d *SideDir) Create(name string) error {
	if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := d.createExcl(name)
	if err != nil {
		return err
	}
	return f.Close()
}

func (d *SideDir) createExcl(name string) (*os.File, error) {
	if err := entry("create", name); err != nil {
		return nil, err
	}
	h, err := openNoFollow(d.join(name), windows.GENERIC_WRITE, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// WriteFile replaces name with data atomically: the data goes to a new file with a random name
// (created exclusively) and is then moved over name (replacing a link itself, never its target).
func (d *SideDir) WriteFile(name string, data []byte) error {
	if err := entry("write", name); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := ".mcpbash-" + hex.EncodeToString(b[:]) + ".tmp"
	f, err := d.createExcl(tmp)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(d.join(tmp), d.join(name))
	}
	if werr != nil {
		_ = os.Remove(d.join(tmp))
		return &fs.PathError{Op: "write", Path: name, Err: werr}
	}
	return nil
}

// Remove deletes name (a file, a link itself, or an empty directory).
func (d *SideDir) Remove(name string) error {
	if err := entry("remove", name); err != nil {
		return err
	}
	if err := os.Remove(d.join(name)); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: errors.Unwrap(err)}
	}
	return nil
}

// Mkdir makes a subdirectory.
func (d *SideDir) Mkdir(name string, perm fs.FileMode) error {
	if err := entry("mkdir", name); err != nil {
		return err
	}
	if err := os.Mkdir(d.join(name), perm); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: errors.Unwrap(err)}
	}
	return nil
}
