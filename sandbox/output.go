package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// Errors a capped stream returns once its limit is passed (and the cause the run is cancelled with).
var (
	ErrStdoutLimit = errors.New("stdout limit")
	ErrStderrLimit = errors.New("stderr limit")
)

// HeadBuffer keeps at most Max bytes of a call's stdout and calls OnFull once, with
// ErrStdoutLimit, when more arrive; writes past the limit fail with ErrStdoutLimit. (OnFull takes
// the cause so that a run's cancel function is given as it is, without a closure per call.)
type HeadBuffer struct {
	Max    int64
	OnFull func(error)

	mu   sync.Mutex
	buf  bytes.Buffer
	full bool
}

func (w *HeadBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full {
		return 0, ErrStdoutLimit
	}
	if int64(w.buf.Len()+len(p)) > w.Max {
		w.buf.Write(p[:w.Max-int64(w.buf.Len())])
		w.full = true
		w.OnFull(ErrStdoutLimit)
		return 0, ErrStdoutLimit
	}
	return w.buf.Write(p)
}

// Bytes returns a copy of what was kept.
func (w *HeadBuffer) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// TailBuffer keeps the last Keep bytes of a call's stderr, counts everything, and calls OnFull
// once, with ErrStderrLimit, past Max; writes past the limit fail with ErrStderrLimit.
type TailBuffer struct {
	Keep   int
	Max    int64
	OnFull func(error)

	mu    sync.Mutex
	buf   []byte
	total int64
	full  bool
}

func (w *TailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full {
		return 0, ErrStderrLimit
	}
	w.total += int64(len(p))
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.Keep {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.Keep:]...)
	}
	if w.total > w.Max {
		w.full = true
		w.OnFull(ErrStderrLimit)
		return 0, ErrStderrLimit
	}
	return len(p), nil
}

// Tail returns a copy of the last bytes kept.
func (w *TailBuffer) Tail() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf)
}

// CtxReader fails its reads once Ctx has ended: a reader of a call's input or text stops with
// the call (the utilities' inputs; the shell parser, which reads a kilobyte at a time).
type CtxReader struct {
	Ctx context.Context
	R   io.Reader
}

func (c CtxReader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.R.Read(p)
}
