package sandbox

import (
	"io/fs"
	"os"
	"sort"
	"time"
)

// tree is one root's namespace as FS uses it, every name relative to the root: the host
// directory itself (hostTree, an os.Root), or, for a call in review mode, the copy-on-write
// layer over it (overlay, layer.go), which holds the call's writes until a person commits them.
// FS checks policy (roots, modes, protected paths, links) the same way over either.
type tree interface {
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	// ReadDir lists a directory, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	Mkdir(name string, perm fs.FileMode) error
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	RemoveAll(name string) error
	Rename(oldname, newname string) error
	Symlink(target, name string) error
	Chmod(name string, mode fs.FileMode) error
	Chtimes(name string, atime, mtime time.Time) error
}

// hostTree is a root opened on the host: writes land at once.
type hostTree struct{ *os.Root }

func (h hostTree) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := h.Root.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return f, nil
}

func (h hostTree) ReadDir(name string) ([]fs.DirEntry, error) {
	// O_NONBLOCK and O_DIRECTORY: listing a FIFO must not wait for a writer (FS.Open).
	d, err := h.Root.OpenFile(name, os.O_RDONLY|oNonblock|oDirectory, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}
