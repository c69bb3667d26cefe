//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUpperManifest: an overlay's upper directory, as a native tool in review mode leaves it,
// becomes the layer's manifest: new content moves into data files, links stay links, whiteouts
// and opaque directories say what went, and what the root held there is recorded.
func TestUpperManifest(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, layer := filepath.Join(base, "root"), filepath.Join(base, "layer")
	for _, d := range []string{filepath.Join(root, "sub"), filepath.Join(root, "gone-dir", "x"), filepath.Join(layer, "u0", "sub"), filepath.Join(layer, "u0", "gone-dir")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(root, "gone.txt"), []byte("bye\n"), 0o644)
	os.WriteFile(filepath.Join(root, "gone-dir", "x", "f"), []byte("f\n"), 0o644)
	u := filepath.Join(layer, "u0")
	os.WriteFile(filepath.Join(u, "a.txt"), []byte("one\ntwo\n"), 0o600)
	os.WriteFile(filepath.Join(u, "sub", "new.txt"), []byte("new\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(u, "link"))
	// A directory that replaced the root's: opaque.
	if err := unix.Setxattr(filepath.Join(u, "gone-dir"), "user.overlay.opaque", []byte("y"), 0); err != nil {
		t.Fatalf("user xattrs: %v", err)
	}
	whiteouts := os.Geteuid() == 0
	if whiteouts {
		if err := syscall.Mknod(filepath.Join(u, "gone.txt"), syscall.S_IFCHR, 0); err != nil {
			t.Fatal(err)
		}
	}
	m, err := UpperManifest(layer, []UpperRoot{{Root: Root{Path: root, Mode: ReadWrite}, Upper: "u0"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range m.Roots[0].Entries {
		got[e.Path] = e
	}
	if e := got["a.txt"]; e.Kind != "file" || e.Mode != 0o600 || e.Data == "" {
		t.Fatalf("a.txt %+v", e)
	} else if b, _ := os.ReadFile(filepath.Join(layer, e.Data)); string(b) != "one\ntwo\n" {
		t.Fatalf("a.txt data %q", b)
	}
	if e := got["sub/new.txt"]; e.Kind != "file" {
		t.Fatalf("sub/new.txt %+v", e)
	}
	if _, ok := got["sub"]; ok {
		t.Fatal("a directory that only holds new entries is a change of its own")
	}
	if e := got["link"]; e.Kind != "symlink" || e.Target != "a.txt" {
		t.Fatalf("link %+v", e)
	}
	if e := got["gone-dir"]; e.Kind != "dir" || !e.Opaque {
		t.Fatalf("gone-dir %+v", e)
	}
	if whiteouts {
		if e := got["gone.txt"]; e.Kind != "gone" {
			t.Fatalf("gone.txt %+v", e)
		}
	}
	bases := map[string]Base{}
	for _, b := range m.Roots[0].Base {
		bases[b.Path] = b
	}
	if b := bases["a.txt"]; !b.Exists || b.SHA256 == "" {
		t.Fatalf("base of a.txt %+v", b)
	}
	if b := bases["gone-dir/x/f"]; !b.Exists {
		t.Fatalf("what the opaque directory hid is not recorded: %+v", bases)
	}
	// A FIFO the tool left is refused, loudly.
	os.MkdirAll(filepath.Join(layer, "u1"), 0o755)
	syscall.Mkfifo(filepath.Join(layer, "u1", "pipe"), 0o644)
	_, err = UpperManifest(layer, []UpperRoot{{Root: Root{Path: root, Mode: ReadWrite}, Upper: "u1"}}, 0)
	if err == nil || !strings.Contains(err.Error(), "files, directories and links only") {
		t.Fatalf("FIFO: %v", err)
	}
	// The write budget counts new content.
	os.MkdirAll(filepath.Join(layer, "u2"), 0o755)
	os.WriteFile(filepath.Join(layer, "u2", "big"), make([]byte, 100), 0o644)
	_, err = UpperManifest(layer, []UpperRoot{{Root: Root{Path: root, Mode: ReadWrite}, Upper: "u2"}}, 10)
	if !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("budget: %v", err)
	}
}
