package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// File is an open sandbox file (an *os.File from an os.Root, or a virtual device).
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.Closer
	Stat() (fs.FileInfo, error)
	ReadDir(n int) ([]fs.DirEntry, error)
}

type mount struct {
	// mountSpec is what the list of roots says of the mount: shared by every call over the same
	// prepared roots (PrepareRoots) and never changed; the fields below are the call's own.
	*mountSpec
	// review, when set, makes the namespace a copy-on-write layer over the root (review mode,
	// layer.go).
	review *Layer
	// create, when set, makes the directory on first use (a call's scratch root usually stays
	// untouched, and then costs nothing).
	create func() error
	once   sync.Once
	// opened is set by the first use (once): most of a call's mounts are never used, and
	// then cost no more than the fields above.
	opened *openedRoot
}

// openedRoot is a mount opened by its call.
type openedRoot struct {
	r *os.Root
	// t is the namespace the call uses: r itself, or the call's review layer over it.
	t   tree
	err error
}

// mountSpec is a mount's layout: the same for every call over the same roots.
type mountSpec struct {
	Root
	// host is the root's host path (Root.Path is the path scripts see: ShellPath).
	host string
	// physical marks a root the policy gave (vetted at its physical path): it must still be
	// the directory physically there when opened (rootcheck.go).
	physical bool
	// nested lists read-only mounts below this read-write one (relative paths), such as the
	// project's own tools/ and server.d/ inside a project root: writes here are resolved the way
	// os.Root will resolve them, so no path or symlink of this root reaches into those.
	// PrepareRoots computes it for the whole list; a call whose mounts differ from the list
	// (a root dropped or given twice) computes its own.
	nested []string
}

// fits reports whether s is the layout of r, a root the policy gave when physical is set: a
// prepared root copied and then changed no longer is.
func (s *mountSpec) fits(r Root, physical bool) bool {
	if s == nil || s.host != r.Path || s.Name != r.Name || s.Protected != r.Protected {
		return false
	}
	if r.Protected {
		return s.Mode == ReadOnly && !s.physical
	}
	return s.Mode == r.Mode && s.physical == physical
}

// root returns the opened root's namespace, opening it (and creating a lazy one) on first use.
// Roots are opened lazily because most calls touch few of them or none (a script that only
// computes and prints never opens any), and opening and closing one costs three system calls.
func (m *mount) root() (tree, error) {
	m.once.Do(func() {
		o := &openedRoot{}
		m.opened = o
		if m.create != nil {
			if o.err = m.create(); o.err != nil {
				return
			}
		}
		if m.physical {
			o.r, o.err = openRootAt(m.host)
		} else {
			o.r, o.err = os.OpenRoot(m.host)
		}
		if o.err == nil {
			o.t = hostTree{o.r}
			if m.review != nil {
				// The manifest names the root by its host path (C:\... on Windows), as
				// the native engine's does: a commit writes there.
				hr := m.Root
				hr.Path = m.host
				o.t = m.review.over(hr, o.r, m.nested)
			}
		}
	})
	o := m.opened
	if o == nil {
		// Close ran first: a background job of the script outlived its call.
		return nil, os.ErrClosed
	}
	return o.t, o.err
}

// FS is the only filesystem a sandboxed call sees: every path is mapped to one of the roots and
// resolved inside it by os.Root (openat with RESOLVE_BENEATH semantics), so `..`, absolute
// symlinks and symlinks planted inside a root cannot reach anything else. Paths outside every
// root do not exist. All paths given to FS methods are absolute.
type FS struct {
	mounts []*mount // longest path first
	rec    *Record
	// nsMu serialises mutating operations in mounts with nested read-only mounts, so a
	// background job of the same call cannot swap a path between check and use.
	nsMu sync.Mutex
	// files counts the files the call holds open (openfiles.go).
	files openFiles
	// writes counts the bytes the call writes (writebudget.go).
	writes writeBudget
	// linkMu serialises link creation and renames (each checks links another could move).
	linkMu sync.Mutex
	// layer holds the call's writes in review mode (nil in direct mode).
	layer *Layer
	// programs (sorted, shared, never modified) and morePrograms are the commands the call
	// runs by name, shown in /usr/bin and /bin.
	programs, morePrograms []string
}

// ShowPrograms makes the commands a call runs by name (its utilities, sorted, which the FS
// keeps without copying and never changes; its allowlisted commands, more) appear as files in
// /usr/bin and /bin, where command search says they are (command -v, type -P):
// [ -x "$(command -v jq)" ] holds as on a host. They are execute-only (---x--x--x), so reading
// one is refused: they are not the host's files. Call it before the script runs.
func (f *FS) ShowPrograms(sorted, more []string) {
	f.programs, f.morePrograms = sorted, more
}

