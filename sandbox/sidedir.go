package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
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
	fd   int
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

// OpenSideDir opens dir, which the server itself created. Its last component must not be a
// symlink; the components above it are the server's own (the scratch base and a directory
// with an unguessable name the tool cannot reach).
func OpenSideDir(dir string) (*SideDir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &SideDir{fd: fd, path: dir}, nil
}

// Path is the directory's path, for the tool's environment (never for the server's own access).
func (d *SideDir) Path() string { return d.path }

// Close releases the descriptor.
func (d *SideDir) Close() error {
	if d == nil || d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// entry checks that name is one plain entry of the directory.
func entry(op, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') || strings.ContainsRune(name, 0) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
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
