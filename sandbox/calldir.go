package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
)

// CallDir is one call's private scratch directory outside every root: an unguessable name under
// a base directory, created (0700, with its subdirectories) only when the call first needs it
// (most calls never do, and then cost no filesystem work at all), removed after the call. Mkdir,
// not MkdirAll, makes the root, so creation fails if anything already sits there.
type CallDir struct {
	// Path is the directory (it may not exist yet).
	Path    string
	subdirs []string

	once    sync.Once
	err     error
	created bool
}

// NewCallDir names a call directory prefix+<random> under base; subdirs (relative, parents
// first) are made with it.
func NewCallDir(base, prefix string, subdirs ...string) *CallDir {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &CallDir{Path: filepath.Join(base, prefix+hex.EncodeToString(b[:])), subdirs: subdirs}
}

// Sub is the path of a subdirectory.
func (d *CallDir) Sub(name string) string { return filepath.Join(d.Path, name) }

// Scratch is the FS scratch root at sub ("" for the directory itself), created on first use.
func (d *CallDir) Scratch(sub string) Scratch { return Scratch{Path: d.Sub(sub), Create: d.Ensure} }

// Ensure creates the directory tree once.
func (d *CallDir) Ensure() error {
	d.once.Do(func() {
		if d.err = os.Mkdir(d.Path, 0o700); d.err != nil {
			return
		}
		d.created = true
		for _, s := range d.subdirs {
			if d.err = os.Mkdir(d.Sub(s), 0o700); d.err != nil {
				return
			}
		}
	})
	return d.err
}

// Seal stops the tree from being created from now on and reports whether it was. Background
// work of the call may still be running (and creating it) while the engine reads the call's
// files; the once orders their creation before the read.
func (d *CallDir) Seal() bool {
	d.once.Do(func() {})
	return d.created
}

// Remove seals the directory and deletes it if it was ever created.
func (d *CallDir) Remove() {
	if d.Seal() {
		_ = os.RemoveAll(d.Path)
	}
}