// isProgram reports whether p is one of the shown programs.
func (f *FS) isProgram(p string) bool {
	dir, name := path.Split(p)
	if dir != "/usr/bin/" && dir != "/bin/" {
		return false
	}
	_, ok := slices.BinarySearch(f.programs, name)
	return ok || slices.Contains(f.morePrograms, name)
}

// programNames lists the shown programs.
func (f *FS) programNames() []string {
	return append(slices.Clip(f.programs), f.morePrograms...)
}

// Scratch describes a call's private read-write root: Create makes it on first use.
type Scratch struct {
	Path   string
	Create func() error
}

// NewFS opens the policy's roots, the tool directory (read-only, unless a root covers it) and
// the call's scratch root (read-write, created lazily; zero Scratch for none).
func NewFS(p Policy, scratch Scratch, rec *Record) (*FS, error) {
	f := &FS{rec: rec, files: openFiles{max: int64(p.Limits.WithDefaults().MaxOpenFiles)}}
	f.writes.max, f.writes.rec = p.Limits.MaxBytesWritten, rec
	// The mounts of a call are allocated together, one array and one slice of pointers into
	// it: a project root with its protected directories is a dozen mounts on every call.
	// Sized for the roots and the scratch: the tool directory is usually inside a root (a
	// project root's tools/), and takes a mount of its own only when it is not.
	n := len(p.Roots)
	if scratch.Path != "" {
		n++
	}
	slab := make([]mount, 0, n)
	f.mounts = make([]*mount, 0, n)
	newMount := func(spec *mountSpec, create func() error) *mount {
		if len(slab) == cap(slab) {
			slab = make([]mount, 0, 1)
		}
		slab = append(slab, mount{mountSpec: spec, create: create})
		return &slab[len(slab)-1]
	}
	physical := false // set while the policy's own roots are added
	// shared holds while the mounts are exactly the prepared roots, whose nested lists
	// PrepareRoots computed.
	shared := true
	add := func(r Root) error {
		if !filepath.IsAbs(r.Path) {
			return fmt.Errorf("sandbox: root %q is not absolute", r.Path)
		}
		// A prepared root (PrepareRoots) brings its layout, shared with the other calls over
		// the same roots; any other root gets one of its own.
		spec := r.spec
		if !spec.fits(r, physical) {
			spec, shared = newMountSpec(r, physical), false
		}
		for _, m := range f.mounts {
			if m.Path == spec.Path {
				shared = false
				if spec.Mode == ReadWrite && m.Mode != ReadWrite {
					// The layout may be shared: this call's upgrade goes in a copy of its own.
					up := *m.mountSpec
					up.Mode = ReadWrite
					m.mountSpec = &up
				}
				return nil
			}
		}
		if r.Protected {
			f.mounts = append(f.mounts, newMount(spec, nil))
			return nil
		}
		host := spec.host
		// The root is opened on first use (mount.root); a stat here keeps NewFS's contract that
		// a missing root is dropped and one that is not a directory is an error.
		dir, err := statIsDir(host)
		if err != nil {
			return err
		}
		if !dir {
			return &fs.PathError{Op: "openat", Path: host, Err: errNotDir{}}
		}
		f.mounts = append(f.mounts, newMount(spec, nil))
		return nil
	}
	for _, r := range p.Roots {
		physical = true
		if err := add(r); err != nil {
			// A root that vanished is dropped, as the original drops missing roots.
			if errors.Is(err, fs.ErrNotExist) {
				shared = false
				continue
			}
			f.Close()
			return nil, err
		}
	}
	physical = false
	if p.ToolDir != "" && !f.covered(ShellPath(p.ToolDir)) {
		if err := add(Root{Path: p.ToolDir, Name: "tool", Mode: ReadOnly}); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.Close()
			return nil, err
		}
	}
	if scratch.Path != "" {
		host := filepath.Clean(scratch.Path)
		f.mounts = append(f.mounts, newMount(&mountSpec{Root: Root{Path: path.Clean(ShellPath(host)), Name: "scratch", Mode: ReadWrite}, host: host}, scratch.Create))
	}
	sortMounts(f.mounts)
	if p.Layer != "" {
		f.layer = newLayer(p.Layer, &f.writes)
		for _, m := range f.mounts {
			if m.Mode == ReadWrite && m.create == nil {
				m.review = f.layer
			}
		}
	}
	if !shared {
		// The mounts are not the prepared list's: the nested lists are this call's own, in
		// copies of the layouts.
		for _, m := range f.mounts {
			if nested := nestedIn(f.mounts, m); !slices.Equal(nested, m.nested) {
				own := *m.mountSpec
				own.nested = nested
				m.mountSpec = &own
			}
		}
	}
	return f, nil
}

