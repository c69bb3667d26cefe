package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CallDir is one call's private scratch directory outside every root: an unguessable name under
// a base directory, created (0700, with its subdirectories) only when the call first needs it
// (most calls never do, and then cost no filesystem work at all), removed after the call. Mkdir,
// not MkdirAll, makes the root, so creation fails if anything already sits there.
type CallDir struct {
	// Path is the directory (it may not exist yet).
	Path string
	// full is Path followed by its last subdirectory ("" when built by filepath.Join): Path
	// and the subdirectories on the way to the last one are slices of it (Sub), one string
	// for all the names a call uses.
	full    string
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
	var h [16]byte
	hex.Encode(h[:], b[:])
	if !cleanAbs(base) {
		return &CallDir{Path: filepath.Join(base, prefix+string(h[:])), subdirs: subdirs}
	}
	last := ""
	if len(subdirs) > 0 {
		last = subdirs[len(subdirs)-1]
	}
	var sb strings.Builder
	sb.Grow(len(base) + 1 + len(prefix) + len(h) + 1 + len(last))
	sb.WriteString(base)
	sb.WriteByte('/')
	sb.WriteString(prefix)
	sb.Write(h[:])
	n := sb.Len()
	if last != "" {
		sb.WriteByte('/')
		sb.WriteString(last)
	}
	full := sb.String()
	return &CallDir{Path: full[:n], full: full, subdirs: subdirs}
}

// cleanAbs reports whether p is an absolute path filepath.Clean leaves as it is (every call
// names its directory from the same base: a scan instead of a Clean).
func cleanAbs(p string) bool {
	// Windows paths have volumes and two separators: Join and Clean decide those.
	if filepath.Separator != '/' || len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		// The component after this slash: not empty, ".", or "..".
		rest := p[i+1:]
		if rest == "" || rest[0] == '/' || rest == "." || rest == ".." ||
			len(rest) >= 2 && rest[0] == '.' && rest[1] == '/' || len(rest) >= 3 && rest[:3] == "../" {
			return false
		}
	}
	return true
}

// Sub is the path of a subdirectory (name clean and relative: "work", "work/tmp").
func (d *CallDir) Sub(name string) string {
	if filepath.Separator != '/' {
		return filepath.Join(d.Path, name)
	}
	// A subdirectory on the way to the last one is a prefix of full.
	if len(d.full) > len(d.Path) {
		if rest := d.full[len(d.Path):]; len(rest) > len(name) && rest[0] == '/' && rest[1:1+len(name)] == name &&
			(len(rest) == 1+len(name) || rest[1+len(name)] == '/') {
			return d.full[:len(d.Path)+1+len(name)]
		}
	}
	return d.Path + "/" + name
}

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
