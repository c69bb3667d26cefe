//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSpecialFilesAreNotOpened: a FIFO (or socket) left in a root by a native tool, an
// allowlisted command or the host is refused at once, for reading, writing and listing, instead
// of blocking the call's goroutine in open(2) beyond its timeout.
func TestSpecialFilesAreNotOpened(t *testing.T) {
	l := newLayout(t)
	fifo := filepath.Join(l.rw, "fifo")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(l.rw, "sock")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	os.Symlink("fifo", filepath.Join(l.rw, "fifo-link"))
	type op struct {
		name string
		do   func() error
	}
	open := func(p string, flag int) func() error {
		return func() error {
			f, err := l.fs.Open(p, flag, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		}
	}
	var ops []op
	for _, p := range []string{fifo, sock, filepath.Join(l.rw, "fifo-link")} {
		ops = append(ops,
			op{"read " + filepath.Base(p), open(p, os.O_RDONLY)},
			op{"write " + filepath.Base(p), open(p, os.O_WRONLY|os.O_TRUNC)},
			op{"append " + filepath.Base(p), open(p, os.O_WRONLY|os.O_APPEND)},
			op{"read-write " + filepath.Base(p), open(p, os.O_RDWR)},
			op{"list " + filepath.Base(p), func() error { _, err := l.fs.ReadDir(p); return err }},
		)
	}
	for _, tc := range ops {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.do() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("opened")
				}
				if !strings.HasPrefix(tc.name, "list") && Reason(err) != specialReason {
					t.Errorf("err %v, reason %q; want %q", err, Reason(err), specialReason)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("blocked in open") // the goroutine stays blocked: the test binary leaks it
			}
		})
	}
	// Regular files and directories still open, with O_NONBLOCK harmless on them.
	if b, err := l.fs.ReadFile(filepath.Join(l.rw, "file.txt")); err != nil || string(b) != "hello" {
		t.Errorf("read = %q, %v", b, err)
	}
	if ents, err := l.fs.ReadDir(l.rw); err != nil || len(ents) == 0 {
		t.Errorf("list = %v, %v", ents, err)
	}
	if err := l.fs.WriteFile(filepath.Join(l.rw, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Error(err)
	}
}
