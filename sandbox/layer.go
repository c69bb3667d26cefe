package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Review mode: a call's writes to its read-write roots land in a copy-on-write layer (one
// overlay per root) instead of the roots, so that a person can see them as a change set and
// commit or discard them after the call (host/internal/changes). The call itself sees its own
// writes: every operation of FS resolves names in the merged view (the layer's nodes over the
// root), so reads, listings, renames, deletes, permissions and links behave as if the writes had
// landed. Nothing else sees them: the root is only ever read.
//
// The layer keeps a tree of nodes for what the call changed: a file's new content lives in a
// data file of the layer's own directory (private to the server, outside every root); a file
// that was only renamed or had its mode changed keeps pointing at its content in the root
// (origin); a deleted entry is a "gone" node; a new directory, or a directory moved or replaced,
// is opaque (nothing of the root shows below it); other directories are the way to deeper nodes.
// For every entry of the root the layer depends on, it records at first touch what was there
// (base), so a commit can tell whether the root changed since, and stop before writing.

// Layer is a review-mode call's copy-on-write layer over all its read-write roots.
type Layer struct {
	dir string

	once sync.Once
	root *os.Root
	err  error

	mu       sync.Mutex
	seq      int
	ino      uint64
	overlays []*overlay
	budget   *writeBudget
	umask    fs.FileMode
}

// newLayer makes the layer of a call whose data files go in dir (made by the caller, private to
// the server; opened on the first write).
func newLayer(dir string, budget *writeBudget) *Layer {
	return &Layer{dir: dir, budget: budget, umask: processUmask()}
}

func (l *Layer) dataRoot() (*os.Root, error) {
	l.once.Do(func() { l.root, l.err = os.OpenRoot(l.dir) })
	return l.root, l.err
}

// over makes the overlay of one root (called once per root, when it is first opened).
func (l *Layer) over(r Root, lower *os.Root, nested []string) tree {
	o := &overlay{l: l, root: r, lower: lower, nested: nested, top: &node{kind: nDir, kids: map[string]*node{}},
		base: map[string]*Base{}}
	l.mu.Lock()
	l.overlays = append(l.overlays, o)
	l.mu.Unlock()
	return o
}

// newData creates an empty data file and returns its name.
func (l *Layer) newData() (string, *os.File, error) {
	r, err := l.dataRoot()
	if err != nil {
		return "", nil, err
	}
	l.mu.Lock()
	l.seq++
	name := "f" + strconv.Itoa(l.seq)
	l.mu.Unlock()
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, err
	}
	return name, f, nil
}

// nextIno numbers nodes that have no file of their own (directories and links the call made),
// so that `test -ef` and the like tell them apart.
func (l *Layer) nextIno() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ino++
	return 1<<62 + l.ino
}

func (l *Layer) close() {
	l.once.Do(func() {})
	if l.root != nil {
		l.root.Close()
	}
}

type nodeKind uint8

const (
	nDir nodeKind = iota
	nFile
	nLink
	nGone
)

// node is one entry the call changed (or a directory on the way to one).
type node struct {
	kind nodeKind
	// kids are a directory's entries the layer knows of; opaque hides the root's below it.
	kids   map[string]*node
	opaque bool
	// own marks a directory of the root whose own metadata (mode, times) the call changed.
	own  bool
	mode fs.FileMode // permission bits and sticky
	// data is a file's content in the layer's directory; "" when it still has origin's, the
	// root's file it was renamed from (or itself, for a change of mode or times only).
	data, origin string
	// from is the root's path the file was renamed from (shown in the change set), kept when
	// its content is copied into the layer.
	from   string
	target string // a link's
	// times are explicit (chtimes) when set; a new directory's or link's creation time otherwise.
	timesSet     bool
	atime, mtime time.Time
	ino          uint64
}

// errEscapesRoot is os.Root's refusal of a path that leaves the root (reasonOf knows its text).
var errEscapesRoot = errors.New("path escapes from parent")

