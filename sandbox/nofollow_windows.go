package sandbox

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// OpenNoFollow opens the host file p for reading, never through a link in its last component:
// the link itself is opened (FILE_FLAG_OPEN_REPARSE_POINT) and refused, as Unix's O_NOFOLLOW
// refuses with ELOOP. Windows has no FIFOs in the file system to block on.
func OpenNoFollow(p string) (*os.File, error) {
	h, err := openNoFollow(p, windows.GENERIC_READ, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: p, Err: windows.ERROR_CANT_RESOLVE_FILENAME}
	}
	return os.NewFile(uintptr(h), p), nil
}
