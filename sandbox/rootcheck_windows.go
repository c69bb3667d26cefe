package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// openRootAt opens the root directory p and makes sure it is the directory physically at p, as
// on Unix (rootcheck_unix.go): os.OpenRoot follows reparse points (symbolic links, junctions)
// on the way, so a component replaced by one since the root was vetted would make the root
// whatever it names.
func openRootAt(p string) (*os.Root, error) {
	r, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	if err := physicallyAt(r, p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// physicallyAt walks p from its volume, opening each component itself (never what a reparse
// point names) and holding it open without delete sharing, so that no component can be renamed
// or replaced until the walk ends; the directory found must be the one r holds.
func physicallyAt(r *os.Root, p string) error {
	moved := &fs.PathError{Op: "openat", Path: p, Err: &refused{"the root " + p + " was replaced by a link since it was given"}}
	found, err := physicalDir(p)
	if err == errLinkOnTheWay {
		return moved
	}
	if err != nil {
		return &fs.PathError{Op: "openat", Path: p, Err: err}
	}
	fi, err := r.Stat(".")
	if err != nil {
		return err
	}
	if !os.SameFile(fi, found) {
		return moved
	}
	return nil
}

var errLinkOnTheWay = &refused{"a component is a link"}

// physicalDir returns the FileInfo of the directory physically at p (from its handle).
func physicalDir(p string) (fs.FileInfo, error) {
	p = filepath.Clean(p)
	vol := filepath.VolumeName(p)
	if vol == "" {
		return nil, &fs.PathError{Op: "openat", Path: p, Err: fs.ErrInvalid}
	}
	var held []windows.Handle
	defer func() {
		for _, h := range held {
			windows.CloseHandle(h)
		}
	}()
	cur := vol + `\`
	parts := strings.Split(strings.Trim(p[len(vol):], `\`), `\`)
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			if parts[i] == "" {
				continue
			}
			cur = filepath.Join(cur, parts[i])
		}
		name, err := windows.UTF16PtrFromString(cur)
		if err != nil {
			return nil, err
		}
		// FILE_FLAG_OPEN_REPARSE_POINT opens a link itself; sharing read and write but not
		// delete keeps the component from being renamed or removed while it is held.
		h, err := windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE,
			nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
		if err != nil {
			return nil, err
		}
		held = append(held, h)
		var info windows.ByHandleFileInformation
		if err := windows.GetFileInformationByHandle(h, &info); err != nil {
			return nil, err
		}
		if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 || info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
			return nil, errLinkOnTheWay
		}
	}
	// The last handle is the directory: stat it through a duplicate os.File takes ownership of.
	var dup windows.Handle
	proc := windows.CurrentProcess()
	if err := windows.DuplicateHandle(proc, held[len(held)-1], proc, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), cur)
	defer f.Close()
	return f.Stat()
}
