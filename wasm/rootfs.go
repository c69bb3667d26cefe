package wasm

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// rootFS is the only filesystem a guest sees: an experimental/sys.FS mounted at "/" whose every
// operation goes through the call's sandbox.FS. Each root therefore appears at its own absolute
// path (the same paths a sandboxed script uses), directories on the way to a root are listable
// but empty of anything else, read-only roots refuse writes, and os.Root keeps `..` and
// symlinks inside their root. wazero's own WithDirMount is never used: it follows symlinks out
// of the mount.
type rootFS struct {
	experimentalsys.UnimplementedFS
	fs *sandbox.FS
}

// NewRootFS returns the guest filesystem for a sandbox FS (to mount at "/").
func NewRootFS(f *sandbox.FS) experimentalsys.FS { return &rootFS{fs: f} }

// abs maps a mount-relative guest path (wazero hands over clean, relative paths) to the
// sandbox's absolute path.
func abs(p string) string {
	if p == "" || p == "." {
		return "/"
	}
	return path.Clean("/" + p)
}

func errno(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	switch {
	case errors.Is(err, syscall.EMFILE):
		// The call's open-file limit (sandbox.ErrTooManyOpenFiles). wazero's WASI layer has no
		// EMFILE; EAGAIN is the closest it can report (the access record names the limit).
		return experimentalsys.EAGAIN
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrPermission):
		return experimentalsys.EPERM
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	}
	if e := experimentalsys.UnwrapOSError(err); e != experimentalsys.EIO || errors.Is(err, syscall.EIO) {
		return e
	}
	// os.Root reports an escape attempt with its own error: nothing outside exists.
	return experimentalsys.ENOENT
}

func osFlags(flag experimentalsys.Oflag) int {
	var f int
	switch flag & 3 {
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	default:
		f = os.O_RDONLY
	}
	if flag&experimentalsys.O_APPEND != 0 {
		f |= os.O_APPEND
	}
	if flag&experimentalsys.O_CREAT != 0 {
		f |= os.O_CREATE
	}
	if flag&experimentalsys.O_EXCL != 0 {
		f |= os.O_EXCL
	}
	if flag&experimentalsys.O_TRUNC != 0 {
		f |= os.O_TRUNC
	}
	if flag&experimentalsys.O_SYNC != 0 {
		f |= os.O_SYNC
	}
	return f
}

