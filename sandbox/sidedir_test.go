package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSideDirNeverFollows (T-FS-8): what a tool plants in its side-file directory (symlinks to
// host files, FIFOs, oversized files, a symlink where the server writes) never makes the
// server read, block on, or write anything but a regular file of that directory.
func TestSideDirNeverFollows(t *testing.T) {
	needPlantedLinks(t)
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("CANARY"), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(secret, filepath.Join(dir, "abs-link")))
	must(os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(dir, "rel-link")))
	must(os.WriteFile(filepath.Join(dir, "inside"), []byte("ok"), 0o600))
	must(os.Symlink("inside", filepath.Join(dir, "in-link")))
	fifo, err := mkfifo(filepath.Join(dir, "fifo"))
	must(err)
	must(os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2048), 0o600))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	d, err := OpenSideDir(dir)
	must(err)
	defer d.Close()

	for _, tc := range []struct {
		name string
		want error
	}{
		{"abs-link", ErrNotRegular}, {"rel-link", ErrNotRegular}, {"in-link", ErrNotRegular},
		{"fifo", ErrNotRegular}, {"sub", ErrNotRegular}, {"big", ErrSideFileTooLarge},
		{"missing", fs.ErrNotExist}, {"../" + filepath.Base(outside) + "/secret.txt", fs.ErrInvalid},
		{"..", fs.ErrInvalid}, {"", fs.ErrInvalid},
	} {
		if tc.name == "fifo" && !fifo {
			continue // no FIFOs on this platform
		}
		data, err := d.ReadFile(tc.name, 1024)
		if !errors.Is(err, tc.want) || len(data) != 0 {
			t.Errorf("ReadFile(%q) = %q, %v; want error %v", tc.name, data, err, tc.want)
		}
	}
	if data, err := d.ReadFile("inside", 1024); err != nil || string(data) != "ok" {
		t.Errorf("ReadFile(inside) = %q, %v", data, err)
	}

	// Writing where a link was planted replaces the link, never its target.
	must(os.Symlink(secret, filepath.Join(dir, "answer")))
	must(d.WriteFile("answer", []byte("reply")))
	must(os.Symlink(secret, filepath.Join(dir, "cancelled")))
	must(d.Create("cancelled"))
	if b, _ := os.ReadFile(secret); string(b) != "CANARY" {
		t.Fatalf("the secret was overwritten: %q", b)
	}
	for _, n := range []string{"answer", "cancelled"} {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a regular file now: %v %v", n, fi, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "answer")); string(b) != "reply" {
		t.Errorf("answer = %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// Removing a link removes the link.
	must(d.Remove("abs-link"))
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the link's target went: %v", err)
	}
	if d.Exists("abs-link") || !d.Exists("rel-link") {
		t.Error("Exists is wrong")
	}
	// The directory itself must not be a symlink.
	link := filepath.Join(t.TempDir(), "dirlink")
	must(os.Symlink(outside, link))
	if _, err := OpenSideDir(link); err == nil {
		t.Error("OpenSideDir followed a symlink")
	}
}
