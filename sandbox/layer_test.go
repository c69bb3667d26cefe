package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

type reviewed struct {
	root, layer string
	fs          *FS
	before      map[string]string
}

// newReviewed is a root holding a.txt, sub/b.txt, sub/deep/c.txt and a link, and an FS over it
// in review mode.
func newReviewed(t *testing.T, limits Limits) *reviewed {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	r := &reviewed{root: filepath.Join(base, "root"), layer: filepath.Join(base, "layer")}
	for _, d := range []string{r.root, r.layer, filepath.Join(r.root, "sub", "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(r.root, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(r.root, "sub", "b.txt"), []byte("beta\n"), 0o644)
	os.WriteFile(filepath.Join(r.root, "sub", "deep", "c.txt"), []byte("gamma\n"), 0o600)
	os.Symlink("a.txt", filepath.Join(r.root, "to-a"))
	r.before = harness.Tree(t, r.root)
	var err error
	r.fs, err = NewFS(Policy{Roots: []Root{{Path: r.root, Mode: ReadWrite}}, Layer: r.layer, Limits: limits}, Scratch{}, &Record{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.fs.Close()
		if d := harness.TreeDiff(r.before, harness.Tree(t, r.root)); d != "" {
			t.Errorf("the root changed in review mode:\n%s", d)
		}
	})
	return r
}

func (r *reviewed) p(rel string) string { return filepath.Join(r.root, rel) }

func (r *reviewed) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := r.fs.ReadFile(r.p(rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func (r *reviewed) names(t *testing.T, rel string) []string {
	t.Helper()
	ents, err := r.fs.ReadDir(r.p(rel))
	if err != nil {
		t.Fatalf("list %s: %v", rel, err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func (r *reviewed) gone(t *testing.T, rel string) {
	t.Helper()
	if _, err := r.fs.Lstat(r.p(rel)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: want not exist, got %v", rel, err)
	}
}

func (r *reviewed) entries(t *testing.T) map[string]Entry {
	t.Helper()
	m := r.fs.Review()
	out := map[string]Entry{}
	for _, root := range m.Roots {
		if root.Path != r.root {
			t.Fatalf("manifest root %s", root.Path)
		}
		for _, e := range root.Entries {
			out[e.Path] = e
		}
	}
	return out
}

func (r *reviewed) data(t *testing.T, e Entry) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.layer, e.Data))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLayerOwnWrites: each kind of write is seen by the call's own reads, listings and stats,
// never by the root, and the manifest says what changed.
func TestLayerOwnWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(t *testing.T, r *reviewed)
	}{
		{"create", func(t *testing.T, r *reviewed) {
			if err := r.fs.WriteFile(r.p("new.txt"), []byte("fresh"), 0o640); err != nil {
				t.Fatal(err)
			}
			if got := r.read(t, "new.txt"); got != "fresh" {
				t.Fatalf("read %q", got)
			}
			if !slices.Contains(r.names(t, "."), "new.txt") {
				t.Fatal("not listed")
			}
			fi, err := r.fs.Stat(r.p("new.txt"))
			if err != nil || fi.Size() != 5 || fi.Mode().Perm() != 0o640&^processUmask() || !fi.Mode().IsRegular() {
				t.Fatalf("stat %v %v", fi, err)
			}
			e := r.entries(t)["new.txt"]
			if e.Kind != "file" || r.data(t, e) != "fresh" {
				t.Fatalf("manifest %+v", e)
			}
		}},
		{"exclusive create of an existing file", func(t *testing.T, r *reviewed) {
			if _, err := r.fs.Open(r.p("a.txt"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("want EEXIST, got %v", err)
			}
		}},
		{"append", func(t *testing.T, r *reviewed) {
			f, err := r.fs.Open(r.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("more\n"))
			f.Close()
			if got := r.read(t, "a.txt"); got != "alpha\nmore\n" {
				t.Fatalf("read %q", got)
			}
			// Through the link too.
			if got := r.read(t, "to-a"); got != "alpha\nmore\n" {
				t.Fatalf("read via link %q", got)
			}
			e := r.entries(t)["a.txt"]
			if e.Kind != "file" || r.data(t, e) != "alpha\nmore\n" || e.Mode != 0o644 {
				t.Fatalf("manifest %+v", e)
			}
		}},
		{"write through a link", func(t *testing.T, r *reviewed) {
			if err := r.fs.WriteFile(r.p("to-a"), []byte("via link"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := r.read(t, "a.txt"); got != "via link" {
				t.Fatalf("read %q", got)
			}
			if target, _ := r.fs.Readlink(r.p("to-a")); target != "a.txt" {
				t.Fatalf("link now %q", target)
			}
		}},
		{"truncate", func(t *testing.T, r *reviewed) {
			f, err := r.fs.Open(r.p("sub/b.txt"), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if got := r.read(t, "sub/b.txt"); got != "" {
				t.Fatalf("read %q", got)
			}
			fi, _ := r.fs.Stat(r.p("sub/b.txt"))
			if fi.Size() != 0 {
				t.Fatalf("size %d", fi.Size())
			}
		}},
		{"truncate to a length", func(t *testing.T, r *reviewed) {
			f, err := r.fs.Open(r.p("a.txt"), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.(interface{ Truncate(int64) error }).Truncate(3); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if got := r.read(t, "a.txt"); got != "alp" {
				t.Fatalf("read %q", got)
			}
		}},
		{"rename a file", func(t *testing.T, r *reviewed) {
			if err := r.fs.Rename(r.p("a.txt"), r.p("sub/moved.txt")); err != nil {
				t.Fatal(err)
			}
			r.gone(t, "a.txt")
			if got := r.read(t, "sub/moved.txt"); got != "alpha\n" {
				t.Fatalf("read %q", got)
			}
			if names := r.names(t, "sub"); !slices.Equal(names, []string{"b.txt", "deep", "moved.txt"}) {
				t.Fatalf("list %v", names)
			}
			es := r.entries(t)
			if es["a.txt"].Kind != "gone" || es["sub/moved.txt"].Origin != "a.txt" || es["sub/moved.txt"].Data != "" {
				t.Fatalf("manifest %+v", es)
			}
			// Writing the moved file copies it then.
			r.fs.WriteFile(r.p("sub/moved.txt"), []byte("edited"), 0)
			if got := r.read(t, "sub/moved.txt"); got != "edited" {
				t.Fatalf("read %q", got)
			}
		}},
		{"rename over a file", func(t *testing.T, r *reviewed) {
			if err := r.fs.Rename(r.p("a.txt"), r.p("sub/b.txt")); err != nil {
				t.Fatal(err)
			}
			if got := r.read(t, "sub/b.txt"); got != "alpha\n" {
				t.Fatalf("read %q", got)
			}
			r.gone(t, "a.txt")
		}},
		{"rename a directory", func(t *testing.T, r *reviewed) {
			if err := r.fs.Rename(r.p("sub"), r.p("moved")); err != nil {
				t.Fatal(err)
			}
			r.gone(t, "sub")
			r.gone(t, "sub/b.txt")
			if got := r.read(t, "moved/deep/c.txt"); got != "gamma\n" {
				t.Fatalf("read %q", got)
			}
			if names := r.names(t, "."); !slices.Equal(names, []string{"a.txt", "moved", "to-a"}) {
				t.Fatalf("list %v", names)
			}
			fi, _ := r.fs.Stat(r.p("moved/deep/c.txt"))
			if fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v", fi.Mode())
			}
			// A file made in the old name's place is new.
			if err := r.fs.Mkdir(r.p("sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if names := r.names(t, "sub"); len(names) != 0 {
				t.Fatalf("old entries show in the new directory: %v", names)
			}
		}},
		{"swap two files", func(t *testing.T, r *reviewed) {
			r.fs.WriteFile(r.p("x"), []byte("X"), 0o644)
			r.fs.WriteFile(r.p("y"), []byte("Y"), 0o644)
			r.fs.Rename(r.p("x"), r.p("t"))
			r.fs.Rename(r.p("y"), r.p("x"))
			r.fs.Rename(r.p("t"), r.p("y"))
			if r.read(t, "x") != "Y" || r.read(t, "y") != "X" {
				t.Fatal("swap")
			}
		}},
		{"rename into itself", func(t *testing.T, r *reviewed) {
			if err := r.fs.Rename(r.p("sub"), r.p("sub/deep/x")); !errors.Is(err, syscall.EINVAL) {
				t.Fatalf("want EINVAL, got %v", err)
			}
		}},
		{"rename a directory over a non-empty one", func(t *testing.T, r *reviewed) {
			r.fs.Mkdir(r.p("other"), 0o755)
			if err := r.fs.Rename(r.p("other"), r.p("sub")); !errors.Is(err, syscall.ENOTEMPTY) {
				t.Fatalf("want ENOTEMPTY, got %v", err)
			}
		}},
		{"delete a file", func(t *testing.T, r *reviewed) {
			if err := r.fs.Remove(r.p("sub/b.txt")); err != nil {
				t.Fatal(err)
			}
			r.gone(t, "sub/b.txt")
			if names := r.names(t, "sub"); !slices.Equal(names, []string{"deep"}) {
				t.Fatalf("list %v", names)
			}
			if _, err := r.fs.ReadFile(r.p("sub/b.txt")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("read %v", err)
			}
			if e := r.entries(t)["sub/b.txt"]; e.Kind != "gone" {
				t.Fatalf("manifest %+v", e)
			}
			// Made again, it is a change.
			r.fs.WriteFile(r.p("sub/b.txt"), []byte("again"), 0o644)
			if got := r.read(t, "sub/b.txt"); got != "again" {
				t.Fatalf("read %q", got)
			}
		}},
		{"delete a non-empty directory", func(t *testing.T, r *reviewed) {
			if err := r.fs.Remove(r.p("sub")); !errors.Is(err, syscall.ENOTEMPTY) {
				t.Fatalf("want ENOTEMPTY, got %v", err)
			}
			if err := r.fs.RemoveAll(r.p("sub")); err != nil {
				t.Fatal(err)
			}
			r.gone(t, "sub")
			r.gone(t, "sub/deep/c.txt")
			var bases []string
			for _, root := range r.fs.Review().Roots {
				for _, b := range root.Base {
					bases = append(bases, b.Path)
				}
			}
			for _, want := range []string{"sub", "sub/b.txt", "sub/deep", "sub/deep/c.txt"} {
				if !slices.Contains(bases, want) {
					t.Fatalf("base lacks %s: %v", want, bases)
				}
			}
		}},
		{"delete what the call made", func(t *testing.T, r *reviewed) {
			r.fs.MkdirAll(r.p("n/m"), 0o755)
			r.fs.WriteFile(r.p("n/m/f"), []byte("x"), 0o644)
			if err := r.fs.RemoveAll(r.p("n")); err != nil {
				t.Fatal(err)
			}
			r.gone(t, "n")
			if es := r.entries(t); len(es) != 0 {
				t.Fatalf("manifest holds %v", es)
			}
		}},
		{"mkdir", func(t *testing.T, r *reviewed) {
			if err := r.fs.Mkdir(r.p("d"), 0o750); err != nil {
				t.Fatal(err)
			}
			if err := r.fs.Mkdir(r.p("d"), 0o750); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("second mkdir: %v", err)
			}
			fi, err := r.fs.Stat(r.p("d"))
			if err != nil || !fi.IsDir() {
				t.Fatalf("stat %v %v", fi, err)
			}
			if err := r.fs.MkdirAll(r.p("d/e/f"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.fs.WriteFile(r.p("d/e/f/g"), []byte("g"), 0o644)
			if names := r.names(t, "d/e"); !slices.Equal(names, []string{"f"}) {
				t.Fatalf("list %v", names)
			}
			if err := r.fs.Mkdir(r.p("nope/x"), 0o755); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("mkdir without parent: %v", err)
			}
			if err := r.fs.Mkdir(r.p("a.txt/x"), 0o755); !errors.Is(err, syscall.ENOTDIR) {
				t.Fatalf("mkdir under a file: %v", err)
			}
			e := r.entries(t)["d"]
			if e.Kind != "dir" || !e.Opaque {
				t.Fatalf("manifest %+v", e)
			}
		}},
		{"chmod", func(t *testing.T, r *reviewed) {
			if err := r.fs.Chmod(r.p("a.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
			fi, _ := r.fs.Stat(r.p("a.txt"))
			if fi.Mode().Perm() != 0o755 {
				t.Fatalf("mode %v", fi.Mode())
			}
			if err := r.fs.Access(r.p("a.txt"), AccessExec); err != nil {
				t.Fatalf("test -x: %v", err)
			}
			if got := r.read(t, "a.txt"); got != "alpha\n" {
				t.Fatalf("content %q", got)
			}
			e := r.entries(t)["a.txt"]
			if e.Origin != "a.txt" || e.Data != "" || e.Mode != 0o755 {
				t.Fatalf("manifest %+v", e)
			}
			if err := r.fs.Chmod(r.p("sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			fi, _ = r.fs.Stat(r.p("sub"))
			if fi.Mode().Perm() != 0o700 || !fi.IsDir() {
				t.Fatalf("dir mode %v", fi.Mode())
			}
			if names := r.names(t, "sub"); !slices.Equal(names, []string{"b.txt", "deep"}) {
				t.Fatalf("list %v", names)
			}
			if e := r.entries(t)["sub"]; !e.Own || e.Opaque || e.Mode != 0o700 {
				t.Fatalf("manifest %+v", e)
			}
		}},
		{"chtimes", func(t *testing.T, r *reviewed) {
			when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			if err := r.fs.Chtimes(r.p("a.txt"), when, when); err != nil {
				t.Fatal(err)
			}
			fi, _ := r.fs.Stat(r.p("a.txt"))
			if !fi.ModTime().Equal(when) {
				t.Fatalf("mtime %v", fi.ModTime())
			}
		}},
		{"symlink", func(t *testing.T, r *reviewed) {
			if err := r.fs.Symlink("sub/b.txt", r.p("to-b")); err != nil {
				t.Fatal(err)
			}
			if got := r.read(t, "to-b"); got != "beta\n" {
				t.Fatalf("read via new link %q", got)
			}
			if target, _ := r.fs.Readlink(r.p("to-b")); target != "sub/b.txt" {
				t.Fatalf("readlink %q", target)
			}
			fi, _ := r.fs.Lstat(r.p("to-b"))
			if fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("lstat %v", fi.Mode())
			}
			// A link to a directory the call made, and a write through it.
			r.fs.Mkdir(r.p("made"), 0o755)
			if err := r.fs.Symlink("made", r.p("to-made")); err != nil {
				t.Fatal(err)
			}
			r.fs.WriteFile(r.p("to-made/f"), []byte("in made"), 0o644)
			if got := r.read(t, "made/f"); got != "in made" {
				t.Fatalf("read %q", got)
			}
			// Links may not leave the root, in the layer as on the host.
			if err := r.fs.Symlink("../../etc/passwd", r.p("escape")); err == nil {
				t.Fatal("escaping link was made")
			}
			if e := r.entries(t)["to-b"]; e.Kind != "symlink" || e.Target != "sub/b.txt" {
				t.Fatalf("manifest %+v", e)
			}
		}},
		{"a dangling link is created through", func(t *testing.T, r *reviewed) {
			r.fs.Symlink("later.txt", r.p("to-later"))
			if err := r.fs.WriteFile(r.p("to-later"), []byte("L"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := r.read(t, "later.txt"); got != "L" {
				t.Fatalf("read %q", got)
			}
		}},
		{"read-only opens do not copy", func(t *testing.T, r *reviewed) {
			r.read(t, "a.txt")
			r.names(t, "sub")
			if es := r.entries(t); len(es) != 0 {
				t.Fatalf("manifest %v", es)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.do(t, newReviewed(t, Limits{}))
		})
	}
}

// TestLayerBudget: the bytes the layer holds, copies included, count against the call's write
// budget.
func TestLayerBudget(t *testing.T) {
	r := newReviewed(t, Limits{MaxBytesWritten: 8})
	// a.txt is 6 bytes: copying it up leaves 2.
	f, err := r.fs.Open(r.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("xx")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("y")); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("want EDQUOT past the budget, got %v", err)
	}
	if _, err := r.fs.Open(r.p("sub/b.txt"), os.O_WRONLY|os.O_APPEND, 0); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("want EDQUOT copying past the budget, got %v", err)
	}
}

// TestLayerBase: what the root held is recorded at first touch, with the digest of what the
// call read.
func TestLayerBase(t *testing.T) {
	r := newReviewed(t, Limits{})
	r.fs.WriteFile(r.p("a.txt"), []byte("x"), 0)                        // truncated: not read
	f, _ := r.fs.Open(r.p("sub/b.txt"), os.O_WRONLY|os.O_APPEND, 0o644) // read
	f.Close()
	r.fs.WriteFile(r.p("new"), nil, 0o644)
	bases := map[string]Base{}
	for _, root := range r.fs.Review().Roots {
		for _, b := range root.Base {
			bases[b.Path] = b
		}
	}
	sum := sha256.Sum256([]byte("beta\n"))
	if b := bases["sub/b.txt"]; !b.Exists || b.Kind != "file" || b.Size != 5 || b.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("base of b.txt %+v", b)
	}
	if b := bases["a.txt"]; !b.Exists || b.SHA256 != "" {
		t.Fatalf("base of a.txt %+v", b)
	}
	if b, ok := bases["new"]; !ok || b.Exists {
		t.Fatalf("base of new %+v", b)
	}
	fi, _ := os.Lstat(r.p("sub/b.txt"))
	if now := BaseOf(fi); !bases["sub/b.txt"].Same(now) {
		t.Fatalf("unchanged file differs: %+v %+v", bases["sub/b.txt"], now)
	}
}

// TestLayerProtected: protected project paths stay refused in review mode, and scratch writes
// stay direct.
func TestLayerProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, layer, scratch := filepath.Join(base, "p"), filepath.Join(base, "l"), filepath.Join(base, "s")
	for _, d := range []string{filepath.Join(root, "tools"), layer} {
		os.MkdirAll(d, 0o755)
	}
	f, err := NewFS(Policy{Roots: []Root{{Path: root, Mode: ReadWrite}, {Path: filepath.Join(root, "tools"), Mode: ReadOnly, Protected: true}},
		Layer: layer}, Scratch{Path: scratch, Create: func() error { return os.Mkdir(scratch, 0o700) }}, &Record{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.WriteFile(filepath.Join(root, "tools", "x"), []byte("x"), 0o644); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("protected write: %v", err)
	}
	if err := f.Rename(filepath.Join(root, "tools"), filepath.Join(root, "t2")); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("protected rename: %v", err)
	}
	if err := f.WriteFile(filepath.Join(scratch, "tmp"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(scratch, "tmp")); err != nil || string(b) != "x" {
		t.Fatalf("scratch is not direct: %q %v", b, err)
	}
	if !f.Review().Empty() {
		t.Fatalf("manifest %+v", f.Review())
	}
}

// TestLayerDirFile: a directory of the layer opened as a file lists the merged view.
func TestLayerDirFile(t *testing.T) {
	r := newReviewed(t, Limits{})
	r.fs.Mkdir(r.p("nd"), 0o755)
	r.fs.WriteFile(r.p("nd/one"), nil, 0o644)
	r.fs.WriteFile(r.p("sub/two"), nil, 0o644)
	for dir, want := range map[string][]string{"nd": {"one"}, "sub": {"b.txt", "deep", "two"}} {
		d, err := r.fs.Open(r.p(dir), os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := d.Stat()
		if err != nil || !fi.IsDir() {
			t.Fatalf("stat %v %v", fi, err)
		}
		ents, err := d.ReadDir(-1)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if !slices.Equal(names, want) {
			t.Fatalf("%s lists %v", dir, names)
		}
	}
	if _, err := r.fs.Open(r.p("nd"), os.O_WRONLY, 0); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("write-open of a dir: %v", err)
	}
}

// TestLayerManyFiles: many files written and read back stay distinct.
func TestLayerManyFiles(t *testing.T) {
	r := newReviewed(t, Limits{})
	for i := range 200 {
		name := fmt.Sprintf("sub/deep/f%03d", i)
		if err := r.fs.WriteFile(r.p(name), []byte(strings.Repeat("z", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		f, err := r.fs.Open(r.p(fmt.Sprintf("sub/deep/f%03d", i)), os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if len(b) != i {
			t.Fatalf("f%03d holds %d bytes", i, len(b))
		}
	}
	if n := len(r.names(t, "sub/deep")); n != 201 {
		t.Fatalf("listed %d", n)
	}
}