// overlay is the layer over one root. Every method takes mu: the call's background jobs share it.
type overlay struct {
	l      *Layer
	root   Root
	lower  *os.Root
	nested []string

	mu   sync.Mutex
	top  *node
	base map[string]*Base
}

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// split is a relative name's components with "" and "." dropped.
func split(name string) []string {
	var out []string
	for _, c := range strings.Split(name, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func joinComps(c []string) string {
	if len(c) == 0 {
		return "."
	}
	return strings.Join(c, "/")
}

// walk resolves name in the merged view as os.Root would, following links in every component
// and in the last one when follow is set (a name ending in "/" is always followed), and returns
// the entry's path with no link on the way. A missing last component is returned as it is (the
// caller may create it); with mkdirs, missing components are created as directories.
func (o *overlay) walk(name string, follow, mkdirs bool, perm fs.FileMode) (string, error) {
	if strings.HasSuffix(name, "/") {
		follow = true
	}
	var out []string
	rest := split(name)
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == ".." {
			if len(out) == 0 {
				return "", errEscapesRoot
			}
			out = out[:len(out)-1]
			continue
		}
		last := len(rest) == 0
		cand := joinComps(append(out[:len(out):len(out)], c))
		if last && !follow && !mkdirs {
			out = append(out, c)
			break
		}
		e, err := o.lookup(cand)
		if errors.Is(err, fs.ErrNotExist) {
			if mkdirs {
				if err := o.mkdir(cand, perm); err != nil {
					return "", err
				}
				out = append(out, c)
				continue
			}
			if last {
				out = append(out, c)
				break
			}
		}
		if err != nil {
			return "", err
		}
		if e.kind() == nLink {
			if hops++; hops > maxLinkHops {
				return "", syscall.ELOOP
			}
			t, err := o.readlink(cand, e)
			if err != nil {
				return "", err
			}
			if path.IsAbs(t) {
				return "", errEscapesRoot
			}
			rest = append(strings.Split(t, "/"), rest...)
			continue
		}
		if (!last || mkdirs) && e.kind() != nDir {
			return "", syscall.ENOTDIR
		}
		out = append(out, c)
	}
	return joinComps(out), nil
}

// lentry is what a name holds in the merged view: a node of the layer, or the root's entry.
type lentry struct {
	n  *node
	fi fs.FileInfo // the root's lentry, when no node stands for it
}

func (e lentry) kind() nodeKind {
	if e.n != nil {
		return e.n.kind
	}
	switch {
	case e.fi.IsDir():
		return nDir
	case e.fi.Mode()&fs.ModeSymlink != 0:
		return nLink
	}
	return nFile
}

// lookup finds the entry at p (a path walk returned).
func (o *overlay) lookup(p string) (lentry, error) {
	if p == "." {
		return lentry{n: o.top}, nil
	}
	comps := strings.Split(p, "/")
	cur, shows := o.top, true
	for i, c := range comps {
		var k *node
		if cur != nil {
			k = cur.kids[c]
		}
		if k == nil {
			cur = nil
			continue
		}
		if k.kind == nGone {
			return lentry{}, fs.ErrNotExist
		}
		if i == len(comps)-1 {
			return lentry{n: k}, nil
		}
		if k.kind != nDir {
			return lentry{}, syscall.ENOTDIR
		}
		shows = shows && !k.opaque
		cur = k
	}
	if !shows {
		return lentry{}, fs.ErrNotExist
	}
	fi, err := o.lower.Lstat(p)
	if err != nil {
		return lentry{}, unwrap(err)
	}
	return lentry{fi: fi}, nil
}

// lowerShows reports whether the root's entry at p (if any) shows through the layer's nodes
// above it.
func (o *overlay) lowerShows(p string) bool {
	cur := o.top
	comps := strings.Split(p, "/")
	for _, c := range comps[:len(comps)-1] {
		k := cur.kids[c]
		if k == nil {
			return true
		}
		if k.kind != nDir || k.opaque {
			return false
		}
		cur = k
	}
	return true
}

// lowerAt returns the root's entry at p when it shows through the layer.
func (o *overlay) lowerAt(p string) (fs.FileInfo, bool) {
	if !o.lowerShows(p) {
		return nil, false
	}
	fi, err := o.lower.Lstat(p)
	return fi, err == nil
}

// note records, once, what the root holds at p: the base a commit checks it against.
func (o *overlay) note(p string) *Base {
	if b, ok := o.base[p]; ok {
		return b
	}
	b := &Base{Path: p}
	if fi, ok := o.lowerAt(p); ok {
		b.fill(fi)
		if b.Kind == "symlink" {
			b.Target, _ = o.lower.Readlink(p)
		}
	}
	o.base[p] = b
	return b
}

// dirNode returns the directory node at p, making the nodes on the way (p is a directory in
// the merged view).
func (o *overlay) dirNode(p string) *node {
	cur := o.top
	for _, c := range split(p) {
		k := cur.kids[c]
		if k == nil {
			k = &node{kind: nDir, kids: map[string]*node{}}
			cur.kids[c] = k
		}
		cur = k
	}
	return cur
}

// set puts n at p.
func (o *overlay) set(p string, n *node) {
	o.dirNode(path.Dir(p)).kids[path.Base(p)] = n
}

// drop removes the entry at p from the merged view: a gone node hides the root's, else the
// node is removed.
func (o *overlay) drop(p string) {
	if _, ok := o.lowerAt(p); ok {
		o.set(p, &node{kind: nGone})
		return
	}
	parent := o.dirNode(path.Dir(p))
	delete(parent.kids, path.Base(p))
}

// parentDir checks that p's directory exists in the merged view and may be written.
func (o *overlay) parentDir(p string) error {
	dir := path.Dir(p)
	e, err := o.lookup(dir)
	if err != nil {
		return err
	}
	if e.kind() != nDir {
		return syscall.ENOTDIR
	}
	fi, err := o.info(dir, e)
	if err != nil {
		return err
	}
	if !permits(fi, AccessWrite|AccessExec) {
		return fs.ErrPermission
	}
	return nil
}

// mkdir creates a directory at p (p's parent exists; mu held).
func (o *overlay) mkdir(p string, perm fs.FileMode) error {
	if err := o.parentDir(p); err != nil {
		return err
	}
	o.note(p)
	o.set(p, &node{kind: nDir, kids: map[string]*node{}, opaque: true, mode: perm &^ o.l.umask & modeBits,
		mtime: time.Now(), atime: time.Now(), ino: o.l.nextIno()})
	return nil
}

// modeBits are the mode bits a node keeps.
const modeBits = fs.ModePerm | fs.ModeSticky

// OpenFile opens a file of the merged view: reads of files the call never wrote go to the root,
// the first write of one copies it into the layer.
func (o *overlay) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	var f File
	err := o.locked("open", name, func() (err error) {
		f, err = o.open(name, flag, perm)
		return err
	})
	return f, err
}