// sortMounts orders mounts longest path first, keeping the order of equal lengths.
func sortMounts(mounts []*mount) {
	// slices' stable sort with a function that captures nothing: sort.SliceStable allocated
	// its swapper and closure on every call.
	slices.SortStableFunc(mounts, func(a, b *mount) int { return cmp.Compare(len(b.Path), len(a.Path)) })
}

// nestedIn lists the read-only mounts below the read-write mount m (relative paths, in the
// order of mounts); nil for none, or for a scratch root.
func nestedIn(mounts []*mount, m *mount) []string {
	if m.Mode != ReadWrite || m.create != nil {
		return nil
	}
	var out []string
	for _, n := range mounts {
		if n.Mode == ReadOnly && n.Path != m.Path && isUnder(n.Path, m.Path) {
			out = append(out, strings.TrimPrefix(n.Path[len(m.Path):], "/"))
		}
	}
	return out
}

// errNotDir is ENOTDIR for a root that is not a directory, and never "does not exist" (Windows
// spells ENOTDIR as ERROR_PATH_NOT_FOUND, which os takes for a missing path, and NewFS drops
// missing roots).
type errNotDir struct{}

func (errNotDir) Error() string        { return "not a directory" }
func (errNotDir) Is(target error) bool { return target == syscall.ENOTDIR }

// isUnder reports whether p is dir or below it (both clean, both absolute or both relative),
// comparing names as the host's file system does.
func isUnder(p, dir string) bool {
	_, ok := cutPathPrefix(p, dir)
	return ok
}

// lockNS takes the namespace lock when some mount has nested read-only mounts.
func (f *FS) lockNS() func() {
	for _, m := range f.mounts {
		if len(m.nested) > 0 {
			f.nsMu.Lock()
			return f.nsMu.Unlock
		}
	}
	return func() {}
}

// reachesNested resolves rel inside m (opened as t) the way os.Root does (symlinks followed in every component,
// and in the last one when follow is set) and reports whether the result is inside, or, with
// holds set, contains, one of m's nested read-only mounts.
func (m *mount) reachesNested(t tree, rel string, follow, holds bool) bool {
	if len(m.nested) == 0 {
		return false
	}
	hit := func(p string) bool {
		for _, n := range m.nested {
			if dir, ok := hiddenPattern(n); ok {
				if isHiddenIn(p, dir) || (holds && (p == "." || isUnder(dir, p))) {
					return true
				}
				continue
			}
			if isUnder(p, n) || (holds && (p == "." || isUnder(n, p))) {
				return true
			}
		}
		return false
	}
	var out []string
	rest := strings.Split(rel, "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(out) == 0 {
				return false // escapes the root: os.Root refuses it anyway
			}
			out = out[:len(out)-1]
			continue
		}
		cand := path.Join(append(slices.Clone(out), c)...)
		if hit(cand) {
			return true
		}
		if len(rest) == 0 && !follow {
			out = append(out, c)
			break
		}
		fi, err := t.Lstat(cand)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			out = append(out, c) // a directory, a file, or not there yet: taken literally
			continue
		}
		target, err := readLink(t, cand)
		if hops++; err != nil || hops > 40 || path.IsAbs(target) {
			return false // os.Root fails the same way
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	p := "."
	if len(out) > 0 {
		p = path.Join(out...)
	}
	return hit(p)
}

// Covers reports whether an absolute path is inside one of the roots (without recording an
// access): command search skips PATH directories the sandbox does not have.
func (f *FS) Covers(p string) bool { return path.IsAbs(p) && f.covered(p) }

func (f *FS) covered(p string) bool {
	_, _, ok := f.lookup(path.Clean(p))
	return ok
}

// Close releases the roots (a review layer keeps what it holds: FS.Review still answers).
func (f *FS) Close() error {
	for _, m := range f.mounts {
		m.once.Do(func() {}) // no opening after this point (and m.opened is safe to read)
		if m.opened != nil && m.opened.r != nil {
			m.opened.r.Close()
		}
	}
	if f.layer != nil {
		f.layer.close()
	}
	return nil
}

// Roots lists the mounted roots (longest path first).
func (f *FS) Roots() []Root {
	out := make([]Root, len(f.mounts))
	for i, m := range f.mounts {
		out[i] = m.Root
	}
	return out
}

// Record returns the access record the FS writes to.
func (f *FS) Record() *Record { return f.rec }

// Abs resolves p against cwd and cleans it lexically.
func Abs(cwd, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(cwd, p)
}

