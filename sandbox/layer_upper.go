package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
)

// A native tool in review mode writes through overlay mounts (sandbox/internal/confine,
// layer.go): what it changed is in each overlay's upper directory, in the overlay's own format
// (new and copied-up files, directories, links, whiteouts for what it deleted, an opaque mark on
// a directory that replaced one). UpperManifest reads that into the layer's manifest, so that
// the host shows and commits it as it does a sandboxed call's.

// UpperRoot is one read-write root of a native call in review mode and its overlay's upper
// directory (relative to the layer directory).
type UpperRoot struct {
	Root  Root
	Upper string
	// Nested are the protected paths inside the root (relative), which a commit never writes.
	Nested []string
}

// UpperManifest reads the upper directories in dir (the call's layer directory, once every
// process of the tool has ended) into a manifest: each new file's content moves into a data file
// of dir; nothing the tool made is followed (links are read as links). max bounds the bytes of
// new content (the call's write budget; 0: none). FIFOs, sockets and devices are refused.
func UpperManifest(dir string, roots []UpperRoot, max int64) (*LayerManifest, error) {
	layer, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer layer.Close()
	m := &LayerManifest{Dir: dir, Roots: []LayerRoot{}}
	u := &upperReader{layer: layer, dir: dir, max: max}
	for _, ur := range roots {
		lower, err := openRootAt(ur.Root.Path)
		if err != nil {
			return nil, err
		}
		lr, err := u.root(ur, lower)
		lower.Close()
		if err != nil {
			return nil, err
		}
		if len(lr.Entries) > 0 {
			m.Roots = append(m.Roots, lr)
		}
	}
	return m, nil
}

type upperReader struct {
	layer *os.Root
	dir   string
	max   int64
	total int64
	seq   int
}

func (u *upperReader) root(ur UpperRoot, lower *os.Root) (LayerRoot, error) {
	lr := LayerRoot{Path: ur.Root.Path, Name: ur.Root.Name, Protected: ur.Nested, Entries: []Entry{}, Base: []Base{}}
	noted := map[string]bool{}
	note := func(p string) {
		if noted[p] {
			return
		}
		noted[p] = true
		b := Base{Path: p}
		if fi, err := lower.Lstat(p); err == nil {
			b.fill(fi)
			switch b.Kind {
			case "symlink":
				b.Target, _ = lower.Readlink(p)
			case "file":
				b.SHA256 = hashIn(lower, p)
			}
		}
		lr.Base = append(lr.Base, b)
	}
	seen := 0
	// noteTree notes what the root holds below p (a directory the tool removed or replaced).
	var noteTree func(p string) error
	noteTree = func(p string) error {
		ents, err := hostTree{lower}.ReadDir(p)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if seen++; seen > maxRenameScan {
				return fmt.Errorf("%s holds more than %d entries, too many to hold for review", p, maxRenameScan)
			}
			kp := path.Join(p, e.Name())
			note(kp)
			if e.IsDir() {
				if err := noteTree(kp); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var walk func(rel string) error
	walk = func(rel string) error {
		ents, err := hostTree{u.layer}.ReadDir(path.Join(ur.Upper, rel))
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := path.Join(rel, e.Name())
			up := path.Join(ur.Upper, p)
			fi, err := u.layer.Lstat(up)
			if err != nil {
				return err
			}
			lfi, lerr := lower.Lstat(p)
			lowerDir := lerr == nil && lfi.IsDir()
			replaced := func() error {
				note(p)
				if lowerDir {
					return noteTree(p)
				}
				return nil
			}
			switch {
			case isWhiteout(fi):
				if err := replaced(); err != nil {
					return err
				}
				lr.Entries = append(lr.Entries, Entry{Path: p, Kind: "gone"})
			case fi.IsDir():
				e := Entry{Path: p, Kind: "dir", Mode: fi.Mode() & modeBits}
				e.Opaque = !lowerDir || isOpaque(filepath.Join(u.dir, up))
				switch {
				case e.Opaque:
					if err := replaced(); err != nil {
						return err
					}
					lr.Entries = append(lr.Entries, e)
				case lfi.Mode()&modeBits != e.Mode:
					note(p)
					e.Own = true
					lr.Entries = append(lr.Entries, e)
				}
				if err := walk(p); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				if u.total += fi.Size(); u.max > 0 && u.total > u.max {
					return ErrWriteBudget{Max: u.max}
				}
				u.seq++
				data := "f" + strconv.Itoa(u.seq)
				if err := u.layer.Rename(up, data); err != nil {
					return err
				}
				if err := replaced(); err != nil {
					return err
				}
				lr.Entries = append(lr.Entries, Entry{Path: p, Kind: "file", Mode: fi.Mode() & modeBits, Data: data})
			case fi.Mode()&fs.ModeSymlink != 0:
				target, err := u.layer.Readlink(up)
				if err != nil {
					return err
				}
				if err := replaced(); err != nil {
					return err
				}
				lr.Entries = append(lr.Entries, Entry{Path: p, Kind: "symlink", Target: target})
			default:
				return fmt.Errorf("%s is a %v: review mode holds files, directories and links only", path.Join(ur.Root.Path, p), fi.Mode().Type())
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return lr, err
	}
	sort.Slice(lr.Base, func(i, j int) bool { return lr.Base[i].Path < lr.Base[j].Path })
	return lr, nil
}

// hashIn is the digest of a regular file of r ("" when it cannot be read).
func hashIn(r *os.Root, p string) string {
	f, err := r.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
