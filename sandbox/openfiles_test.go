package sandbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenFileLimit (issue 21, finding 5): a call holds at most Limits.MaxOpenFiles files open;
// the next open is EMFILE, recorded with its reason; closing gives the descriptor back.
func TestOpenFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &Record{}
	f, err := NewFS(Policy{Roots: []Root{{Path: dir, Mode: ReadWrite}}, Limits: Limits{MaxOpenFiles: 4}}, Scratch{}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var held []File
	// Windows cannot remove a directory whose files are open: close them before TempDir's
	// cleanup (a second close is harmless, as the test shows).
	t.Cleanup(func() {
		for _, h := range held {
			h.Close()
		}
	})
	for i := range 4 {
		h, err := f.Open(p, os.O_RDONLY, 0)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		held = append(held, h)
	}
	if _, err := f.Open(p, os.O_RDONLY, 0); !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("fifth open: %v", err)
	}
	if _, err := f.Open(filepath.Join(dir, "new"), os.O_WRONLY|os.O_CREATE, 0o644); !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("fifth open for writing: %v", err)
	}
	// Listing and stat do not hold descriptors.
	if _, err := f.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := rec.Entries()
	found := false
	for _, e := range entries {
		found = found || (!e.Allowed && strings.Contains(e.Reason, "MCPBASH_MAX_OPEN_FILES_PER_CALL"))
	}
	if !found {
		t.Errorf("the refusal is not in the access record: %+v", entries)
	}
	held[0].Close()
	held[0].Close() // a second close gives nothing back twice
	h, err := f.Open(p, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("after a close: %v", err)
	}
	if _, err := f.Open(p, os.O_RDONLY, 0); !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("a double close gave two descriptors back: %v", err)
	}
	h.Close()
	// A failed open gives its reservation back.
	for range 10 {
		if _, err := f.Open(filepath.Join(dir, "missing"), os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if h, err = f.Open(p, os.O_RDONLY, 0); err != nil {
		t.Fatalf("failed opens leaked reservations: %v", err)
	}
	// The file is still a real file underneath for a child process.
	if _, ok := HostReader(h).(*os.File); !ok {
		t.Error("HostReader did not give the *os.File")
	}
	h.Close()
}

// TestWriteBudget: a call's writes through its FS stop at Limits.MaxBytesWritten, whichever way
// they are written, with EDQUOT and one refusal in the record; reads are not counted.
func TestWriteBudget(t *testing.T) {
	dir := t.TempDir()
	rec := &Record{}
	f, err := NewFS(Policy{Roots: []Root{{Path: dir, Mode: ReadWrite}}, Limits: Limits{MaxBytesWritten: 10}}, Scratch{}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := f.Open(filepath.Join(dir, "a"), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := w.Write([]byte("12345678")); n != 8 || err != nil {
		t.Fatalf("write within the budget: %d %v", n, err)
	}
	if _, err := w.Write([]byte("abc")); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("write past the budget: %v, want EDQUOT", err)
	}
	w2, err := f.Open(filepath.Join(dir, "b"), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w2, strings.NewReader("xyz")); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("io.Copy past the budget (another file): %v, want EDQUOT", err)
	}
	if n, err := io.Copy(w2, strings.NewReader("xy")); n != 2 || err != nil {
		t.Fatalf("the last two bytes: %d %v", n, err)
	}
	w.Close()
	w2.Close()
	r, err := f.Open(filepath.Join(dir, "a"), os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); string(b) != "12345678" || err != nil {
		t.Fatalf("read back: %q %v", b, err)
	}
	r.Close()
	refused := 0
	entries, _ := rec.Entries()
	for _, a := range entries {
		if !a.Allowed && a.Reason == "bytes-written limit" {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d bytes-written refusals recorded, want 1", refused)
	}
}