// lookup maps an absolute clean path to its root and the path relative to it.
func (f *FS) lookup(p string) (*mount, string, bool) {
	for _, m := range f.mounts {
		if rest, ok := cutPathPrefix(p, m.Path); ok {
			if rest == "" {
				rest = "."
			}
			return m, rest, true
		}
	}
	return nil, "", false
}

// ancestor reports whether p is a directory on the way to some root or a served device, or
// /tmp, and the next path components below it.
func (f *FS) ancestor(p string) ([]string, bool) {
	var next []string
	prefix := p
	if prefix != "/" {
		prefix += "/"
	}
	for _, m := range f.mounts {
		if strings.HasPrefix(m.Path, prefix) {
			comp := strings.SplitN(m.Path[len(prefix):], "/", 2)[0]
			if !slices.Contains(next, comp) {
				next = append(next, comp)
			}
		}
	}
	// /dev holds the served devices, /usr/bin and /bin the shown programs, and /tmp is there
	// as on every host (writes to it are refused: a script's temporary files go to $TMPDIR).
	var virtual []string
	switch p {
	case "/":
		virtual = []string{"dev", "tmp"}
		if len(f.programNames()) > 0 {
			virtual = append(virtual, "bin", "usr")
		}
	case "/dev":
		virtual = deviceNames()
	case "/usr":
		if len(f.programNames()) > 0 {
			virtual = []string{"bin"}
		}
	case "/usr/bin", "/bin":
		virtual = f.programNames()
	}
	for _, n := range virtual {
		if !slices.Contains(next, n) {
			next = append(next, n)
		}
	}
	slices.Sort(next)
	return next, len(next) > 0 || p == "/tmp"
}

// inVirtualDir reports whether p's directory is one the sandbox shows but no root holds
// (/tmp, /dev, the way to a root): creating p there is refused as a read-only directory
// refuses it, not as a missing one.
func (f *FS) inVirtualDir(p string) bool {
	if _, _, ok := f.lookup(path.Dir(p)); ok {
		return false
	}
	_, anc := f.ancestor(path.Dir(p))
	return anc
}

func clean(name string) (string, error) {
	if windowsHost {
		var err error
		if name, err = windowsSyntax(name); err != nil {
			return "", err
		}
	}
	if !path.IsAbs(name) {
		return "", &fs.PathError{Op: "open", Path: name, Err: errors.New("sandbox: path must be absolute")}
	}
	return path.Clean(name), nil
}

