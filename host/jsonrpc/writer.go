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

// Writer owns an output stream: one goroutine writes every message, each as exactly one line,
// so concurrent senders can never interleave bytes. The queue is bounded: when the peer stops
// reading, senders block (backpressure) instead of growing memory.
type Writer struct {
	queue chan []byte
	done  chan struct{}
	mu    sync.RWMutex
	shut  bool
	err   error
}

// NewWriter starts the writer goroutine over w. depth bounds the number of queued lines.
func NewWriter(w io.Writer, depth int) *Writer {
	if depth <= 0 {
		depth = 256
	}
	wr := &Writer{queue: make(chan []byte, depth), done: make(chan struct{})}
	go wr.loop(w)
	return wr
}

func (wr *Writer) loop(w io.Writer) {
	defer close(wr.done)
	bw := bufio.NewWriterSize(w, 64<<10)
	for line := range wr.queue {
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
// one). It blocks while the queue is full, until ctx ends.
func (wr *Writer) Send(ctx context.Context, line []byte) error {
	wr.mu.RLock()
	defer wr.mu.RUnlock()
	if wr.shut {
		return ErrWriterClosed
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
