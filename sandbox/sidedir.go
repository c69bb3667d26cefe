package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// SideDir is a directory the server created for one call and shares with the tool: the side
// files of the file contract (error, resources, progress and log streams, elicitation and
// sampling requests and answers, the cancel file) live there, and the tool may put anything
// there, symlinks and FIFOs included. The server therefore never reaches an entry by path:
// it holds a descriptor of the directory, opened when the server made it, and names single
// entries relative to it, never following a symlink (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), never
// blocking on a FIFO (O_NONBLOCK), reading regular files only and never more than a cap, and
// writing only through files it creates exclusively and then renames into place.
type SideDir struct {
	sideHandle
	path string
}

// Caps on what the server reads from a side file: the error, resources, elicitation and
// sampling files are small JSON documents; the progress and log streams are forwarded line by
// line under the notification rate limit, up to SideStreamMax bytes each per call.
const (
	SideFileMax   = 1 << 20
	SideStreamMax = 8 << 20
)

// ErrSideFileTooLarge is returned when a side file is larger than the caller's cap.
var ErrSideFileTooLarge = errors.New("side file exceeds its size cap")

// ErrNotRegular is returned for a side file that is a symlink, FIFO, device or directory.
var ErrNotRegular = errors.New("side file is not a regular file")

// Path is the directory's path, for the tool's environment (never for the server's own access).
func (d *SideDir) Path() string { return d.path }

// entry checks that name is one plain entry of the directory.
func entry(op, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\:\x00") {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// ReadFile reads a regular file of at most max bytes. A missing file fails with an error that
// matches fs.ErrNotExist; a larger file fails with ErrSideFileTooLarge and nothing of it is
// returned.
func (d *SideDir) ReadFile(name string, max int64) ([]byte, error) {
	f, err := d.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%d bytes)", ErrSideFileTooLarge, max)}
	}
	return data, nil
}