func (f *FS) deny(op, p, reason string, err error) error {
	// A file missing inside the roots is no refusal: the roots allow the access, which
	// fails as it fails in bash (No such file or directory). It is recorded, as allowed.
	f.rec.Add(Access{Op: op, Path: p, Allowed: reason == ReasonNotFound, Reason: reason})
	if op != "read" && op != "stat" && op != "list" && (reason == "outside the roots" || reason == "read-only root" || reason == setIDReason) {
		// A refused write says why (Reason), where bash would name a missing directory or a
		// permission; its error class (errors.Is, a guest's errno) stays the same.
		err = &denied{reason: reason, err: err}
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// denied is a write the roots' policy refused: its text and class are err's, its Reason the
// policy's.
type denied struct {
	reason string
	err    error
}

func (d *denied) Error() string { return d.err.Error() }
func (d *denied) Unwrap() error { return d.err }

func (f *FS) allow(op, p string) { f.rec.Add(Access{Op: op, Path: p, Allowed: true}) }

const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// Open opens a file. Writes need a read-write root.
func (f *FS) Open(name string, flag int, perm fs.FileMode) (File, error) {
	p, err := clean(name)
	if err != nil {
		return nil, err
	}
	op := "read"
	if flag&writeFlags != 0 {
		op = "write"
	}
	if minor, ok := deviceMinor(p); ok {
		return device{name: p, minor: minor}, nil // not worth a record entry
	}
	if f.isProgram(p) {
		return nil, f.deny(op, p, "a program of the sandbox, not a file", fs.ErrPermission)
	}
	m, rel, ok := f.lookup(p)
	if !ok {
		if _, anc := f.ancestor(p); anc {
			if op == "write" {
				return nil, f.deny(op, p, "outside the roots", fs.ErrPermission)
			}
			f.allow(op, p)
			return &ancestorDir{f: f, p: p}, nil
		}
		if op == "write" && f.inVirtualDir(p) {
			return nil, f.deny(op, p, "outside the roots", fs.ErrPermission)
		}
		return nil, f.deny(op, p, "outside the roots", fs.ErrNotExist)
	}
	if op == "write" && m.Mode != ReadWrite {
		return nil, f.deny(op, p, "read-only root", fs.ErrPermission)
	}
	r, err := m.root()
	if err != nil {
		return nil, f.deny(op, p, reasonOf(err), unwrap(err))
	}
	if op == "write" && len(m.nested) > 0 {
		defer f.lockNS()()
		if m.reachesNested(r, rel, true, false) {
			return nil, f.deny(op, p, "read-only root", fs.ErrPermission)
		}
	}
	if err := f.files.take(); err != nil {
		return nil, f.deny(op, p, err.Error(), err)
	}
	// O_NONBLOCK: opening a FIFO (one a native tool, an allowlisted command or the host left in
	// a root) would block in the kernel until a peer came, beyond the call's timeout and
	// cancellation, holding a thread; the open returns at once and notSpecial refuses it.
	file, err := r.OpenFile(rel, flag|oNonblock, perm&^setIDBits)
	if err == nil {
		err = notSpecial(file)
	}
	if err != nil {
		f.files.track(nil, err, nil)
		if errors.Is(err, syscall.ENXIO) {
			err = errSpecial // a FIFO without a reader (O_WRONLY|O_NONBLOCK) or a socket
		}
		if errors.Is(err, errSpecial) {
			return nil, f.deny(op, p, specialReason, &refused{specialReason})
		}
		return nil, f.deny(op, p, reasonOf(err), unwrap(err))
	}
	f.allow(op, p)
	var w *writeBudget
	if op == "write" && f.writes.max > 0 {
		w = &f.writes
	}
	return f.files.track(file, nil, w), nil
}

// specialReason refuses FIFOs, sockets and device nodes found in a root: opening or reading one
// can block without end (a FIFO waits for its peer) or reach the host's hardware, and the
// sandbox serves its own /dev (devices.go).
const specialReason = "FIFOs, sockets and device files in a root are not opened"

var errSpecial = errors.New(specialReason)

// notSpecial closes file and returns errSpecial unless it is a regular file or a directory.
func notSpecial(file File) error {
	fi, err := file.Stat()
	if err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
		return nil
	}
	file.Close()
	if err != nil {
		return err
	}
	return errSpecial
}

// ReasonNotFound is the reason of an access to a file missing inside the roots: an allowed
// access that failed, not a refusal.
const ReasonNotFound = "not found"

func reasonOf(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ReasonNotFound
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return "escapes the root"
	}
	return err.Error()
}

// unwrap returns the innermost error of a PathError (so callers see fs.ErrNotExist etc.); an
// os.Root escape is reported as "does not exist", as anything outside the roots is.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Err.Error(), "escapes") {
			return fs.ErrNotExist
		}
		return pe.Err
	}
	return err
}

// Stat follows symlinks (inside the root only).
func (f *FS) Stat(name string) (fs.FileInfo, error) { return f.stat(name, true) }

// Lstat does not follow a final symlink.
func (f *FS) Lstat(name string) (fs.FileInfo, error) { return f.stat(name, false) }

func (f *FS) stat(name string, follow bool) (fs.FileInfo, error) {
	p, err := clean(name)
	if err != nil {
		return nil, err
	}
	if minor, ok := deviceMinor(p); ok {
		return deviceInfo{name: p, minor: minor}, nil
	}
	if f.isProgram(p) {
		return programInfo(path.Base(p)), nil
	}
	m, rel, ok := f.lookup(p)
	if !ok {
		if _, anc := f.ancestor(p); anc {
			return ancestorOf(p), nil
		}
		return nil, f.deny("stat", p, "outside the roots", fs.ErrNotExist)
	}
	var fi fs.FileInfo
	r, err := m.root()
	switch {
	case err != nil:
	case follow:
		fi, err = r.Stat(rel)
	default:
		fi, err = r.Lstat(rel)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: unwrap(err)}
	}
	return fi, nil
}

// ReadDir lists a directory. Outside the roots it fails with fs.ErrNotExist.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := clean(name)
	if err != nil {
		return nil, err
	}
	m, rel, ok := f.lookup(p)
	if !ok {
		if next, anc := f.ancestor(p); anc {
			f.allow("list", p)
			out := make([]fs.DirEntry, len(next))
			for i, n := range next {
				if minor, ok := deviceMinor(path.Join(p, n)); ok {
					out[i] = fs.FileInfoToDirEntry(deviceInfo{name: n, minor: minor})
					continue
				}
				if f.isProgram(path.Join(p, n)) {
					out[i] = fs.FileInfoToDirEntry(programInfo(n))
					continue
				}
				out[i] = fs.FileInfoToDirEntry(ancestorOf(path.Join(p, n)))
			}
			return out, nil
		}
		return nil, f.deny("list", p, "outside the roots", fs.ErrNotExist)
	}
	r, err := m.root()
	if err != nil {
		return nil, f.deny("list", p, reasonOf(err), unwrap(err))
	}
	ents, err := r.ReadDir(rel)
	if err != nil {
		return nil, f.deny("list", p, reasonOf(err), unwrap(err))
	}
	f.allow("list", p)
	return ents, nil
}

