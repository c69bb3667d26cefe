package eval

import (
	"context"
	"errors"
	"io"
	"sync"
	"syscall"
	"time"
)

// pipeCap is the buffer of an in-memory pipe, as a Linux pipe's.
const pipeCap = 64 << 10

// errSigpipe is the cancellation cause of a shell that wrote to a pipe nobody reads.
var errSigpipe = errors.New("SIGPIPE")

// pipe is an in-memory pipe with a bounded buffer. Blocked readers and writers wake up when
// the other side closes or when the run's context ends; no host FIFO or file is involved.
type pipe struct {
	mu       sync.Mutex
	cond     sync.Cond
	buf      []byte
	rclosed  bool
	wclosed  bool
	ctx      context.Context
	stopWake func() bool
}

func newPipe(ctx context.Context) *pipe {
	p := &pipe{ctx: ctx}
	p.cond.L = &p.mu
	p.stopWake = context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	return p
}

type pipeReader struct{ p *pipe }
type pipeWriter struct{ p *pipe }

func (r pipeReader) Read(b []byte) (int, error) { return r.p.readBefore(b, time.Time{}) }

// errReadTimeout is what readBefore returns when its deadline passed with nothing to read.
var errReadTimeout = errors.New("read timed out")

// readBefore is Read that gives up at deadline (`read -t`); nothing is consumed then, so the
// next reader gets whatever arrives later.
// A zero deadline waits for as long as it takes.
func (p *pipe) readBefore(b []byte, deadline time.Time) (int, error) {
	if !deadline.IsZero() {
		wake := time.AfterFunc(time.Until(deadline), func() {
			p.mu.Lock()
			p.cond.Broadcast()
			p.mu.Unlock()
		})
		defer wake.Stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 {
		if p.wclosed || p.rclosed {
			return 0, io.EOF
		}
		if err := p.ctx.Err(); err != nil {
			return 0, err
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return 0, errReadTimeout
		}
		p.cond.Wait()
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = p.buf[:0:0]
	}
	p.cond.Broadcast()
	return n, nil
}

// ready reports whether a read would return at once: data is buffered or the writer is gone.
func (p *pipe) ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf) > 0 || p.wclosed || p.rclosed
}

// Close drops what is buffered: a writer blocked on a full pipe gets EPIPE.
func (r pipeReader) Close() error { r.p.closeEnd(true); return nil }

func (w pipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		if p.rclosed {
			return n, syscall.EPIPE
		}
		if p.wclosed {
			return n, io.ErrClosedPipe
		}
		if err := p.ctx.Err(); err != nil {
			return n, err
		}
		room := pipeCap - len(p.buf)
		if room == 0 {
			p.cond.Wait()
			continue
		}
		k := min(room, len(b))
		p.buf = append(p.buf, b[:k]...)
		b = b[k:]
		n += k
		p.cond.Broadcast()
	}
	return n, nil
}

func (w pipeWriter) Close() error { w.p.closeEnd(false); return nil }

// closeEnd closes the read or the write end and wakes the other side; once both are closed
// the pipe stops watching its context.
func (p *pipe) closeEnd(reader bool) {
	p.mu.Lock()
	if reader {
		p.rclosed = true
		p.buf = nil
	} else {
		p.wclosed = true
	}
	p.cond.Broadcast()
	done := p.rclosed && p.wclosed
	p.mu.Unlock()
	if done {
		p.stopWake()
	}
}
