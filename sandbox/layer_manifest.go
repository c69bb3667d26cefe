package sandbox

import (
	"io/fs"
	"os"
	"path"
	"sort"
	"time"
)

// LayerManifest is what a review-mode call's layer holds when the call ends: for each
// read-write root, the entries the call changed and what the root held where the layer depends
// on it. The host turns it into a change set (host/internal/changes); it travels from a worker
// process in the call's outcome.
type LayerManifest struct {
	// Dir is the layer's directory: Entry.Data names files in it.
	Dir   string      `json:"dir"`
	Roots []LayerRoot `json:"roots"`
}

// Empty reports whether the call changed nothing.
func (m *LayerManifest) Empty() bool {
	if m == nil {
		return true
	}
	for _, r := range m.Roots {
		if len(r.Entries) > 0 {
			return false
		}
	}
	return true
}

// LayerRoot is one root's part of a manifest.
type LayerRoot struct {
	// Path is the root (absolute, physical); Name its name.
	Path string `json:"path"`
	Name string `json:"name,omitempty"`
	// Protected are the read-only paths nested in it (relative), which a commit never writes.
	Protected []string `json:"protected,omitempty"`
	// Entries are the changed entries, parents before children.
	Entries []Entry `json:"entries"`
	// Base is what the root held at every path the layer depends on, when the call first
	// touched it.
	Base []Base `json:"base"`
}

// Entry is one changed entry of a root (its path is relative to the root).
type Entry struct {
	Path string `json:"path"`
	// Kind is file, dir, symlink or gone (deleted).
	Kind string      `json:"kind"`
	Mode fs.FileMode `json:"mode,omitempty"`
	// Data is a file's new content (a file of LayerManifest.Dir); when empty the file's content
	// is the root's file Origin (a rename, or a change of mode or times only, when Origin is
	// Path).
	Data   string `json:"data,omitempty"`
	Origin string `json:"origin,omitempty"`
	// From is the root's path a file was renamed from (with or without new content).
	From   string `json:"from,omitempty"`
	Target string `json:"target,omitempty"`
	// Opaque marks a directory whose entries are all the layer's: nothing of the root shows
	// below it (a new, moved or replaced directory).
	Opaque bool `json:"opaque,omitempty"`
	// Own marks a directory of the root whose mode or times changed.
	Own bool `json:"own,omitempty"`
	// Times are set when the call set them (touch -d, chtimes).
	Atime *time.Time `json:"atime,omitempty"`
	Mtime *time.Time `json:"mtime,omitempty"`
}

// Base is what a root held at one path when the layer first depended on it.
type Base struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// Kind is file, dir, symlink or other.
	Kind    string      `json:"kind,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	Size    int64       `json:"size,omitempty"`
	MtimeNs int64       `json:"mtimeNs,omitempty"`
	// CtimeNs, Ino and Dev identify the file where the platform has them (0 elsewhere).
	CtimeNs int64  `json:"ctimeNs,omitempty"`
	Ino     uint64 `json:"ino,omitempty"`
	Dev     uint64 `json:"dev,omitempty"`
	// SHA256 is the content the call read (files it copied into the layer).
	SHA256 string `json:"sha256,omitempty"`
	Target string `json:"target,omitempty"`
}

// fill records fi.
func (b *Base) fill(fi fs.FileInfo) {
	b.Exists = true
	b.Kind = KindOf(fi)
	b.Mode = fi.Mode() & modeBits
	b.MtimeNs = fi.ModTime().UnixNano()
	if b.Kind == "file" {
		b.Size = fi.Size()
	}
	b.CtimeNs, b.Ino, b.Dev = fileIdentity(fi)
}

// BaseOf describes fi as a Base (Path, SHA256 and Target are the caller's).
func BaseOf(fi fs.FileInfo) Base {
	var b Base
	b.fill(fi)
	return b
}

// Same reports whether the root still holds what b recorded (the content digest and a link's
// target are the caller's to compare; a zero CtimeNs is not compared).
func (b Base) Same(now Base) bool {
	if b.Exists != now.Exists {
		return false
	}
	if !b.Exists {
		return true
	}
	if b.Kind != now.Kind || b.Mode != now.Mode {
		return false
	}
	if b.Kind == "dir" {
		// A directory's own times and size change with every entry made or removed in it by
		// anyone; what matters of it is checked entry by entry.
		return b.Ino == now.Ino && b.Dev == now.Dev
	}
	return b.Size == now.Size && b.MtimeNs == now.MtimeNs && (b.CtimeNs == 0 || b.CtimeNs == now.CtimeNs) && b.Ino == now.Ino && b.Dev == now.Dev
}

// KindOf names fi's type as Entry and Base do.
func KindOf(fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// Review returns the manifest of a review-mode call's layer (nil in direct mode). Call it once
// the call's script has stopped.
func (f *FS) Review() *LayerManifest {
	if f.layer == nil {
		return nil
	}
	return f.layer.manifest()
}

func (l *Layer) manifest() *LayerManifest {
	l.mu.Lock()
	overlays := append([]*overlay(nil), l.overlays...)
	l.mu.Unlock()
	m := &LayerManifest{Dir: l.dir, Roots: []LayerRoot{}}
	for _, o := range overlays {
		o.mu.Lock()
		r := LayerRoot{Path: o.root.Path, Name: o.root.Name, Protected: o.nested, Entries: []Entry{}, Base: []Base{}}
		o.entries(".", o.top, &r.Entries)
		for _, b := range o.base {
			r.Base = append(r.Base, *b)
		}
		o.mu.Unlock()
		sort.Slice(r.Base, func(i, j int) bool { return r.Base[i].Path < r.Base[j].Path })
		if len(r.Entries) > 0 || len(r.Base) > 0 {
			m.Roots = append(m.Roots, r)
		}
	}
	sort.Slice(m.Roots, func(i, j int) bool { return m.Roots[i].Path < m.Roots[j].Path })
	return m
}

// entries lists n's subtree below p, parents first, names sorted.
func (o *overlay) entries(p string, n *node, out *[]Entry) {
	names := make([]string, 0, len(n.kids))
	for k := range n.kids {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		kn := n.kids[k]
		kp := path.Join(p, k)
		e := Entry{Path: kp, Mode: kn.mode}
		switch kn.kind {
		case nGone:
			e.Kind, e.Mode = "gone", 0
		case nFile:
			e.Kind, e.Data, e.Origin, e.From = "file", kn.data, kn.origin, kn.from
		case nLink:
			e.Kind, e.Target, e.Mode = "symlink", kn.target, 0
		case nDir:
			e.Kind, e.Opaque, e.Own = "dir", kn.opaque, kn.own
		}
		if kn.timesSet {
			at, mt := kn.atime, kn.mtime
			e.Atime, e.Mtime = &at, &mt
		}
		if kn.kind != nDir || kn.opaque || kn.own {
			*out = append(*out, e)
		}
		if kn.kind == nDir {
			o.entries(kp, kn, out)
		}
	}
}

// OpenRoot opens a root by its physical path, refusing one that now leads through a symlink
// (T-FS-12): what a commit of review mode writes through.
func OpenRoot(p string) (*os.Root, error) { return openRootAt(p) }

// Protects reports whether rel (relative to a root) is, or is inside, one of the root's nested
// protected paths (LayerRoot.Protected).
func Protects(nested []string, rel string) bool {
	for _, n := range nested {
		if dir, ok := hiddenPattern(n); ok {
			if isHiddenIn(rel, dir) {
				return true
			}
			continue
		}
		if isUnder(rel, n) {
			return true
		}
	}
	return false
}