// startsLikeProgram reports whether the file p of m begins as a program does (#! or a Windows
// executable's MZ): Windows has no execute bits, and Git-Bash takes such a file for
// executable, so test -x and command search answer as they do there.
func (f *FS) startsLikeProgram(m *mount, p string) bool {
	r, err := m.root()
	if err != nil {
		return false
	}
	_, rel, _ := f.lookup(p)
	file, err := r.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer file.Close()
	var head [2]byte
	n, _ := io.ReadFull(file, head[:])
	return n == 2 && (string(head[:]) == "#!" || string(head[:]) == "MZ")
}

// Access modes, as access(2).
const (
	AccessRead  = 4
	AccessWrite = 2
	AccessExec  = 1
)

// Access answers test -r/-w/-x from the file mode and the root's mode, never from the host's
// access(2).
func (f *FS) Access(name string, mode uint32) error {
	p, err := clean(name)
	if err != nil {
		return err
	}
	fi, err := f.Stat(p)
	if err != nil {
		return err
	}
	writable := IsDevice(p)
	m, _, inRoot := f.lookup(p)
	if inRoot {
		writable = m.Mode == ReadWrite
	}
	perm := fi.Mode().Perm()
	// Which permission triad applies, as access(2) would pick it for the server's user: the
	// answer must be what opening the file then does. A server running as root reads and
	// writes files in the roots whatever their mode, and executes those with an x bit.
	st := StatOf(fi)
	ok := st.Owned
	if inRoot && os.Geteuid() == 0 {
		perm = 0o666
		if fi.IsDir() || fi.Mode().Perm()&0o111 != 0 {
			perm |= 0o111
		}
	} else if ok && st.Uid == uint32(os.Geteuid()) {
		perm = (perm >> 6) & 7 * 0o111
	} else if ok && st.Gid == uint32(os.Getegid()) {
		perm = (perm >> 3) & 7 * 0o111
	} else if ok {
		perm = perm & 7 * 0o111
	}
	if windowsHost && inRoot && mode&AccessExec != 0 && perm&0o111 == 0 && fi.Mode().IsRegular() && f.startsLikeProgram(m, p) {
		perm |= 0o111
	}
	if mode&AccessRead != 0 && perm&0o444 == 0 {
		return &fs.PathError{Op: "access", Path: p, Err: fs.ErrPermission}
	}
	if mode&AccessWrite != 0 && (!writable || perm&0o222 == 0) {
		return &fs.PathError{Op: "access", Path: p, Err: fs.ErrPermission}
	}
	if mode&AccessExec != 0 && perm&0o111 == 0 {
		return &fs.PathError{Op: "access", Path: p, Err: fs.ErrPermission}
	}
	return nil
}

// writable maps p to a read-write root for a mutating operation.
func (f *FS) writable(op, name string) (*rootRef, string, string, error) {
	p, err := clean(name)
	if err != nil {
		return nil, "", "", err
	}
	m, rel, ok := f.lookup(p)
	if !ok {
		if _, anc := f.ancestor(p); anc || IsDevice(p) || f.inVirtualDir(p) {
			return nil, "", p, f.deny(op, p, "outside the roots", fs.ErrPermission)
		}
		return nil, "", p, f.deny(op, p, "outside the roots", fs.ErrNotExist)
	}
	if m.Mode != ReadWrite {
		return nil, "", p, f.deny(op, p, "read-only root", fs.ErrPermission)
	}
	r, err := m.root()
	if err != nil {
		return nil, "", p, f.deny(op, p, reasonOf(err), unwrap(err))
	}
	follow := op == "write" || op == "mkdir" // chmod, chtimes and mkdir -p follow the last link
	if m.reachesNested(r, rel, follow, op == "remove" || op == "rename") {
		return nil, "", p, f.deny(op, p, "read-only root", fs.ErrPermission)
	}
	return &rootRef{r: r, m: m}, rel, p, nil
}

// rootRef is an opened writable root and its mount (compared for same-root renames).
type rootRef struct {
	r tree
	m *mount
}

func (f *FS) done(op, p string, err error) error {
	if err != nil {
		return f.deny(op, p, reasonOf(err), unwrap(err))
	}
	f.allow(op, p)
	return nil
}