func (o *overlay) open(name string, flag int, perm fs.FileMode) (File, error) {
	write := flag&writeFlags != 0
	excl := flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0
	p, err := o.walk(name, flag&oNoFollow == 0 && !excl, false, 0)
	if err != nil {
		return nil, err
	}
	e, err := o.lookup(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if flag&os.O_CREATE == 0 {
			return nil, fs.ErrNotExist
		}
		if err := o.parentDir(p); err != nil {
			return nil, err
		}
		o.note(p)
		data, f, err := o.l.newData()
		if err != nil {
			return nil, err
		}
		f.Close()
		n := &node{kind: nFile, data: data, mode: perm &^ o.l.umask & modeBits}
		o.set(p, n)
		return o.openData(p, n, flag)
	case err != nil:
		return nil, err
	case excl:
		return nil, fs.ErrExist
	}
	fi, err := o.info(p, e)
	if err != nil {
		return nil, err
	}
	switch e.kind() {
	case nDir:
		if write {
			return nil, syscall.EISDIR
		}
		return &layerDir{o: o, p: p}, nil
	case nLink:
		return nil, syscall.ELOOP // O_NOFOLLOW on a link
	}
	if !fi.Mode().IsRegular() {
		return nil, errSpecial
	}
	want := uint32(0)
	if flag&(os.O_WRONLY|os.O_RDWR) != os.O_WRONLY {
		want |= AccessRead
	}
	if write {
		want |= AccessWrite
	}
	if !permits(fi, want) {
		return nil, fs.ErrPermission
	}
	if !write {
		if e.n == nil {
			return hostTree{o.lower}.OpenFile(p, flag, 0)
		}
		if e.n.data == "" {
			f, err := o.lower.OpenFile(e.n.origin, flag, 0)
			if err != nil {
				return nil, err
			}
			return &layerFile{File: f, o: o, n: e.n, name: p}, nil
		}
		return o.openData(p, e.n, flag)
	}
	n, err := o.copyUp(p, e, flag&os.O_TRUNC != 0)
	if err != nil {
		return nil, err
	}
	return o.openData(p, n, flag)
}

