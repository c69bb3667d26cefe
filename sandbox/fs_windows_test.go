package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoLinksOnWindows: the sandbox makes no symbolic links on Windows, and says why.
func TestNoLinksOnWindows(t *testing.T) {
	l := newLayout(t)
	err := l.fs.Symlink("file.txt", filepath.Join(l.rw, "link"))
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(Reason(err), "no symbolic links on Windows") {
		t.Fatalf("symlink: %v", err)
	}
}

// TestWindowsPathsInTheSandbox: a script's Windows paths reach what the same slash path does,
// and no spelling of a protected directory (case, separators, a trailing dot) writes it.
func TestWindowsPathsInTheSandbox(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(base, "proj")
	for _, d := range []string{"tools", "data"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(proj, "data", "in.txt"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(base, "outside.txt"), []byte("secret"), 0o644)
	f, err := NewFS(Policy{Roots: []Root{{Path: proj, Mode: ReadWrite},
		{Path: filepath.Join(proj, "tools"), Mode: ReadOnly, Protected: true},
		{Path: filepath.Join(proj, HiddenEntries), Mode: ReadOnly, Protected: true}}}, Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sh := ShellPath(proj)
	for _, p := range []string{filepath.Join(proj, "data", "in.txt"), sh + "/data/in.txt", sh + `/data\in.txt`,
		strings.ToUpper(sh) + "/DATA/IN.TXT", sh + "/data/" + filepath.Join(proj, "data", "in.txt")} {
		if data, err := f.ReadFile(p); err != nil || string(data) != "in" {
			t.Errorf("read %s = %q, %v", p, data, err)
		}
	}
	for _, p := range []string{filepath.Join(base, "outside.txt"), sh + `/..\outside.txt`, sh + "/data/../../outside.txt",
		sh + `/\\server\share\x`, `C:\Windows\win.ini`} {
		if data, err := f.ReadFile(p); err == nil {
			t.Errorf("read %s outside the roots = %q", p, data)
		}
	}
	for _, p := range []string{sh + "/tools/x.sh", sh + "/TOOLS/x.sh", sh + `/Tools\x.sh`, sh + "/tools./x.sh",
		sh + "/tools /x.sh", sh + "/.GIT", sh + "/data/../tools/x.sh", sh + "/data/x:stream", sh + "/data/x::$DATA",
		sh + "/data/CON", sh + "/data/nul.txt", sh + "/Z:x"} {
		if err := f.WriteFile(p, []byte("x"), 0o644); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("write %s: %v, want permission denied", p, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(proj, "tools")); len(ents) != 0 {
		t.Errorf("tools was written: %v", ents)
	}
	if err := f.WriteFile(sh+`/data\new.txt`, []byte("ok"), 0o644); err != nil {
		t.Errorf("write in the root: %v", err)
	}
}