// Mkdir creates one directory.
func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	defer f.lockNS()()
	m, rel, p, err := f.writable("mkdir", name)
	if err != nil {
		return err
	}
	return f.done("mkdir", p, m.r.Mkdir(rel, perm&^setIDBits))
}

// MkdirAll creates a directory and its parents.
func (f *FS) MkdirAll(name string, perm fs.FileMode) error {
	defer f.lockNS()()
	m, rel, p, err := f.writable("mkdir", name)
	if err != nil {
		return err
	}
	return f.done("mkdir", p, m.r.MkdirAll(rel, perm&^setIDBits))
}

// holdsRoot reports whether removing or renaming p would take a mounted root with it.
func (f *FS) holdsRoot(p string) bool {
	prefix := strings.TrimSuffix(p, "/") + "/"
	for _, m := range f.mounts {
		if m.Path == p || strings.HasPrefix(m.Path, prefix) {
			return true
		}
	}
	return false
}

// Remove removes a file or an empty directory; a root itself cannot be removed.
func (f *FS) Remove(name string) error {
	return f.remove(name, tree.Remove)
}

// RemoveAll removes a tree; a root itself cannot be removed.
func (f *FS) RemoveAll(name string) error {
	return f.remove(name, tree.RemoveAll)
}

func (f *FS) remove(name string, rm func(tree, string) error) error {
	defer f.lockNS()()
	m, rel, p, err := f.writable("remove", name)
	if err != nil {
		return err
	}
	if rel == "." || f.holdsRoot(p) {
		return f.deny("remove", p, "is or contains a root", fs.ErrPermission)
	}
	return f.done("remove", p, rm(m.r, rel))
}

// Rename moves within one root; across roots it fails with EXDEV (callers copy).
func (f *FS) Rename(oldName, newName string) error {
	defer f.lockNS()()
	m1, rel1, p1, err := f.writable("rename", oldName)
	if err != nil {
		return err
	}
	m2, rel2, p2, err := f.writable("rename", newName)
	if err != nil {
		return err
	}
	if rel1 == "." || rel2 == "." || f.holdsRoot(p1) {
		return f.deny("rename", p1, "is or contains a root", fs.ErrPermission)
	}
	if m1.m != m2.m {
		f.rec.Add(Access{Op: "rename", Path: p1 + " -> " + p2, Allowed: false, Reason: "across roots"})
		return &os.LinkError{Op: "rename", Old: p1, New: p2, Err: syscall.EXDEV}
	}
	// Relative links mean something else from their new place (links.go).
	f.linkMu.Lock()
	defer f.linkMu.Unlock()
	if err := f.checkMove(m1.m, m1.r, rel1, rel2); err != nil {
		return f.deny("rename", p1, err.Error(), &refused{err.Error()})
	}
	if err := m1.r.Rename(rel1, rel2); err != nil {
		return f.deny("rename", p1, reasonOf(err), unwrap(err))
	}
	f.allow("rename", p1+" -> "+p2)
	return nil
}

// Symlink creates link pointing at target. The target, resolved as the kernel will resolve it
// from the link's physical directory, must stay inside the link's own root, now and after any
// change the sandbox allows later (see links.go), so nothing that follows the link without
// os.Root can leave the root through it.
func (f *FS) Symlink(target, link string) error {
	defer f.lockNS()()
	f.linkMu.Lock()
	defer f.linkMu.Unlock()
	m, rel, p, err := f.writable("symlink", link)
	if err != nil {
		return err
	}
	if windowsHost {
		// Windows makes links only with a privilege, and reads their targets with its own
		// path rules; the sandbox does not make them there.
		return f.deny("symlink", p, "the sandbox makes no symbolic links on Windows", &refused{"the sandbox makes no symbolic links on Windows"})
	}
	if len(m.m.nested) > 0 {
		// A link's meaning changes when it or its directory is renamed, so no lexical check of
		// the target can keep it out of the protected directories later: none are made here.
		return f.deny("symlink", p, "links cannot be made in a root that holds protected project files", fs.ErrPermission)
	}
	stored, err := f.checkLink(m.m, m.r, rel, target)
	if err != nil {
		return f.deny("symlink", p, err.Error(), &refused{err.Error()})
	}
	return f.done("symlink", p, m.r.Symlink(stored, rel))
}

// Readlink reads a symlink inside a root.
func (f *FS) Readlink(name string) (string, error) {
	p, err := clean(name)
	if err != nil {
		return "", err
	}
	m, rel, ok := f.lookup(p)
	if !ok {
		return "", f.deny("stat", p, "outside the roots", fs.ErrNotExist)
	}
	r, err := m.root()
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: unwrap(err)}
	}
	s, err := readLink(r, rel)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: unwrap(err)}
	}
	return s, nil
}

