package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
)

// ErrWriterClosed is returned by Send after Close.
var ErrWriterClosed = errors.New("jsonrpc: writer closed")

// DefaultMaxQueueBytes bounds the bytes of lines waiting for a slow peer.
const DefaultMaxQueueBytes = 64 << 20

// Writer owns an output stream: one goroutine writes every message, each as exactly one line,
// so concurrent senders can never interleave bytes. The queue is bounded in lines and in bytes:
// when the peer stops reading, senders block (backpressure) instead of growing memory.
type Writer struct {
	queue chan []byte
	done  chan struct{}
	mu    sync.RWMutex
	shut  bool
	err   error

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
	wr := &Writer{queue: make(chan []byte, depth), done: make(chan struct{}), maxBytes: maxBytes, room: make(chan struct{})}
	go wr.loop(w)
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

func (wr *Writer) loop(w io.Writer) {
	defer close(wr.done)
	bw := bufio.NewWriterSize(w, 64<<10)
	for line := range wr.queue {
		wr.release(len(line))
		if wr.err != nil {
			continue // drain so senders never block on a dead peer
		}
		if _, err := bw.Write(line); err != nil {
			wr.err = err
			continue
		}
		if err := bw.WriteByte('\n'); err != nil {
			wr.err = err
			continue
		}
		// Flush only when nothing else is queued: bursts share one write syscall.
		if len(wr.queue) == 0 {
			if err := bw.Flush(); err != nil {
				wr.err = err
			}
		}
	}
	if wr.err == nil {
		wr.err = bw.Flush()
	}
}

// Send queues one message line (which must not contain a newline; encoding/json never emits
// one). It blocks while the queue is full (in lines or bytes), until ctx ends.
func (wr *Writer) Send(ctx context.Context, line []byte) error {
	wr.mu.RLock()
	defer wr.mu.RUnlock()
	if wr.shut {
		return ErrWriterClosed
	}
	if err := wr.reserve(ctx, len(line)); err != nil {
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
	return wr.err
}