// OpenFile implements experimentalsys.FS.
func (r *rootFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	name := abs(p)
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		if fi, err := r.fs.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	f, err := r.fs.Open(name, osFlags(flag), perm)
	if err != nil {
		return nil, errno(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errno(err)
	}
	if flag&experimentalsys.O_DIRECTORY != 0 && !fi.IsDir() {
		f.Close()
		return nil, experimentalsys.ENOTDIR
	}
	if fi.IsDir() && flag&3 != experimentalsys.O_RDONLY {
		f.Close()
		return nil, experimentalsys.EISDIR
	}
	return &file{f: f, fs: r.fs, name: name, dir: fi.IsDir(), append: flag&experimentalsys.O_APPEND != 0}, 0
}

// Stat implements experimentalsys.FS.
func (r *rootFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.fs.Stat(abs(p))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

// Lstat implements experimentalsys.FS.
func (r *rootFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.fs.Lstat(abs(p))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

// Mkdir implements experimentalsys.FS.
func (r *rootFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	return errno(r.fs.Mkdir(abs(p), perm))
}

// Chmod implements experimentalsys.FS.
func (r *rootFS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	return errno(r.fs.Chmod(abs(p), perm))
}

// Rename implements experimentalsys.FS (within one root; across roots EXDEV).
func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	return errno(r.fs.Rename(abs(from), abs(to)))
}

// Rmdir implements experimentalsys.FS.
func (r *rootFS) Rmdir(p string) experimentalsys.Errno {
	name := abs(p)
	fi, err := r.fs.Lstat(name)
	if err != nil {
		return errno(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return errno(r.fs.Remove(name))
}

// Unlink implements experimentalsys.FS.
func (r *rootFS) Unlink(p string) experimentalsys.Errno {
	name := abs(p)
	fi, err := r.fs.Lstat(name)
	if err != nil {
		return errno(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	return errno(r.fs.Remove(name))
}

// Link implements experimentalsys.FS: hard links are refused (a hard link to a file outside
// the roots would outlive every path check), as in sandboxed scripts.
func (r *rootFS) Link(oldPath, newPath string) experimentalsys.Errno {
	r.fs.Record().Add(sandbox.Access{Op: "link", Path: abs(newPath), Allowed: false, Reason: "hard links are refused"})
	return experimentalsys.EPERM
}

// Symlink implements experimentalsys.FS: the target must resolve inside the link's root.
func (r *rootFS) Symlink(target, link string) experimentalsys.Errno {
	return errno(r.fs.Symlink(target, abs(link)))
}

// Readlink implements experimentalsys.FS.
func (r *rootFS) Readlink(p string) (string, experimentalsys.Errno) {
	s, err := r.fs.Readlink(abs(p))
	if err != nil {
		return "", errno(err)
	}
	return s, 0
}

// Utimens implements experimentalsys.FS.
func (r *rootFS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	name := abs(p)
	if atim == experimentalsys.UTIME_OMIT || mtim == experimentalsys.UTIME_OMIT {
		fi, err := r.fs.Stat(name)
		if err != nil {
			return errno(err)
		}
		st := sys.NewStat_t(fi)
		if atim == experimentalsys.UTIME_OMIT {
			atim = st.Atim
		}
		if mtim == experimentalsys.UTIME_OMIT {
			mtim = st.Mtim
		}
	}
	return errno(r.fs.Chtimes(name, time.Unix(0, atim), time.Unix(0, mtim)))
}

// file is an open sandbox file as a guest file.
type file struct {
	experimentalsys.UnimplementedFile
	f      sandbox.File
	fs     *sandbox.FS
	name   string
	dir    bool
	append bool
	// dirents is the directory listing, read once; next is the read position in it.
	dirents []experimentalsys.Dirent
	listed  bool
	next    int
}

func (f *file) Dev() (uint64, experimentalsys.Errno) {
	st, errno := f.Stat()
	return st.Dev, errno
}

func (f *file) Ino() (sys.Inode, experimentalsys.Errno) {
	st, errno := f.Stat()
	return st.Ino, errno
}

func (f *file) IsDir() (bool, experimentalsys.Errno) { return f.dir, 0 }
func (f *file) IsAppend() bool                       { return f.append }

func (f *file) SetAppend(enable bool) experimentalsys.Errno {
	// The underlying descriptor keeps its open flags; toggling append is not supported.
	if enable == f.append {
		return 0
	}
	return experimentalsys.ENOSYS
}

func (f *file) Stat() (sys.Stat_t, experimentalsys.Errno) {
	fi, err := f.f.Stat()
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (f *file) Read(buf []byte) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Read(buf)
	if err == io.EOF {
		err = nil
	}
	return n, errno(err)
}

func (f *file) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	ra, ok := f.f.(io.ReaderAt)
	if !ok {
		return 0, experimentalsys.ENOSYS
	}
	n, err := ra.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return n, errno(err)
}

// fileOffset is int64; naming it keeps `go vet` from taking Seek for io.Seeker's (wazero's
// File.Seek returns an Errno, not an error).
type fileOffset = int64

func (f *file) Seek(offset fileOffset, whence int) (int64, experimentalsys.Errno) {
	if f.dir {
		if offset != 0 || whence != io.SeekStart {
			return 0, experimentalsys.EINVAL
		}
		f.next, f.listed, f.dirents = 0, false, nil
		return 0, 0
	}
	n, err := f.f.Seek(offset, whence)
	return n, errno(err)
}

// Readdir implements experimentalsys.File: the listing goes through the sandbox, so outside
// the roots only the way to them shows.
func (f *file) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if !f.dir {
		return nil, experimentalsys.EBADF
	}
	if !f.listed {
		ents, err := f.fs.ReadDir(f.name)
		if err != nil {
			return nil, errno(err)
		}
		f.dirents = make([]experimentalsys.Dirent, 0, len(ents))
		for _, e := range ents {
			d := experimentalsys.Dirent{Name: e.Name(), Type: e.Type()}
			if info, err := e.Info(); err == nil {
				d.Ino = sys.NewStat_t(info).Ino
			}
			f.dirents = append(f.dirents, d)
		}
		f.listed = true
	}
	rest := f.dirents[f.next:]
	if n >= 0 && n < len(rest) {
		rest = rest[:n]
	}
	f.next += len(rest)
	return rest, 0
}

func (f *file) Write(buf []byte) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Write(buf)
	return n, errno(err)
}

func (f *file) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	wa, ok := f.f.(io.WriterAt)
	if !ok {
		return 0, experimentalsys.ENOSYS
	}
	n, err := wa.WriteAt(buf, off)
	return n, errno(err)
}

func (f *file) Truncate(size int64) experimentalsys.Errno {
	t, ok := f.f.(interface{ Truncate(int64) error })
	if !ok || f.dir {
		return experimentalsys.EINVAL
	}
	return errno(t.Truncate(size))
}

func (f *file) Sync() experimentalsys.Errno {
	if s, ok := f.f.(interface{ Sync() error }); ok && !f.dir {
		_ = s.Sync()
	}
	return 0
}

func (f *file) Datasync() experimentalsys.Errno { return f.Sync() }

func (f *file) Utimens(atim, mtim int64) experimentalsys.Errno {
	return (&rootFS{fs: f.fs}).Utimens(f.name, atim, mtim)
}

func (f *file) Close() experimentalsys.Errno { return errno(f.f.Close()) }