// setIDBits are the mode bits a script may not set. The server often runs as root: a setuid
// or setgid file left in a root would run with the server's identity for whoever reaches it.
const setIDBits = fs.ModeSetuid | fs.ModeSetgid

const setIDReason = "setuid and setgid bits are refused"

// Chmod changes permission bits; setuid and setgid are refused (the sticky bit is harmless).
func (f *FS) Chmod(name string, mode fs.FileMode) error {
	defer f.lockNS()()
	m, rel, p, err := f.writable("write", name)
	if err != nil {
		return err
	}
	if mode&setIDBits != 0 {
		return f.deny("write", p, setIDReason, fs.ErrPermission)
	}
	return f.done("write", p, m.r.Chmod(rel, mode))
}

// Chtimes changes access and modification times.
func (f *FS) Chtimes(name string, atime, mtime time.Time) error {
	defer f.lockNS()()
	m, rel, p, err := f.writable("write", name)
	if err != nil {
		return err
	}
	return f.done("write", p, m.r.Chtimes(rel, atime, mtime))
}

// ReadFile reads a whole file.
func (f *FS) ReadFile(name string) ([]byte, error) {
	file, err := f.Open(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(file)
}

// WriteFile writes a whole file.
func (f *FS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	file, err := f.Open(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, werr := file.Write(data)
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// RealPath resolves symlinks of an existing path without leaving the roots, component by
// component.
func (f *FS) RealPath(name string) (string, error) {
	if _, err := clean(name); err != nil {
		return "", err
	}
	// ".." is taken after the links before it are resolved (d/link/.. is the link target's
	// parent), as the kernel and realpath(3) take it, so the name is not cleaned first.
	p := name
	if windowsHost && strings.ContainsAny(name, `\:`) {
		// A Windows path (C:\x, \\server\share): Windows itself takes its ".." lexically
		// (GetFullPathName), as windowsSyntax does.
		p, _ = windowsSyntax(name) // clean accepted it above
	}
	out := "/"
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			out = path.Dir(out)
			continue
		}
		next := path.Join(out, c)
		fi, err := f.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return "", &fs.PathError{Op: "realpath", Path: p, Err: syscall.ELOOP}
			}
			target, err := f.Readlink(next)
			if err != nil {
				return "", err
			}
			target = Abs(out, target)
			rest = append(strings.Split(strings.TrimPrefix(target, "/"), "/"), rest...)
			out = "/"
			continue
		}
		out = next
	}
	return out, nil
}

// programInfo describes a shown program: an execute-only file (it has no content to read).
type programInfo string

func (p programInfo) Name() string     { return string(p) }
func (programInfo) Size() int64        { return 0 }
func (programInfo) Mode() fs.FileMode  { return 0o111 }
func (programInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (programInfo) IsDir() bool        { return false }
func (programInfo) Sys() any           { return &StatT{} }

// ancestorInfo describes a directory on the way to a root: read-only, except that the
// world-writable sticky directories show the mode every Linux host gives them (test -k, ls -ld;
// test -w still answers the sandbox's policy: not writable).
type ancestorInfo struct {
	name   string
	sticky bool
}

// ancestorOf describes the directory p on the way to a root.
func ancestorOf(p string) ancestorInfo {
	switch p {
	case "/tmp", "/var/tmp", "/dev/shm":
		return ancestorInfo{name: path.Base(p), sticky: true}
	}
	return ancestorInfo{name: path.Base(p)}
}

func (a ancestorInfo) Name() string {
	if a.name == "" {
		return "/"
	}
	return a.name
}
func (ancestorInfo) Size() int64 { return 4096 }
func (a ancestorInfo) Mode() fs.FileMode {
	if a.sticky {
		return fs.ModeDir | fs.ModeSticky | 0o777
	}
	return fs.ModeDir | 0o555
}
func (ancestorInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (ancestorInfo) IsDir() bool        { return true }

// Sys returns empty stat fields (StatOf).
func (ancestorInfo) Sys() any { return &StatT{} }

type ancestorDir struct {
	f *FS
	p string
}

func (d *ancestorDir) Read([]byte) (int, error)       { return 0, syscall.EISDIR }
func (d *ancestorDir) Write([]byte) (int, error)      { return 0, syscall.EISDIR }
func (d *ancestorDir) Seek(int64, int) (int64, error) { return 0, nil }
func (d *ancestorDir) Close() error                   { return nil }
func (d *ancestorDir) Stat() (fs.FileInfo, error)     { return ancestorOf(d.p), nil }
func (d *ancestorDir) ReadDir(int) ([]fs.DirEntry, error) {
	return d.f.ReadDir(d.p)
}
