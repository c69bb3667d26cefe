package sandbox

import (
	"fmt"
	"io"
	"io/fs"
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
func (o *openFiles) track(f File, err error, w *writeBudget) File {
	if err != nil || f == nil {
		if o.max > 0 {
			o.open.Add(-1)
		}
		return nil
	}
	var c *countedFile
	switch f := f.(type) {
	case *os.File:
		c = &countedFile{File: f}
	case *layerFile:
		c = &countedFile{File: f.File, layer: f}
	default:
		// A directory of a review layer holds no descriptor.
		if o.max > 0 {
			o.open.Add(-1)
		}
		return f
	}
	if o.max <= 0 && w == nil && c.layer == nil {
		return c.File
	}
	c.o, c.w = o, w
	return c
}

// countedFile is an open file of the call; closing it gives its descriptor back to the budget.
// Opened for writing under a write budget, its writes count against it (writebudget.go). A
// file of a review layer (layer != nil) shows the layer's name and metadata, not its data
// file's.
type countedFile struct {
	*os.File
	o      *openFiles
	w      *writeBudget
	layer  *layerFile
	closed atomic.Bool
}

// Stat is the layer's view of a layer file, else the file's own.
func (c *countedFile) Stat() (fs.FileInfo, error) {
	if c.layer != nil {
		return c.layer.Stat()
	}
	return c.File.Stat()
}

// Name is the file's name in its root.
func (c *countedFile) Name() string {
	if c.layer != nil {
		return c.layer.Name()
	}
	return c.File.Name()
}

func (c *countedFile) Close() error {
	if c.closed.CompareAndSwap(false, true) && c.o != nil && c.o.max > 0 {
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
