package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// ErrWriterClosed is returned by Send after Close.
var ErrWriterClosed = errors.New("jsonrpc: writer closed")

// DefaultMaxQueueBytes bounds the bytes of lines waiting for a slow peer.
const DefaultMaxQueueBytes = 64 << 20

// maxDirect is the largest line a sender writes itself. Below a pipe's default capacity such a
// write does not block unless the peer has stopped reading, and then the next senders queue.
const maxDirect = 16 << 10

// Writer owns an output stream and writes each message as exactly one line, so concurrent
// senders can never interleave bytes. A small line sent while nothing is waiting is written by
// the sender itself (waking a writer goroutine costs a thread wake-up per message, most of a
// small request's cost); everything else goes through a queue that one goroutine drains. The
// queue is bounded in lines and in bytes: when the peer stops reading, senders block
// (backpressure) instead of growing memory.
type Writer struct {
	queue chan []byte
	done  chan struct{}
	mu    sync.RWMutex
	shut  bool

	// wmu owns bw and err. pending counts lines accepted by Send and not yet written: a
	// sender writes directly only when it is 0, so lines from one sender never overtake its
	// earlier queued ones, and bw holds no unflushed bytes then.
	wmu     sync.Mutex
	bw      *bufio.Writer
	err     error
	pending atomic.Int64

	// Byte budget: queued counts the bytes of lines sent and not yet taken by the loop; a
	// sender that would pass maxBytes waits for room (a line alone in the queue always fits, so
	// one result larger than the budget still goes out).
	maxBytes int
	bmu      sync.Mutex
	queued   int
	waiters  int
	room     chan struct{} // closed (and replaced) when bytes leave the queue and someone waits
}

// NewWriter starts the writer goroutine over w. depth bounds the number of queued lines and
// maxBytes their total size (<= 0: DefaultMaxQueueBytes).
func NewWriter(w io.Writer, depth, maxBytes int) *Writer {
	if depth <= 0 {
		depth = 256
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxQueueBytes
	}
	wr := &Writer{queue: make(chan []byte, depth), done: make(chan struct{}), maxBytes: maxBytes, room: make(chan struct{}),
		bw: bufio.NewWriterSize(w, 64<<10)}
	go wr.loop()
	return wr
}

// reserve waits until line fits the byte budget, or ctx ends.
func (wr *Writer) reserve(ctx context.Context, n int) error {
	wr.bmu.Lock()
	for wr.queued > 0 && wr.queued+n > wr.maxBytes {
		room := wr.room
		wr.waiters++
		wr.bmu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			wr.bmu.Lock()
			wr.waiters--
			wr.bmu.Unlock()
			return ctx.Err()
		}
		wr.bmu.Lock()
		wr.waiters--
	}
	wr.queued += n
	wr.bmu.Unlock()
	return nil
}

// release returns n bytes to the budget and wakes every waiting sender to re-check.
func (wr *Writer) release(n int) {
	wr.bmu.Lock()
	wr.queued -= n
	if wr.waiters > 0 {
		close(wr.room)
		wr.room = make(chan struct{})
	}
	wr.bmu.Unlock()
}

func (wr *Writer) loop() {
	defer close(wr.done)
	for line := range wr.queue {
		wr.release(len(line))
		wr.wmu.Lock()
		wr.write(line, len(wr.queue) == 0) // bursts share one write syscall
		wr.wmu.Unlock()
		wr.pending.Add(-1)
	}
	wr.wmu.Lock()
	if wr.err == nil {
		wr.err = wr.bw.Flush()
	}
	wr.wmu.Unlock()
}

// write puts one line into bw, flushing if asked; wmu is held. After the first error lines
// are dropped, so senders never block on a dead peer.
func (wr *Writer) write(line []byte, flush bool) {
	if wr.err != nil {
		return
	}
	if _, err := wr.bw.Write(line); err != nil {
		wr.err = err
		return
	}
	if err := wr.bw.WriteByte('\n'); err != nil {
		wr.err = err
		return
	}
	if flush {
		wr.err = wr.bw.Flush()
	}
}

// tryDirect writes line from the sender when nothing is queued or being written.
func (wr *Writer) tryDirect(line []byte) bool {
	if len(line) > maxDirect || wr.pending.Load() != 0 || !wr.wmu.TryLock() {
		return false
	}
	defer wr.wmu.Unlock()
	if wr.pending.Load() != 0 {
		return false
	}
	wr.write(line, true)
	return true
}

// Send queues one message line (which must not contain a newline; encoding/json never emits
// one). It blocks while the queue is full (in lines or bytes), until ctx ends.
func (wr *Writer) Send(ctx context.Context, line []byte) error {
	wr.mu.RLock()
	defer wr.mu.RUnlock()
	if wr.shut {
		return ErrWriterClosed
	}
	if wr.tryDirect(line) {
		return nil
	}
	wr.pending.Add(1)
	if err := wr.reserve(ctx, len(line)); err != nil {
		wr.pending.Add(-1)
		return err
	}
	select {
	case wr.queue <- line:
		return nil
	default:
	}
	select {
	case wr.queue <- line:
		return nil
	case <-ctx.Done():
		wr.release(len(line))
		wr.pending.Add(-1)
		return ctx.Err()
	}
}

// Close stops accepting lines, writes out what is queued and returns the first write error.
func (wr *Writer) Close() error {
	wr.mu.Lock()
	if !wr.shut {
		wr.shut = true
		close(wr.queue)
	}
	wr.mu.Unlock()
	<-wr.done
	wr.wmu.Lock()
	defer wr.wmu.Unlock()
	return wr.err
}
