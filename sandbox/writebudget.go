package sandbox

import (
	"fmt"
	"io"
	"sync/atomic"
	"syscall"
)

// writeBudget bounds the bytes one call writes through its FS (Limits.MaxBytesWritten: a hosting
// tenant's bytesWritten). Every file the call opens for writing counts against it, in roots and
// scratch alike; a write past it fails with ErrWriteBudget and nothing of it is written.
type writeBudget struct {
	max  int64
	used atomic.Int64
	// rec gets one refusal the first time the budget stops a write.
	rec *Record
	hit atomic.Bool
	// onHit is told once, the first time (the frame ends the call).
	onHit func(error)
}

// OnWriteLimit sets what happens the first time the call's write budget stops a write.
func (f *FS) OnWriteLimit(fn func(error)) { f.writes.onHit = fn }

// ErrWriteBudget is the error of a write past the call's budget (EDQUOT to errors.Is).
type ErrWriteBudget struct{ Max int64 }

func (e ErrWriteBudget) Error() string {
	return fmt.Sprintf("the call may write at most %d bytes (its tenant's bytesWritten, else MCPBASH_MAX_BYTES_WRITTEN_PER_CALL)", e.Max)
}

// Unwrap makes errors.Is(err, syscall.EDQUOT) hold.
func (ErrWriteBudget) Unwrap() error { return syscall.EDQUOT }

// take reserves n bytes of a write to name, or fails at the limit (reserving nothing).
func (b *writeBudget) take(name string, n int) error {
	if b == nil || b.max <= 0 || n == 0 {
		return nil
	}
	if b.used.Add(int64(n)) > b.max {
		b.used.Add(-int64(n))
		err := ErrWriteBudget{Max: b.max}
		if b.hit.CompareAndSwap(false, true) {
			b.rec.Add(Access{Op: "write", Path: name, Allowed: false, Reason: "bytes-written limit"})
			if b.onHit != nil {
				b.onHit(err)
			}
		}
		return err
	}
	return nil
}

// Write counts p against the call's budget before writing it.
func (c *countedFile) Write(p []byte) (int, error) {
	if err := c.w.take(c.Name(), len(p)); err != nil {
		return 0, err
	}
	return c.File.Write(p)
}

// WriteAt counts as Write does.
func (c *countedFile) WriteAt(p []byte, off int64) (int, error) {
	if err := c.w.take(c.Name(), len(p)); err != nil {
		return 0, err
	}
	return c.File.WriteAt(p, off)
}

// WriteString counts as Write does.
func (c *countedFile) WriteString(s string) (int, error) { return c.Write([]byte(s)) }

// ReadFrom goes through Write when a budget applies (the *os.File's own would bypass it).
func (c *countedFile) ReadFrom(r io.Reader) (int64, error) {
	if c.w == nil || c.w.max <= 0 {
		return c.File.ReadFrom(r)
	}
	return io.Copy(writerOnly{c}, r)
}

type writerOnly struct{ io.Writer }