// openData opens n's data file with flag (less creation, which already happened).
func (o *overlay) openData(p string, n *node, flag int) (File, error) {
	r, err := o.l.dataRoot()
	if err != nil {
		return nil, err
	}
	f, err := r.OpenFile(n.data, flag&^(os.O_CREATE|os.O_EXCL|oNoFollow), 0)
	if err != nil {
		return nil, err
	}
	return &layerFile{File: f, o: o, n: n, name: p}, nil
}

// copyUp gives the file at p its own data file in the layer, with its current content unless
// trunc. The copied bytes count against the call's write budget: the layer holds them.
func (o *overlay) copyUp(p string, e lentry, trunc bool) (*node, error) {
	if e.n != nil && e.n.data != "" {
		return e.n, nil
	}
	src := p
	var mode fs.FileMode
	if e.n != nil {
		src, mode = e.n.origin, e.n.mode
	} else {
		o.note(p)
		mode = e.fi.Mode() & modeBits
	}
	data, f, err := o.l.newData()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !trunc {
		if err := o.copyFrom(src, f); err != nil {
			if r, rerr := o.l.dataRoot(); rerr == nil {
				r.Remove(data)
			}
			return nil, err
		}
	}
	n := e.n
	if n == nil {
		n = &node{kind: nFile, mode: mode}
		o.set(p, n)
	}
	n.data, n.origin = data, ""
	return n, nil
}

// copyFrom copies the root's file src into w, charging the write budget, and records the
// content's digest in src's base (what the call read is what a commit checks for).
func (o *overlay) copyFrom(src string, w io.Writer) error {
	in, err := o.lower.OpenFile(src, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errSpecial
	}
	if err := o.l.budget.take(path.Join(o.root.Path, src), int(fi.Size())); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), in); err != nil {
		return err
	}
	if b := o.base[src]; b != nil && b.Kind == "file" && b.SHA256 == "" {
		b.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return nil
}

// Stat follows a final link.
func (o *overlay) Stat(name string) (fs.FileInfo, error) { return o.stat("stat", name, true) }

// Lstat does not follow a final link.
func (o *overlay) Lstat(name string) (fs.FileInfo, error) { return o.stat("lstat", name, false) }

func (o *overlay) stat(op, name string, follow bool) (fs.FileInfo, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.walk(name, follow, false, 0)
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	e, err := o.lookup(p)
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	fi, err := o.info(p, e)
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	return fi, nil
}

// info describes the entry at p.
func (o *overlay) info(p string, e lentry) (fs.FileInfo, error) {
	if e.n == nil {
		return e.fi, nil
	}
	n := e.n
	li := &layerInfo{name: path.Base(p), mode: n.mode, mtime: n.mtime, atime: n.atime, ino: n.ino}
	if p == "." {
		li.name = "."
	}
	var from fs.FileInfo
	switch n.kind {
	case nFile:
		var err error
		if n.data != "" {
			r, rerr := o.l.dataRoot()
			if rerr != nil {
				return nil, rerr
			}
			from, err = r.Stat(n.data)
		} else {
			from, err = o.lower.Lstat(n.origin)
		}
		if err != nil {
			return nil, unwrap(err)
		}
	case nLink:
		li.mode, li.size = fs.ModeSymlink|fs.ModePerm, int64(len(n.target))
		return li.finish(nil, true), nil
	case nDir:
		if n.opaque {
			li.mode |= fs.ModeDir
			li.size = 4096
			return li.finish(nil, true), nil
		}
		fi, err := o.lower.Lstat(p)
		if err != nil {
			return nil, unwrap(err)
		}
		if !n.own {
			return fi, nil
		}
		li.mode |= fs.ModeDir
		from = fi
	}
	if n.kind == nFile {
		li.mode &^= fs.ModeType
	}
	li.size = from.Size()
	return li.finish(from, n.timesSet), nil
}

// Readlink reads a link of the merged view.
func (o *overlay) Readlink(name string) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.walk(name, false, false, 0)
	if err == nil {
		var e lentry
		if e, err = o.lookup(p); err == nil {
			var t string
			if t, err = o.readlink(p, e); err == nil {
				return t, nil
			}
		}
	}
	return "", pathErr("readlink", name, err)
}

func (o *overlay) readlink(p string, e lentry) (string, error) {
	switch {
	case e.kind() != nLink:
		return "", syscall.EINVAL
	case e.n != nil:
		return e.n.target, nil
	}
	return o.lower.Readlink(p)
}

