package eval

import (
	"errors"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"syscall"
)

// ofile is an open file description: what a file descriptor refers to. Duplicated
// descriptors (dup, subshells) share it; it is closed when the last one goes.
type ofile struct {
	refs atomic.Int32
	r    io.Reader
	w    io.Writer
	c    io.Closer
	// onEPIPE runs when a write finds the pipe's reader gone (the writer's SIGPIPE).
	onEPIPE func()

	// rbuf[rpos:] holds bytes read ahead by `read`/`mapfile` and not consumed: the next
	// reader of this description gets them first, as bash's lseek back on a regular file.
	mu   sync.Mutex
	rbuf []byte
	rpos int
}

func newOfile(r io.Reader, w io.Writer, c io.Closer) *ofile {
	f := &ofile{r: r, w: w, c: c}
	f.refs.Store(1)
	return f
}

func (f *ofile) ref() *ofile {
	f.refs.Add(1)
	return f
}

func (f *ofile) release() {
	if f.refs.Add(-1) == 0 && f.c != nil {
		_ = f.c.Close()
	}
}

var errBadFD = syscall.EBADF

func (f *ofile) Read(p []byte) (int, error) {
	f.mu.Lock()
	if f.rpos < len(f.rbuf) {
		n := copy(p, f.rbuf[f.rpos:])
		f.rpos += n
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	if f.r == nil {
		return 0, errBadFD
	}
	return f.r.Read(p)
}

func (f *ofile) Write(p []byte) (int, error) {
	if f.w == nil {
		return 0, errBadFD
	}
	f.mu.Lock()
	if unread := len(f.rbuf) - f.rpos; unread > 0 {
		// A read-write description (<>): bash's offset is just after what read consumed, so
		// the write lands there. Give the read-ahead back to the file first.
		if sk, ok := f.w.(io.Seeker); ok {
			if _, err := sk.Seek(int64(-unread), io.SeekCurrent); err == nil {
				f.rbuf, f.rpos = f.rbuf[:0], 0
			}
		}
	}
	f.mu.Unlock()
	n, err := f.w.Write(p)
	if err != nil && errors.Is(err, syscall.EPIPE) && f.onEPIPE != nil {
		f.onEPIPE()
	}
	return n, err
}

func (f *ofile) readable() bool { return f.r != nil }
func (f *ofile) writable() bool { return f.w != nil }

// nopCloser marks descriptions the shell must never close (the run's own stdio).
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

type nullFile struct{}

func (nullFile) Read([]byte) (int, error)    { return 0, io.EOF }
func (nullFile) Write(p []byte) (int, error) { return len(p), nil }

// fdTable maps descriptor numbers to open files. It belongs to one shell; subshells get a
// copy (dup).
type fdTable struct {
	lo [10]*ofile
	hi map[int]*ofile
}

func newFdTable(stdin io.Reader, stdout, stderr io.Writer) *fdTable {
	t := &fdTable{}
	if stdin == nil {
		stdin = emptyReader{}
	}
	t.lo[0] = newOfile(stdin, nil, nil)
	t.lo[1], t.lo[2] = outFile(stdout), outFile(stderr)
	return t
}

// outFile is an output descriptor over w. A shell's own descriptor (a child script's output
// is its caller's) is shared by reference, as a process inherits it: a job the child leaves
// running holds the caller's pipe open, so its reader waits for the job's output.
func outFile(w io.Writer) *ofile {
	switch fw := w.(type) {
	case nil:
		return nil
	case fdWriter:
		if fw.f != nil {
			return fw.f.ref()
		}
	}
	return newOfile(nil, w, nil)
}

func (t *fdTable) get(n int) *ofile {
	if n >= 0 && n < 10 {
		return t.lo[n]
	}
	return t.hi[n]
}

// set puts f at n (taking over the caller's reference), releasing what was there.
func (t *fdTable) set(n int, f *ofile) {
	var old *ofile
	if n >= 0 && n < 10 {
		old, t.lo[n] = t.lo[n], f
	} else {
		old = t.hi[n]
		if f == nil {
			delete(t.hi, n)
		} else {
			if t.hi == nil {
				t.hi = map[int]*ofile{}
			}
			t.hi[n] = f
		}
	}
	if old != nil {
		old.release()
	}
}

func (t *fdTable) count() int {
	n := len(t.hi)
	for _, f := range t.lo {
		if f != nil {
			n++
		}
	}
	return n
}

// dup copies the table, each description gaining a reference.
func (t *fdTable) dup() *fdTable {
	n := &fdTable{lo: t.lo}
	for _, f := range n.lo {
		if f != nil {
			f.ref()
		}
	}
	if len(t.hi) > 0 {
		n.hi = make(map[int]*ofile, len(t.hi))
		for k, f := range t.hi {
			n.hi[k] = f.ref()
		}
	}
	return n
}

func (t *fdTable) closeAll() {
	for i, f := range t.lo {
		if f != nil {
			t.lo[i] = nil
			f.release()
		}
	}
	for k, f := range t.hi {
		delete(t.hi, k)
		f.release()
	}
}

// lowestFree finds the lowest free descriptor >= from ({var}> allocation starts at 10).
func (t *fdTable) lowestFree(from int) int {
	for n := from; ; n++ {
		if t.get(n) == nil {
			return n
		}
	}
}

// stdout and friends are the shell's current standard streams.
func (r *Runner) stdout() io.Writer { return fdWriter{r.fds.get(1)} }
func (r *Runner) stderr() io.Writer { return fdWriter{r.fds.get(2)} }
func (r *Runner) stdin() io.Reader  { return fdReader{r.fds.get(0)} }

// fdWriter writes to a descriptor that may be closed (nil): writes then fail with EBADF.
type fdWriter struct{ f *ofile }

func (w fdWriter) Write(p []byte) (int, error) {
	if w.f == nil {
		return 0, errBadFD
	}
	return w.f.Write(p)
}

type fdReader struct{ f *ofile }

// Stat describes the file a descriptor reads, when it reads one (wc's width counts a regular
// standard input's size, as GNU's does); a pipe, a device or a closed descriptor has none.
func (r fdReader) Stat() (fs.FileInfo, error) {
	if r.f == nil {
		return nil, fs.ErrInvalid
	}
	src := r.f.r
	for src != nil {
		switch x := src.(type) {
		case *ofile:
			if x == nil {
				return nil, fs.ErrInvalid
			}
			src = x.r
		case interface{ Stat() (fs.FileInfo, error) }:
			return x.Stat()
		default:
			src = nil
		}
	}
	return nil, fs.ErrInvalid
}

func (r fdReader) Read(p []byte) (int, error) {
	if r.f == nil {
		return 0, errBadFD
	}
	return r.f.Read(p)
}
