package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// layout: base/{rw,ro,outside}; rw has a file, a planted symlink to outside and one to a
// sibling dir outside; outside holds a secret.
type layout struct {
	base, rw, ro, outside, secret string
	fs                            *FS
	rec                           *Record
}

func newLayout(t *testing.T) *layout {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	l := &layout{base: base, rw: filepath.Join(base, "rw"), ro: filepath.Join(base, "ro"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{l.rw, l.ro, l.outside, filepath.Join(l.rw, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l.secret = filepath.Join(l.outside, "secret")
	os.WriteFile(l.secret, []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(l.rw, "file.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(l.ro, "ro.txt"), []byte("readonly"), 0o755)
	os.Symlink(l.secret, filepath.Join(l.rw, "abs-link"))
	os.Symlink("../outside/secret", filepath.Join(l.rw, "rel-link"))
	os.Symlink(l.outside, filepath.Join(l.rw, "dir-link"))
	os.Symlink("file.txt", filepath.Join(l.rw, "ok-link"))
	l.rec = &Record{}
	var err error
	l.fs, err = NewFS(Policy{Roots: []Root{{Path: l.rw, Mode: ReadWrite}, {Path: l.ro, Mode: ReadOnly}}}, Scratch{}, l.rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.fs.Close() })
	return l
}

func TestReadConfinement(t *testing.T) {
	l := newLayout(t)
	for _, tc := range []struct {
		name, path string
		want       string // content, or "" for an error wrapping fs.ErrNotExist
	}{
		{"inside", filepath.Join(l.rw, "file.txt"), "hello"},
		{"relative symlink inside", filepath.Join(l.rw, "ok-link"), "hello"},
		{"read-only root", filepath.Join(l.ro, "ro.txt"), "readonly"},
		{"outside absolute", l.secret, ""},
		{"dotdot lexical escape", filepath.Join(l.rw, "..", "outside", "secret"), ""},
		{"dotdot inside then out", l.rw + "/sub/../../outside/secret", ""},
		{"absolute symlink out", filepath.Join(l.rw, "abs-link"), ""},
		{"relative symlink out", filepath.Join(l.rw, "rel-link"), ""},
		{"symlinked dir out", filepath.Join(l.rw, "dir-link", "secret"), ""},
		{"etc passwd", "/etc/passwd", ""},
		{"proc", "/proc/self/environ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "symlink") || strings.Contains(tc.name, "link out") {
				needPlantedLinks(t)
			}
			data, err := l.fs.ReadFile(tc.path)
			if tc.want == "" {
				if err == nil || !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("read %s = %q, %v; want not-exist", tc.path, data, err)
				}
				return
			}
			if err != nil || string(data) != tc.want {
				t.Fatalf("read %s = %q, %v", tc.path, data, err)
			}
		})
	}
	if _, err := l.fs.Open("relative/path", os.O_RDONLY, 0); err == nil {
		t.Error("relative path accepted")
	}
}

// TestNoSetIDBits: setuid and setgid are refused by Chmod and dropped from a new file's or
// directory's mode (a server running as root would leave a setuid-root program in a root);
// the sticky bit and plain modes pass.
func TestNoSetIDBits(t *testing.T) {
	l := newLayout(t)
	f := filepath.Join(l.rw, "prog")
	if err := l.fs.WriteFile(f, []byte("#!/bin/sh\n"), 0o755|fs.ModeSetuid|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(l.rw, "dir")
	if err := l.fs.Mkdir(d, 0o755|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	if err := l.fs.MkdirAll(filepath.Join(l.rw, "a", "b"), 0o755|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode fs.FileMode
		ok   bool
	}{
		{0o4755 | fs.ModeSetuid, false}, {0o755 | fs.ModeSetgid, false}, {0o755 | fs.ModeSetuid | fs.ModeSetgid, false},
		{0o755 | fs.ModeSticky, true}, {0o700, true},
	} {
		err := l.fs.Chmod(f, tc.mode)
		if (err == nil) != tc.ok || !tc.ok && !errors.Is(err, fs.ErrPermission) {
			t.Errorf("chmod %v: %v", tc.mode, err)
		}
	}
	for _, p := range []string{f, d, filepath.Join(l.rw, "a"), filepath.Join(l.rw, "a", "b")} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			t.Errorf("%s: %v %v", p, fi.Mode(), err)
		}
	}
}

func TestWritesNeedReadWriteRoot(t *testing.T) {
	l := newLayout(t)
	ro := filepath.Join(l.ro, "ro.txt")
	out := filepath.Join(l.outside, "new")
	for _, tc := range []struct {
		name string
		op   func() error
		perm bool // expect fs.ErrPermission (else fs.ErrNotExist)
	}{
		{"open for write on ro", func() error { _, err := l.fs.Open(ro, os.O_WRONLY, 0); return err }, true},
		{"create on ro", func() error { return l.fs.WriteFile(filepath.Join(l.ro, "n"), nil, 0o644) }, true},
		{"append on ro", func() error { _, err := l.fs.Open(ro, os.O_APPEND|os.O_WRONLY, 0); return err }, true},
		{"mkdir on ro", func() error { return l.fs.Mkdir(filepath.Join(l.ro, "d"), 0o755) }, true},
		{"remove on ro", func() error { return l.fs.Remove(ro) }, true},
		{"chmod on ro", func() error { return l.fs.Chmod(ro, 0o777) }, true},
		{"rename from ro", func() error { return l.fs.Rename(ro, filepath.Join(l.rw, "x")) }, true},
		{"symlink on ro", func() error { return l.fs.Symlink("ro.txt", filepath.Join(l.ro, "l")) }, true},
		{"write outside", func() error { return l.fs.WriteFile(out, []byte("x"), 0o644) }, false},
		{"mkdir outside", func() error { return l.fs.MkdirAll(out, 0o755) }, false},
		// A directory on the way to a root is shown read-only: creating in it is refused as such.
		{"create beside roots", func() error { return l.fs.WriteFile(filepath.Join(l.base, "x"), nil, 0o644) }, true},
		{"open ancestor for write", func() error { _, err := l.fs.Open(l.base, os.O_WRONLY, 0); return err }, true},
		{"mkdir in ancestor", func() error { return l.fs.Mkdir(l.base, 0o755) }, true},
		{"remove a root", func() error { return l.fs.RemoveAll(l.rw) }, true},
		{"write through symlink out", func() error { return l.fs.WriteFile(filepath.Join(l.rw, "abs-link"), []byte("x"), 0o644) }, false},
		{"create through dir link out", func() error { return l.fs.WriteFile(filepath.Join(l.rw, "dir-link", "new"), []byte("x"), 0o644) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "link") {
				needPlantedLinks(t)
			}
			err := tc.op()
			want := fs.ErrNotExist
			if tc.perm {
				want = fs.ErrPermission
			}
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
		})
	}
	if b, _ := os.ReadFile(l.secret); string(b) != "SECRET" {
		t.Fatal("secret modified")
	}
	if ents, _ := os.ReadDir(l.outside); len(ents) != 1 {
		t.Fatalf("outside dir changed: %v", ents)
	}
	// Writes inside a read-write root work.
	p := filepath.Join(l.rw, "sub", "new.txt")
	if err := l.fs.WriteFile(p, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.fs.Rename(p, filepath.Join(l.rw, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	if err := l.fs.Rename(filepath.Join(l.rw, "moved.txt"), filepath.Join(l.ro, "x")); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("rename into ro: %v", err)
	}
}

func TestRenameAcrossRoots(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	os.WriteFile(filepath.Join(a, "f"), nil, 0o644)
	f, err := NewFS(Policy{Roots: []Root{{Path: a, Mode: ReadWrite}, {Path: b, Mode: ReadWrite}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Rename(filepath.Join(a, "f"), filepath.Join(b, "f")); !errors.Is(err, syscall.EXDEV) {
		t.Fatalf("err = %v, want EXDEV", err)
	}
}

func TestSymlinkTargetsMustStayInside(t *testing.T) {
	needSandboxLinks(t)
	l := newLayout(t)
	for _, tc := range []struct {
		target string
		ok     bool
	}{
		// "sub/../file.txt" means file.txt today, but sub may later become a link (links.go).
		{"file.txt", true}, {"sub/../file.txt", false}, {l.rw + "/file.txt", true}, {l.ro + "/ro.txt", false},
		{l.secret, false}, {"../outside/secret", false}, {"/etc/passwd", false}, {"../../../../../../etc", false},
	} {
		link := filepath.Join(l.rw, "link-"+strings.NewReplacer("/", "_", ".", "d").Replace(tc.target))
		err := l.fs.Symlink(tc.target, link)
		if (err == nil) != tc.ok {
			t.Errorf("symlink %q: err = %v, want ok=%v", tc.target, err, tc.ok)
		}
	}
}

func TestAncestorsShowOnlyTheWayToRoots(t *testing.T) {
	l := newLayout(t)
	ents, err := l.fs.ReadDir(l.base)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "ro,rw" {
		t.Errorf("listing of the parent = %v (outside must not show)", names)
	}
	// / holds the way to the roots, and the virtual /dev and /tmp.
	want := []string{strings.Split(strings.TrimPrefix(ShellPath(l.base), "/"), "/")[0], "dev", "tmp"}
	slices.Sort(want)
	want = slices.Compact(want)
	ents, _ = l.fs.ReadDir("/")
	names = nil
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, want) {
		t.Errorf("listing of / = %v, want %v", names, want)
	}
	if fi, err := l.fs.Stat(l.base); err != nil || !fi.IsDir() {
		t.Errorf("stat ancestor: %v %v", fi, err)
	}
	if _, err := l.fs.ReadDir(l.outside); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("outside listing: %v", err)
	}
}

// TestDevices checks the virtual memory devices: what they read and write, and that they
// stat, list and refuse removal as Linux's character devices 1,N would for the sandbox.
func TestDevices(t *testing.T) {
	l := newLayout(t)
	for _, tc := range []struct {
		path     string
		minor    uint32
		read     string // "" EOF, "zero", "random"
		writeErr error
	}{
		{"/dev/null", 3, "", nil},
		{"/dev/zero", 5, "zero", nil},
		{"/dev/full", 7, "zero", syscall.ENOSPC},
		{"/dev/random", 8, "random", nil},
		{"/dev/urandom", 9, "random", nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			f, err := l.fs.Open(tc.path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if n, err := f.Write([]byte("discard")); !errors.Is(err, tc.writeErr) || (err == nil && n != 7) {
				t.Errorf("write: %d %v, want %v", n, err, tc.writeErr)
			}
			buf := bytes.Repeat([]byte{0xaa}, 64)
			n, err := f.Read(buf)
			switch tc.read {
			case "":
				if n != 0 || err != io.EOF {
					t.Errorf("read: %d %v, want EOF", n, err)
				}
			case "zero":
				if n != 64 || err != nil || !bytes.Equal(buf, make([]byte, 64)) {
					t.Errorf("read: %d %v %x", n, err, buf)
				}
			case "random":
				if n != 64 || err != nil || bytes.Equal(buf, bytes.Repeat([]byte{0xaa}, 64)) || bytes.Equal(buf, make([]byte, 64)) {
					t.Errorf("read: %d %v %x", n, err, buf)
				}
			}
			fi, err := l.fs.Stat(tc.path)
			if err != nil || fi.Mode() != fs.ModeDevice|fs.ModeCharDevice|0o666 || fi.Name() != path.Base(tc.path) {
				t.Fatalf("stat: %v %v", fi, err)
			}
			if major, minor := DeviceNumbers(fi); major != 1 || minor != tc.minor {
				t.Errorf("rdev %d,%d", major, minor)
			}
			if err := l.fs.Access(tc.path, AccessRead|AccessWrite); err != nil {
				t.Errorf("access: %v", err)
			}
			if err := l.fs.Remove(tc.path); !errors.Is(err, fs.ErrPermission) {
				t.Errorf("remove: %v", err)
			}
		})
	}
	ents, err := l.fs.ReadDir("/dev")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Type() != fs.ModeDevice|fs.ModeCharDevice {
			t.Errorf("%s: type %v", e.Name(), e.Type())
		}
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "full null random urandom zero" {
		t.Errorf("/dev lists %v", names)
	}
	if _, err := l.fs.Stat("/dev/sda"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("/dev/sda visible: %v", err)
	}
}

// TestTmpIsStickyAndRefused checks /tmp: there as on every host (sticky, world-writable mode),
// and writes to it refused, with test -w saying so.
func TestTmpIsStickyAndRefused(t *testing.T) {
	l := newLayout(t)
	fi, err := l.fs.Stat("/tmp")
	if err != nil || fi.Mode() != fs.ModeDir|fs.ModeSticky|0o777 {
		t.Fatalf("stat /tmp: %v %v", fi, err)
	}
	if err := l.fs.Access("/tmp", AccessWrite); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("access -w /tmp: %v", err)
	}
	if _, err := l.fs.Open("/tmp/x", os.O_CREATE|os.O_WRONLY, 0o644); !errors.Is(err, fs.ErrPermission) || Reason(err) != "outside the roots" {
		t.Errorf("create /tmp/x: %v", err)
	}
	if fi, err := l.fs.Stat("/var"); err == nil {
		t.Errorf("/var visible: %v", fi)
	}
}

func TestAccess(t *testing.T) {
	l := newLayout(t)
	os.WriteFile(filepath.Join(l.rw, "noperm"), nil, 0o000)
	// Windows has no execute bits (a file is executable when it starts as a program does, as
	// Git-Bash decides) and mode 0 is the read-only attribute: readable, not writable (but
	// Wine running as root writes it anyway, as root does on Unix: no open check there).
	win := runtime.GOOS == "windows"
	for _, tc := range []struct {
		path string
		mode uint32
		ok   bool
	}{
		{filepath.Join(l.rw, "file.txt"), AccessRead, true},
		{filepath.Join(l.rw, "file.txt"), AccessWrite, true},
		{filepath.Join(l.rw, "file.txt"), AccessExec, false},
		{filepath.Join(l.ro, "ro.txt"), AccessRead, true},
		{filepath.Join(l.ro, "ro.txt"), AccessExec, !win},
		{filepath.Join(l.ro, "ro.txt"), AccessWrite, false},
		// What opening it does: root reads and writes whatever the mode, executes on an x bit.
		{filepath.Join(l.rw, "noperm"), AccessRead, os.Geteuid() == 0 || win},
		{filepath.Join(l.rw, "noperm"), AccessWrite, os.Geteuid() == 0},
		{filepath.Join(l.rw, "noperm"), AccessExec, false},
		{filepath.Join(l.rw, "sub"), AccessExec | AccessWrite, true},
		{l.secret, AccessRead, false},
		{DevNull, AccessWrite, true},
	} {
		if err := l.fs.Access(tc.path, tc.mode); (err == nil) != tc.ok {
			t.Errorf("access(%s, %d) = %v, want ok=%v", tc.path, tc.mode, err, tc.ok)
		}
		// test -r/-w must predict what opening the file does.
		if win && underWine() && strings.HasSuffix(tc.path, "noperm") {
			continue
		}
		if flag := map[uint32]int{AccessRead: os.O_RDONLY, AccessWrite: os.O_WRONLY | os.O_APPEND}[tc.mode]; tc.mode != AccessExec && tc.mode&(tc.mode-1) == 0 {
			f, err := l.fs.Open(tc.path, flag, 0)
			if err == nil {
				f.Close()
			}
			if (err == nil) != tc.ok {
				t.Errorf("open(%s, %d) = %v, but access says ok=%v", tc.path, tc.mode, err, tc.ok)
			}
		}
	}
}

func TestRecord(t *testing.T) {
	l := newLayout(t)
	l.fs.ReadFile(filepath.Join(l.rw, "file.txt"))
	l.fs.ReadFile(l.secret)
	l.fs.WriteFile(filepath.Join(l.ro, "n"), nil, 0o644)
	l.fs.ReadDir(l.rw)
	// A file missing inside a root is no refusal (bash: No such file or directory), for a
	// read or a write into a missing directory (a stat is not recorded); outside the roots it is one.
	if _, err := l.fs.ReadFile(filepath.Join(l.rw, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a missing file: %v", err)
	}
	l.fs.WriteFile(filepath.Join(l.rw, "nodir", "f"), nil, 0o644)
	l.fs.ReadFile("/nonexistent-outside/x")
	entries, _ := l.rec.Entries()
	var got []string
	for _, e := range entries {
		got = append(got, e.Op+" "+filepath.Base(e.Path)+" "+map[bool]string{true: "allowed", false: "denied"}[e.Allowed]+" "+e.Reason)
	}
	want := []string{"read file.txt allowed ", "read secret denied outside the roots", "write n denied read-only root", "list rw allowed ",
		"read missing allowed not found", "write f allowed not found", "read x denied outside the roots"}
	if !slices.Equal(got, want) {
		t.Errorf("record:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := Refusals(entries); n != 3 {
		t.Errorf("%d refusals, want 3 (a missing file is none)", n)
	}
	var nilRec *Record
	nilRec.Add(Access{})
}

// TestRecordKeepsWhatMatters (issue 27): reads are capped, never a write, a refusal or a
// command; repeats are counted on one entry; a call that would make the record drop one of
// those is ended instead.
func TestRecordKeepsWhatMatters(t *testing.T) {
	var r Record
	full := 0
	r.OnFull(func(error) { full++ })
	for i := range maxReadEntries + 500 {
		r.Add(Access{Op: "read", Path: fmt.Sprint("f", i), Allowed: true})
	}
	for range 1000 {
		r.Add(Access{Op: "read", Path: "/etc/passwd", Allowed: false, Reason: "outside the roots"})
	}
	r.Add(Access{Op: "write", Path: "out", Allowed: true})
	r.Add(Access{Op: "exec", Path: "curl", Allowed: false, Reason: "not allowed"})
	entries, truncated := r.Entries()
	if truncated != 500 || len(entries) != maxReadEntries+3 {
		t.Fatalf("%d entries, %d reads left out; want %d and 500", len(entries), truncated, maxReadEntries+3)
	}
	last := entries[len(entries)-3:]
	if last[0].Count != 1000 || last[1].Op != "write" || last[2].Op != "exec" || Refusals(entries) != 1001 {
		t.Errorf("kept entries %+v, %d refusals; want the refused read ×1000, the write, the command", last, Refusals(entries))
	}
	for i := range MaxKeptEntries {
		r.Add(Access{Op: "write", Path: fmt.Sprint("w", i), Allowed: true})
	}
	if full != 1 {
		t.Errorf("the record passed its bound %d times before ending the call, want once", full)
	}
}

func TestLazyScratch(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	work := filepath.Join(base, "work")
	created := 0
	f, err := NewFS(Policy{}, Scratch{Path: work, Create: func() error { created++; return os.Mkdir(work, 0o700) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Fatal("scratch created before use")
	}
	if err := f.WriteFile(filepath.Join(work, "x"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.ReadFile(filepath.Join(work, "x"))
	if created != 1 {
		t.Errorf("created %d times", created)
	}
}

func TestBaseEnvHasNothingFromTheHost(t *testing.T) {
	t.Setenv("MCPBASH_CANARY_ENV", "leak-me")
	env := BaseEnv("/h", "/t", map[string]string{"EXTRA": "1"})
	joined := strings.Join(env, "\n")
	if strings.Contains(joined, "leak-me") || (os.Getenv("HOME") != "" && strings.Contains(joined, os.Getenv("HOME")+"\n")) {
		t.Fatalf("host env leaked: %s", joined)
	}
	for k, want := range map[string]string{"HOME": "/h", "TMPDIR": "/t", "USER": VirtualUser, "UID": VirtualUID, "EXTRA": "1", "PATH": VirtualPath} {
		if v, _ := Lookup(env, k); v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if v, _ := Lookup(BaseEnv("/h", "/t", map[string]string{"HOME": "/override"}), "HOME"); v != "/override" {
		t.Errorf("extra does not override: %q", v)
	}
}

func TestScratchBase(t *testing.T) {
	if got := ScratchBase("/custom"); got != "/custom" {
		t.Errorf("explicit base: %s", got)
	}
	if got := ScratchBase(""); got == "" {
		t.Error("empty default base")
	}
}

func TestNestedRootsCannotBeRemoved(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	outer, nested := filepath.Join(base, "a"), filepath.Join(base, "a", "sub", "nested")
	os.MkdirAll(nested, 0o755)
	f, err := NewFS(Policy{Roots: []Root{{Path: outer, Mode: ReadWrite}, {Path: nested, Mode: ReadOnly}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.RemoveAll(filepath.Join(outer, "sub")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("RemoveAll over a nested root: %v", err)
	}
	if err := f.Rename(filepath.Join(outer, "sub"), filepath.Join(outer, "moved")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Rename of a nested root's parent: %v", err)
	}
	if _, err := os.Stat(nested); err != nil {
		t.Fatalf("nested root gone: %v", err)
	}
	if _, err := NewFS(Policy{Roots: []Root{{Path: "relative"}}}, Scratch{}, nil); err == nil {
		t.Error("relative root accepted")
	}
}

func TestAbsoluteSymlinkInsideRootWorks(t *testing.T) {
	needSandboxLinks(t)
	l := newLayout(t)
	link := filepath.Join(l.rw, "sub", "abs")
	if err := l.fs.Symlink(filepath.Join(l.rw, "file.txt"), link); err != nil {
		t.Fatal(err)
	}
	if data, err := l.fs.ReadFile(link); err != nil || string(data) != "hello" {
		t.Fatalf("read through link: %q %v", data, err)
	}
	if err := l.fs.Symlink(filepath.Join(l.ro, "ro.txt"), filepath.Join(l.rw, "cross")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("cross-root link: %v", err)
	}
}

// TestNestedReadOnlyRootsHoldAgainstSymlinks (T-FS-5): a read-only root inside a read-write one
// (a project's tools/ inside the project root) cannot be written through any path of the outer
// root: not lexically, not through a link the operator left there, and no new links are made.
func TestNestedReadOnlyRootsHoldAgainstSymlinks(t *testing.T) {
	needPlantedLinks(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj, tools := filepath.Join(base, "proj"), filepath.Join(base, "proj", "tools")
	meta := filepath.Join(tools, "t", "tool.meta.json")
	os.MkdirAll(filepath.Join(tools, "t"), 0o755)
	os.MkdirAll(filepath.Join(proj, "data", "deep"), 0o755)
	os.WriteFile(meta, []byte("{}"), 0o644)
	// Links an operator left in the project: straight into tools, to the project itself, and a
	// relative one that means tools only after a rename.
	os.Symlink("tools", filepath.Join(proj, "to-tools"))
	os.Symlink(".", filepath.Join(proj, "self"))
	os.Symlink("../tools", filepath.Join(proj, "data", "deep", "later"))
	f, err := NewFS(Policy{Roots: []Root{{Path: proj, Mode: ReadWrite}, {Path: tools, Mode: ReadOnly}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	denied := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: %v, want permission denied", what, err)
		}
	}
	denied("lexical write", f.WriteFile(meta, []byte("x"), 0o644))
	denied("write through a link to tools", f.WriteFile(filepath.Join(proj, "to-tools", "t", "tool.meta.json"), []byte("x"), 0o644))
	denied("write through a link to the project", f.WriteFile(filepath.Join(proj, "self", "tools", "t", "tool.meta.json"), []byte("x"), 0o644))
	denied("new tool through a link", f.WriteFile(filepath.Join(proj, "self", "tools", "evil.sh"), []byte("x"), 0o755))
	denied("mkdir through a link", f.MkdirAll(filepath.Join(proj, "to-tools", "evil"), 0o755))
	denied("chmod through a link", f.Chmod(filepath.Join(proj, "self", "tools", "t", "tool.meta.json"), 0o777))
	denied("remove through a link", f.RemoveAll(filepath.Join(proj, "self", "tools", "t")))
	denied("rename through a link", f.Rename(filepath.Join(proj, "self", "tools"), filepath.Join(proj, "gone")))
	denied("new link", f.Symlink("data", filepath.Join(proj, "mine")))
	// The relative link means proj/tools once its directory moves up a level.
	if err := f.Rename(filepath.Join(proj, "data", "deep"), filepath.Join(proj, "moved")); err != nil {
		t.Fatalf("rename in the project: %v", err)
	}
	denied("write through a renamed link", f.WriteFile(filepath.Join(proj, "moved", "later", "t", "tool.meta.json"), []byte("x"), 0o644))
	if data, _ := os.ReadFile(meta); string(data) != "{}" {
		t.Fatalf("meta changed: %q", data)
	}
	// Everything else in the project stays writable.
	if err := f.WriteFile(filepath.Join(proj, "data", "out.txt"), []byte("ok"), 0o644); err != nil {
		t.Errorf("ordinary write: %v", err)
	}
	if err := f.WriteFile(filepath.Join(proj, "self", "data", "out2.txt"), []byte("ok"), 0o644); err != nil {
		t.Errorf("write through a link that stays outside tools: %v", err)
	}
	if data, err := f.ReadFile(filepath.Join(proj, "to-tools", "t", "tool.meta.json")); err != nil || string(data) != "{}" {
		t.Errorf("reads through links still work: %q %v", data, err)
	}
}

// Roots open on first use. One first touched after Close (a background job of a script that
// outlived its call) must fail with an error, not reach a nil *os.Root, and a missing root is
// still dropped up front.
func TestRootsOpenLazilyAndNotAfterClose(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	os.WriteFile(filepath.Join(a, "f"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(b, "f"), []byte("y"), 0o644)
	f, err := NewFS(Policy{Roots: []Root{{Path: a, Mode: ReadWrite}, {Path: b, Mode: ReadOnly},
		{Path: filepath.Join(base, "missing"), Mode: ReadOnly}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Roots()) != 2 {
		t.Errorf("roots %v: the missing one should be dropped", f.Roots())
	}
	if data, err := f.ReadFile(filepath.Join(a, "f")); err != nil || string(data) != "x" {
		t.Fatalf("read before Close: %q %v", data, err)
	}
	f.Close()
	if _, err := f.ReadFile(filepath.Join(b, "f")); err == nil {
		t.Error("a root first opened after Close was readable")
	}
	if err := f.WriteFile(filepath.Join(b, "g"), []byte("z"), 0o644); err == nil {
		t.Error("write after Close succeeded")
	}
	if _, err := NewFS(Policy{Roots: []Root{{Path: filepath.Join(a, "f"), Mode: ReadOnly}}}, Scratch{}, nil); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("a file as root: %v, want ENOTDIR", err)
	}
}

// TestProtectedRootThatDoesNotExistYet: a protected root is mounted even when its directory is
// missing, so a tool cannot create it (config/roots.json would widen later calls' roots).
func TestProtectedRootThatDoesNotExistYet(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(base, "proj")
	os.MkdirAll(proj, 0o755)
	cfg := filepath.Join(proj, "config")
	f, err := NewFS(Policy{Roots: []Root{{Path: proj, Mode: ReadWrite}, {Path: cfg, Mode: ReadOnly, Protected: true}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Mkdir(cfg, 0o755); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("mkdir of a protected root: %v", err)
	}
	if err := f.WriteFile(filepath.Join(cfg, "roots.json"), []byte("{}"), 0o644); err == nil {
		t.Error("wrote into a protected root that does not exist")
	}
	if _, err := f.Stat(cfg); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat: %v", err)
	}
	if _, err := os.Stat(cfg); err == nil {
		t.Fatal("config/ was created")
	}
	if err := f.WriteFile(filepath.Join(proj, "notes.txt"), []byte("ok"), 0o644); err != nil {
		t.Errorf("ordinary write: %v", err)
	}
}

// TestHiddenEntriesProtected (T-FS-5): a HiddenEntries root keeps every hidden entry of the
// project, existing or new, read-only inside a read-write root; other hidden names stay writable.
func TestHiddenEntriesProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(base, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.MkdirAll(filepath.Join(proj, "data"), 0o755)
	os.WriteFile(filepath.Join(proj, ".git", "config"), []byte("orig"), 0o644)
	f, err := NewFS(Policy{Roots: []Root{{Path: proj, Mode: ReadWrite},
		{Path: filepath.Join(proj, HiddenEntries), Mode: ReadOnly, Protected: true}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"git config", f.WriteFile(filepath.Join(proj, ".git", "config"), []byte("x"), 0o644)},
		{"new hidden file", f.WriteFile(filepath.Join(proj, ".envrc"), []byte("x"), 0o644)},
		{"new hidden dir", f.MkdirAll(filepath.Join(proj, ".github", "workflows"), 0o755)},
		{"rename into a hidden name", f.Rename(filepath.Join(proj, "data"), filepath.Join(proj, ".data"))},
		{"remove .git", f.RemoveAll(filepath.Join(proj, ".git"))},
		{"rename .git away", f.Rename(filepath.Join(proj, ".git"), filepath.Join(proj, "data", "g"))},
	} {
		if !errors.Is(tc.err, fs.ErrPermission) {
			t.Errorf("%s: %v, want permission denied", tc.name, tc.err)
		}
	}
	if b, err := f.ReadFile(filepath.Join(proj, ".git", "config")); err != nil || string(b) != "orig" {
		t.Errorf("read .git/config: %q %v", b, err)
	}
	if err := f.WriteFile(filepath.Join(proj, "data", ".hidden"), []byte("ok"), 0o644); err != nil {
		t.Errorf("a hidden name deeper in the project: %v", err)
	}
}

// TestShownPrograms checks the programs a call runs by name: in /usr/bin and /bin, execute-only
// (reading and writing refused), listed there, and nothing else appears.
func TestShownPrograms(t *testing.T) {
	l := newLayout(t)
	l.fs.ShowPrograms([]string{"jq", "sed"}, []string{"sed", "git"})
	for _, p := range []string{"/usr/bin/jq", "/bin/sed"} {
		fi, err := l.fs.Stat(p)
		if err != nil || fi.Mode() != 0o111 || !fi.Mode().IsRegular() || fi.Name() != path.Base(p) {
			t.Fatalf("stat %s: %v %v", p, fi, err)
		}
		if err := l.fs.Access(p, AccessExec); err != nil {
			t.Errorf("access -x %s: %v", p, err)
		}
		if err := l.fs.Access(p, AccessRead); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("access -r %s: %v", p, err)
		}
		if _, err := l.fs.Open(p, os.O_RDONLY, 0); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("open %s: %v", p, err)
		}
		if err := l.fs.Remove(p); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("remove %s: %v", p, err)
		}
	}
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/jq", "/usr/sed"} {
		if _, err := l.fs.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s visible: %v", p, err)
		}
	}
	if err := l.fs.WriteFile("/usr/bin/new", nil, 0o755); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("create in /usr/bin: %v", err)
	}
	for dir, want := range map[string]string{"/usr/bin": "git jq sed", "/bin": "git jq sed", "/usr": "bin"} {
		ents, err := l.fs.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != want {
			t.Errorf("%s lists %v, want %s", dir, names, want)
		}
	}
	if fi, err := l.fs.Stat("/usr/bin"); err != nil || !fi.IsDir() {
		t.Errorf("stat /usr/bin: %v %v", fi, err)
	}
}

// TestRootReplacedBySymlink: a root (vetted at its physical path) whose path later leads
// through a symlink, the root itself or a directory above it swapped for a link (by a native
// tool, an allowlisted command, a checkout), is refused when a call opens it, never followed
// to what the link names.
func TestRootReplacedBySymlink(t *testing.T) {
	needPlantedLinks(t)
	for _, swap := range []string{"root", "parent"} {
		t.Run(swap, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			root := filepath.Join(base, "p", "root")
			outside := filepath.Join(base, "outside")
			for _, d := range []string{root, filepath.Join(outside, "root")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(root, "in.txt"), []byte("in"), 0o644)
			os.WriteFile(filepath.Join(outside, "root", "in.txt"), []byte("SECRET"), 0o644)
			open := func() ([]byte, error) {
				f, err := NewFS(Policy{Roots: []Root{{Path: root, Mode: ReadWrite}}}, Scratch{}, &Record{})
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return f.ReadFile(filepath.Join(root, "in.txt"))
			}
			if b, err := open(); err != nil || string(b) != "in" {
				t.Fatalf("before: %q %v", b, err)
			}
			moved, link := root, outside+"/root"
			if swap == "parent" {
				moved, link = filepath.Dir(root), outside
			}
			if err := os.Rename(moved, moved+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(link, moved); err != nil {
				t.Fatal(err)
			}
			b, err := open()
			if err == nil || string(b) == "SECRET" || !strings.Contains(Reason(err), "replaced by a symlink") {
				t.Errorf("after the swap: %q %v (reason %q)", b, err, Reason(err))
			}
		})
	}
}

// TestRealPathDotDotAfterLinks: ".." is the parent of where the links before it lead, as
// realpath(3) has it (cd -P link/..), not a lexical step back.
func TestRealPathDotDotAfterLinks(t *testing.T) {
	needPlantedLinks(t)
	l := newLayout(t)
	if err := os.MkdirAll(filepath.Join(l.rw, "r", "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.FromSlash("r/s"), filepath.Join(l.rw, "ls")); err != nil {
		t.Fatal(err)
	}
	rw := ShellPath(l.rw) // the paths scripts use (/c/... on Windows)
	for _, tc := range []struct{ in, want string }{
		{rw + "/ls/..", rw + "/r"},
		{rw + "/ls/../s/.", rw + "/r/s"},
		{rw + "/sub/..", rw},
		{rw + "/ok-link", rw + "/file.txt"},
	} {
		got, err := l.fs.RealPath(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("RealPath(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := l.fs.RealPath(rw + "/dir-link/.."); err == nil {
		t.Errorf("RealPath through a link leaving the roots succeeded")
	}
}

// TestPrepareRootsSameMounts: roots prepared once (PrepareRoots) mount exactly as the same
// roots given raw, cleaned by NewFS on every call: paths, host paths, modes and the protected
// directories nested in a read-write root (T-FS-5).
func TestPrepareRootsSameMounts(t *testing.T) {
	proj := t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		roots []Root
		err   bool
	}{
		{"unclean project root with protected dirs", []Root{
			{Path: proj + "/./", Mode: ReadWrite},
			{Path: filepath.Join(proj, "tools") + "/", Mode: ReadOnly, Protected: true},
			{Path: filepath.Join(proj, "server.d"), Mode: ReadOnly, Protected: true},
			{Path: filepath.Join(proj, HiddenEntries), Mode: ReadOnly, Protected: true},
		}, false},
		// The prepared nested lists are for the whole list: a call whose mounts differ
		// (a root missing, a root given twice) computes its own.
		{"missing read-only root inside the project root", []Root{
			{Path: proj, Mode: ReadWrite},
			{Path: filepath.Join(proj, "missing"), Mode: ReadOnly},
			{Path: filepath.Join(proj, "tools"), Mode: ReadOnly, Protected: true},
		}, false},
		{"read-only root given read-write too", []Root{
			{Path: proj, Mode: ReadWrite},
			{Path: filepath.Join(proj, "tools"), Mode: ReadOnly},
			{Path: filepath.Join(proj, "tools"), Mode: ReadWrite},
		}, false},
		{"read-only root", []Root{{Path: proj + "/tools/..", Mode: ReadOnly}}, false},
		{"relative root", []Root{{Path: "relative"}}, true},
	} {
		type view struct {
			Path, host string
			Mode       Mode
			nested     string
		}
		mounts := func(roots []Root) ([]view, error) {
			f, err := NewFS(Policy{Roots: roots}, Scratch{}, nil)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			var out []view
			for _, m := range f.mounts {
				out = append(out, view{m.Path, m.host, m.Mode, strings.Join(m.nested, ",")})
			}
			return out, nil
		}
		raw, err1 := mounts(tc.roots)
		prep, err2 := mounts(PrepareRoots(tc.roots))
		if (err1 != nil) != tc.err || (err2 != nil) != tc.err {
			t.Errorf("%s: errors %v, %v; want error %v", tc.name, err1, err2, tc.err)
			continue
		}
		if !slices.Equal(raw, prep) {
			t.Errorf("%s: prepared %v, raw %v", tc.name, prep, raw)
		}
		if tc.name == "unclean project root with protected dirs" && (len(raw) != 4 || raw[len(raw)-1].nested == "") {
			t.Errorf("%s: want 4 mounts, the protected ones nested in the project root: %v", tc.name, raw)
		}
	}
}

// TestNewFSToolDirOutsideRoots: a tool directory no root covers gets a read-only mount of its
// own beside the roots and the scratch (the mount array is sized for roots and scratch only).
func TestNewFSToolDirOutsideRoots(t *testing.T) {
	root, tool, scratch := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "s")
	f, err := NewFS(Policy{Roots: []Root{{Path: root, Mode: ReadWrite}}, ToolDir: tool}, Scratch{Path: scratch, Create: func() error { return os.Mkdir(scratch, 0o700) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]Mode{}
	seen := map[*mount]bool{}
	for _, m := range f.mounts {
		got[m.host] = m.Mode
		seen[m] = true
	}
	want := map[string]Mode{root: ReadWrite, tool: ReadOnly, scratch: ReadWrite}
	if len(seen) != 3 || len(got) != 3 || got[root] != want[root] || got[tool] != want[tool] || got[scratch] != want[scratch] {
		t.Errorf("mounts %v (%d distinct), want %v", got, len(seen), want)
	}
	if err := f.WriteFile(ShellPath(filepath.Join(tool, "x")), []byte("x"), 0o644); err == nil {
		t.Error("wrote into the read-only tool directory")
	}
}

// TestPreparedRootsNoStateAcrossCalls: calls over the same prepared roots share the mounts'
// layout and nothing else. One call opens its roots, writes, fills its access record and write
// budget, and runs in review mode; the next call over the same roots starts with no root
// opened, an empty record, its own budget, direct writes, and the layout unchanged. A call
// whose duplicate root upgrades a mount to read-write does so in its own copy.
func TestPreparedRootsNoStateAcrossCalls(t *testing.T) {
	proj := t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	ro := t.TempDir()
	roots := PrepareRoots([]Root{
		{Path: proj, Mode: ReadWrite},
		{Path: ro, Mode: ReadOnly},
		{Path: filepath.Join(proj, "tools"), Mode: ReadOnly, Protected: true},
	})
	specs := func(f *FS) map[string]mountSpec {
		out := map[string]mountSpec{}
		for _, m := range f.mounts {
			out[m.Path] = *m.mountSpec
		}
		return out
	}
	rec1 := &Record{}
	f1, err := NewFS(Policy{Roots: roots, Layer: t.TempDir(), Limits: Limits{MaxBytesWritten: 100}}, Scratch{}, rec1)
	if err != nil {
		t.Fatal(err)
	}
	before := specs(f1)
	if err := f1.WriteFile(ShellPath(proj)+"/a", []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f1.ReadDir(ShellPath(ro)); err != nil {
		t.Fatal(err)
	}
	if _, err := f1.ReadDir(ShellPath(proj) + "/tools"); err != nil {
		t.Fatal(err)
	}
	if e, _ := rec1.Entries(); len(e) == 0 {
		t.Fatal("first call recorded no access")
	}
	f1.Close()

	rec2 := &Record{}
	f2, err := NewFS(Policy{Roots: roots, Limits: Limits{MaxBytesWritten: 3}}, Scratch{}, rec2)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if !reflect.DeepEqual(before, specs(f2)) {
		t.Errorf("layout changed by a call: %v, then %v", before, specs(f2))
	}
	for _, m := range f2.mounts {
		if m.opened != nil || m.review != nil {
			t.Errorf("%s: the next call starts with state (opened %v, review %v)", m.Path, m.opened != nil, m.review != nil)
		}
	}
	if e, _ := rec2.Entries(); len(e) != 0 {
		t.Errorf("the next call's record starts with %v", e)
	}
	if f2.layer != nil {
		t.Errorf("the next call runs in the first call's review layer")
	}
	// The first call wrote in review mode: nothing reached the root.
	if _, err := os.Stat(filepath.Join(proj, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the first call's reviewed write reached the root: %v", err)
	}
	// The budget is the second call's own: 3 bytes, none spent by the first call.
	if err := f2.WriteFile(ShellPath(proj)+"/b", []byte("two"), 0o644); err != nil {
		t.Errorf("the next call's write within its own budget: %v", err)
	}
	if err := f2.WriteFile(ShellPath(proj)+"/c", []byte("x"), 0o644); err == nil {
		t.Errorf("the next call wrote past its budget")
	}

	// A duplicate of the read-only root given read-write upgrades this call's mount only.
	f3, err := NewFS(Policy{Roots: append(slices.Clip(roots), PrepareRoots([]Root{{Path: ro, Mode: ReadWrite}})...)}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f3.Close()
	if got := specs(f3)[ShellPath(ro)].Mode; got != ReadWrite {
		t.Errorf("duplicate read-write root: mode %v", got)
	}
	f4, err := NewFS(Policy{Roots: roots}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f4.Close()
	if !reflect.DeepEqual(before, specs(f4)) {
		t.Errorf("an upgrade in one call changed the shared layout: %v", specs(f4))
	}
	for _, f := range []*FS{f2, f4} {
		for _, m := range f.mounts {
			if m.Path == ShellPath(ro) && m.mountSpec != roots[1].spec {
				t.Errorf("the calls over prepared roots do not share the prepared layout")
			}
		}
	}
}

// TestNewFSRootKinds: NewFS's check of each root (statIsDir) keeps os.Stat's answers: a
// directory is mounted, a symlink to one too (stat follows it), a missing root is dropped,
// a root that is a file is an error naming it.
func TestNewFSRootKinds(t *testing.T) {
	base := t.TempDir()
	dir, file, link := filepath.Join(base, "dir"), filepath.Join(base, "file"), filepath.Join(base, "link")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	type rootCase struct {
		root    string
		mounted bool
		err     bool
	}
	cases := []rootCase{
		{dir, true, false},
		{filepath.Join(base, "missing"), false, false},
		{file, false, true},
	}
	// Unix only: the sandbox takes no links on Windows (TestNoLinksOnWindows), and Windows
	// reports a path below a file as not found (ERROR_PATH_NOT_FOUND), where unix says ENOTDIR.
	if runtime.GOOS != "windows" {
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, rootCase{link, true, false},
			rootCase{filepath.Join(file, "below"), false, true}) // ENOTDIR is not "missing"
	}
	for _, tc := range cases {
		f, err := NewFS(Policy{Roots: []Root{{Path: tc.root, Mode: ReadOnly}}}, Scratch{}, nil)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.root) {
				t.Errorf("%s: err %v, want one naming the root", tc.root, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.root, err)
			continue
		}
		if got := len(f.mounts) == 1; got != tc.mounted {
			t.Errorf("%s: mounted %v, want %v", tc.root, got, tc.mounted)
		}
		f.Close()
	}
}