// ReadDir lists a directory of the merged view, sorted.
func (o *overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	var ents []fs.DirEntry
	err := o.locked("readdirent", name, func() (err error) {
		ents, err = o.readDir(name)
		return err
	})
	return ents, err
}

func (o *overlay) readDir(name string) ([]fs.DirEntry, error) {
	p, err := o.walk(name, true, false, 0)
	if err != nil {
		return nil, err
	}
	e, err := o.lookup(p)
	if err != nil {
		return nil, err
	}
	if e.kind() != nDir {
		return nil, syscall.ENOTDIR
	}
	byName := map[string]fs.DirEntry{}
	if e.n == nil || !e.n.opaque {
		ents, err := hostTree{o.lower}.ReadDir(p)
		if err != nil && e.n == nil {
			return nil, err
		}
		for _, d := range ents {
			byName[d.Name()] = d
		}
	}
	if e.n != nil {
		for k, kn := range e.n.kids {
			if kn.kind == nGone {
				delete(byName, k)
				continue
			}
			kp := path.Join(p, k)
			fi, err := o.info(kp, lentry{n: kn})
			if err != nil {
				delete(byName, k) // its content vanished from the root meanwhile
				continue
			}
			byName[k] = fs.FileInfoToDirEntry(fi)
		}
	}
	out := make([]fs.DirEntry, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// locked runs fn under the overlay's lock, its error as a PathError of op on name.
func (o *overlay) locked(op, name string, fn func() error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := fn(); err != nil {
		return pathErr(op, name, err)
	}
	return nil
}

// Mkdir makes one directory.
func (o *overlay) Mkdir(name string, perm fs.FileMode) error {
	return o.locked("mkdir", name, func() error {
		p, err := o.walk(name, false, false, 0)
		if err != nil {
			return err
		}
		if _, lerr := o.lookup(p); lerr == nil {
			return fs.ErrExist
		} else if !errors.Is(lerr, fs.ErrNotExist) {
			return lerr
		}
		return o.mkdir(p, perm)
	})
}

// MkdirAll makes a directory and its parents, following links to directories on the way.
func (o *overlay) MkdirAll(name string, perm fs.FileMode) error {
	return o.locked("mkdir", name, func() error {
		_, err := o.walk(name, true, true, perm)
		return err
	})
}

// Remove removes a file, a link or an empty directory.
func (o *overlay) Remove(name string) error {
	return o.locked("remove", name, func() error { return o.remove(name, false) })
}

// RemoveAll removes a tree; a name that does not exist is no error.
func (o *overlay) RemoveAll(name string) error {
	return o.locked("unlinkat", name, func() error { return o.remove(name, true) })
}

func (o *overlay) remove(name string, all bool) error {
	p, err := o.walk(name, false, false, 0)
	if err != nil {
		if all && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if p == "." {
		return syscall.EBUSY
	}
	e, err := o.lookup(p)
	if err != nil {
		if all && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := o.parentDir(p); err != nil {
		return err
	}
	if e.kind() == nDir {
		ents, err := o.readDir(p)
		if err != nil {
			return err
		}
		if len(ents) > 0 && !all {
			return syscall.ENOTEMPTY
		}
		seen := 0
		if err := o.noteTree(p, &seen); err != nil {
			return err
		}
	}
	o.note(p)
	o.drop(p)
	return nil
}

// noteTree records the base of every entry of the root below p that shows in the merged view:
// a commit that removes or moves p must find them as they were, or stop.
func (o *overlay) noteTree(p string, seen *int) error {
	ents, err := o.readDir(p)
	if err != nil {
		return err
	}
	for _, d := range ents {
		if *seen++; *seen > maxRenameScan {
			return fmt.Errorf("%s holds more than %d entries, too many to hold for review", p, maxRenameScan)
		}
		kp := path.Join(p, d.Name())
		o.note(kp)
		if d.IsDir() {
			if err := o.noteTree(kp, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rename moves an entry within the root, replacing what the new name held as rename(2) does.
func (o *overlay) Rename(oldname, newname string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.rename(oldname, newname); err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

func (o *overlay) rename(oldname, newname string) error {
	p1, err := o.walk(oldname, false, false, 0)
	if err != nil {
		return err
	}
	p2, err := o.walk(newname, false, false, 0)
	if err != nil {
		return err
	}
	e1, err := o.lookup(p1)
	if err != nil {
		return err
	}
	if p1 == "." || p2 == "." {
		return syscall.EBUSY
	}
	if p1 == p2 {
		return nil
	}
	if strings.HasPrefix(p2, p1+"/") {
		return syscall.EINVAL
	}
	if err := o.parentDir(p1); err != nil {
		return err
	}
	if err := o.parentDir(p2); err != nil {
		return err
	}
	e2, err := o.lookup(p2)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case e1.kind() == nDir && e2.kind() != nDir:
		return syscall.ENOTDIR
	case e1.kind() != nDir && e2.kind() == nDir:
		return syscall.EISDIR
	case e2.kind() == nDir:
		ents, err := o.readDir(p2)
		if err != nil {
			return err
		}
		if len(ents) > 0 {
			return syscall.ENOTEMPTY
		}
	}
	seen := 0
	moved, err := o.detach(p1, e1, &seen)
	if err != nil {
		return err
	}
	o.note(p1)
	o.drop(p1)
	o.note(p2)
	o.set(p2, moved)
	return nil
}

// detach returns a node standing for the whole merged subtree at p, independent of what the
// root holds at p (files keep pointing at their content in the root: a rename copies nothing).
func (o *overlay) detach(p string, e lentry, seen *int) (*node, error) {
	if *seen++; *seen > maxRenameScan {
		return nil, fmt.Errorf("it holds more than %d entries, too many to hold for review", maxRenameScan)
	}
	if e.n != nil && (e.n.kind != nDir || e.n.opaque) {
		return e.n, nil
	}
	fi, err := o.info(p, e)
	if err != nil {
		return nil, err
	}
	if e.n == nil {
		o.note(p)
		switch e.kind() {
		case nLink:
			t, err := o.lower.Readlink(p)
			if err != nil {
				return nil, err
			}
			return &node{kind: nLink, target: t, mtime: fi.ModTime(), ino: o.l.nextIno()}, nil
		case nFile:
			if !fi.Mode().IsRegular() {
				return nil, errSpecial
			}
			return &node{kind: nFile, origin: p, from: p, mode: fi.Mode() & modeBits, ino: inoOf(fi)}, nil
		}
	}
	// A directory of the root: it becomes the layer's own, with every entry it shows.
	d := &node{kind: nDir, opaque: true, kids: map[string]*node{}, mode: fi.Mode() & modeBits,
		mtime: fi.ModTime(), atime: fi.ModTime(), timesSet: e.n != nil && e.n.timesSet, ino: o.l.nextIno()}
	ents, err := o.readDir(p)
	if err != nil {
		return nil, err
	}
	for _, de := range ents {
		kp := path.Join(p, de.Name())
		ke, err := o.lookup(kp)
		if err != nil {
			return nil, err
		}
		kn, err := o.detach(kp, ke, seen)
		if err != nil {
			return nil, err
		}
		d.kids[de.Name()] = kn
	}
	return d, nil
}

// Symlink makes a link (FS has checked its target).
func (o *overlay) Symlink(target, name string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.walk(name, false, false, 0)
	if err == nil {
		if _, lerr := o.lookup(p); lerr == nil {
			err = fs.ErrExist
		} else if !errors.Is(lerr, fs.ErrNotExist) {
			err = lerr
		} else if err = o.parentDir(p); err == nil {
			o.note(p)
			now := time.Now()
			o.set(p, &node{kind: nLink, target: target, mtime: now, atime: now, ino: o.l.nextIno()})
		}
	}
	if err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: name, Err: err}
	}
	return nil
}

// own returns the node that holds p's own metadata, making it for an entry of the root.
func (o *overlay) own(p string, e lentry) (*node, error) {
	if e.n != nil {
		if e.n.kind == nDir && !e.n.opaque && !e.n.own {
			o.note(p)
			fi, err := o.lower.Lstat(p)
			if err != nil {
				return nil, unwrap(err)
			}
			e.n.own, e.n.mode = true, fi.Mode()&modeBits
			e.n.mtime, e.n.atime = fi.ModTime(), accessTimeOf(fi)
		}
		return e.n, nil
	}
	o.note(p)
	if e.kind() == nDir {
		n := o.dirNode(p)
		n.own, n.mode = true, e.fi.Mode()&modeBits
		n.mtime, n.atime = e.fi.ModTime(), accessTimeOf(e.fi)
		return n, nil
	}
	if !e.fi.Mode().IsRegular() {
		return nil, errSpecial
	}
	n := &node{kind: nFile, origin: p, mode: e.fi.Mode() & modeBits, mtime: e.fi.ModTime(), atime: accessTimeOf(e.fi), ino: inoOf(e.fi)}
	o.set(p, n)
	return n, nil
}

// Chmod changes permission bits (following links).
func (o *overlay) Chmod(name string, mode fs.FileMode) error {
	return o.locked("chmod", name, func() error {
		return o.change(name, func(n *node, _ fs.FileInfo) error {
			n.mode = mode & modeBits
			return nil
		})
	})
}

// Chtimes changes access and modification times (following links); a zero time leaves that one.
func (o *overlay) Chtimes(name string, atime, mtime time.Time) error {
	return o.locked("chtimes", name, func() error {
		return o.change(name, func(n *node, fi fs.FileInfo) error {
			if atime.IsZero() {
				atime = accessTimeOf(fi)
			}
			if mtime.IsZero() {
				mtime = fi.ModTime()
			}
			if n.kind == nFile && n.data != "" {
				r, err := o.l.dataRoot()
				if err != nil {
					return err
				}
				if err := r.Chtimes(n.data, atime, mtime); err != nil {
					return err
				}
			}
			n.timesSet, n.atime, n.mtime = true, atime, mtime
			return nil
		})
	})
}

// change applies fn to the node holding name's own metadata; only the owner (or root) may.
func (o *overlay) change(name string, fn func(*node, fs.FileInfo) error) error {
	p, err := o.walk(name, true, false, 0)
	if err != nil {
		return err
	}
	e, err := o.lookup(p)
	if err != nil {
		return err
	}
	fi, err := o.info(p, e)
	if err != nil {
		return err
	}
	if !owns(fi) {
		return fs.ErrPermission
	}
	n, err := o.own(p, e)
	if err != nil {
		return err
	}
	return fn(n, fi)
}

// layerFile is an open file of the layer (its data file, or the root's file it still points
// at): its name and metadata are the merged view's.
type layerFile struct {
	*os.File
	o    *overlay
	n    *node
	name string
}

func (f *layerFile) Name() string { return f.name }

func (f *layerFile) Stat() (fs.FileInfo, error) {
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	return f.o.info(f.name, lentry{n: f.n})
}

// layerDir is an open directory of the merged view.
type layerDir struct {
	o    *overlay
	p    string
	ents []fs.DirEntry
	read bool
}

func (d *layerDir) Read([]byte) (int, error)       { return 0, syscall.EISDIR }
func (d *layerDir) Write([]byte) (int, error)      { return 0, syscall.EISDIR }
func (d *layerDir) Seek(int64, int) (int64, error) { return 0, nil }
func (d *layerDir) Close() error                   { return nil }
func (d *layerDir) Stat() (fs.FileInfo, error)     { return d.o.Stat(d.p) }
func (d *layerDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		ents, err := d.o.ReadDir(d.p)
		if err != nil {
			return nil, err
		}
		d.ents, d.read = ents, true
	}
	if n <= 0 {
		out := d.ents
		d.ents = nil
		return out, nil
	}
	if len(d.ents) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.ents))
	out := d.ents[:n]
	d.ents = d.ents[n:]
	return out, nil
}

// layerInfo describes an entry of the layer.
type layerInfo struct {
	name         string
	size         int64
	mode         fs.FileMode
	atime, mtime time.Time
	ino          uint64
	sys          any
}

// finish completes li from the file it stands for (nil: none), taking that file's times unless
// the layer's own are set.
func (li *layerInfo) finish(from fs.FileInfo, ownTimes bool) *layerInfo {
	if from != nil && !ownTimes {
		li.mtime, li.atime = from.ModTime(), accessTimeOf(from)
	}
	if from != nil && li.ino == 0 {
		li.ino = inoOf(from)
	}
	li.sys = layerStat(from, li)
	return li
}

func (li *layerInfo) Name() string       { return li.name }
func (li *layerInfo) Size() int64        { return li.size }
func (li *layerInfo) Mode() fs.FileMode  { return li.mode }
func (li *layerInfo) ModTime() time.Time { return li.mtime }
func (li *layerInfo) IsDir() bool        { return li.mode.IsDir() }
func (li *layerInfo) Sys() any           { return li.sys }
