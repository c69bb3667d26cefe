package sandbox

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// openFiles bounds the files one call holds open through its FS (Limits.MaxOpenFiles): a guest
// or script that opens without closing gets EMFILE from its own budget, long before the
// server's descriptors run out (issue 21: one guest held 19,992 of them).
type openFiles struct {
	max  int64
	open atomic.Int64
}

// ErrTooManyOpenFiles is the EMFILE a call gets at its limit.
type ErrTooManyOpenFiles struct{ Max int64 }

func (e ErrTooManyOpenFiles) Error() string {
	return fmt.Sprintf("too many open files (%d for the call, MCPBASH_MAX_OPEN_FILES_PER_CALL)", e.Max)
}

// Unwrap makes errors.Is(err, syscall.EMFILE) hold.
func (ErrTooManyOpenFiles) Unwrap() error { return syscall.EMFILE }

// take reserves one descriptor, or fails at the limit.
func (o *openFiles) take() error {
	if o.max <= 0 {
		return nil
	}
	if o.open.Add(1) > o.max {
		o.open.Add(-1)
		return ErrTooManyOpenFiles{Max: o.max}
	}
	return nil
}

// track returns the opened file counted until it is closed (or gives the reservation back
// when the open failed); w, when not nil, is the write budget its writes count against.
func (o *openFiles) track(f *os.File, err error, w *writeBudget) File {
	if o.max <= 0 && w == nil {
		if f == nil {
			return nil
		}
		return f
	}
	if err != nil || f == nil {
		if o.max > 0 {
			o.open.Add(-1)
		}
		return nil
	}
	return &countedFile{File: f, o: o, w: w}
}

// countedFile is an open file of the call; closing it gives its descriptor back to the budget.
// Opened for writing under a write budget, its writes count against it (writebudget.go).
type countedFile struct {
	*os.File
	o      *openFiles
	w      *writeBudget
	closed atomic.Bool
}

func (c *countedFile) Close() error {
	if c.closed.CompareAndSwap(false, true) && c.o.max > 0 {
		c.o.open.Add(-1)
	}
	return c.File.Close()
}

// HostReader returns the *os.File behind a reader FS opened, so that a child process gets the
// file itself (seekable, as in bash) rather than a pipe; any other reader is returned as is.
func HostReader(r io.Reader) io.Reader {
	if c, ok := r.(*countedFile); ok {
		return c.File
	}
	return r
}

// HostWriter is HostReader for writers.
func HostWriter(w io.Writer) io.Writer {
	if c, ok := w.(*countedFile); ok {
		return c.File
	}
	return w
}
