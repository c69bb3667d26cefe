// Package sse is the server side of Server-Sent Events as MCP's Streamable HTTP uses them: a
// stream of events with ids, written to whichever connection is attached to it, kept in a
// bounded buffer so that a client that lost its connection can resume with Last-Event-ID. It
// knows nothing of MCP or JSON-RPC.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of Push and Attach.
var (
	// ErrDropped: a droppable event did not fit the budget of events not yet written.
	ErrDropped = errors.New("sse: event dropped: the reader is too slow")
	// ErrClosed: the stream has ended.
	ErrClosed = errors.New("sse: stream closed")
	// ErrGone: events after the resumption point are no longer buffered.
	ErrGone = errors.New("sse: events to replay are no longer buffered")
)

// WriteTimeout bounds one write to a connection: a client that does not read for that long is
// treated as gone (its events stay buffered for a resumption).
const WriteTimeout = 30 * time.Second

// Conn is one HTTP response carrying a stream's events.
type Conn struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone chan struct{} // closed when the stream lets go of this connection
	once sync.Once
}

// NewConn wraps an HTTP response whose headers the caller has set; WriteHeader is sent with the
// first write.
func NewConn(w http.ResponseWriter) *Conn {
	return &Conn{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
}

// Gone is closed when the stream no longer writes to this connection: it ended, another
// connection took over, or a write failed.
func (c *Conn) Gone() <-chan struct{} { return c.gone }

func (c *Conn) release() { c.once.Do(func() { close(c.gone) }) }

func (c *Conn) write(b []byte) error {
	_ = c.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.rc.Flush()
}

type event struct {
	seq  uint64
	data []byte // the encoded event, ready to write
}

// Stream is an ordered sequence of events. Events are written to the attached connection as
// they are pushed; written ones stay buffered (up to the byte budget, oldest evicted first)
// for replay, unwritten ones wait for a connection.
type Stream struct {
	id     string // prefix of the event ids ("" : events carry no id and cannot be replayed)
	budget int

	mu       sync.Mutex
	next     uint64  // seq of the next event (the first is 1)
	buf      []event // oldest first
	bufBytes int
	unsent   int    // bytes of buffered events not yet written
	written  uint64 // seq of the last event written to the current connection
	conn     *Conn
	final    bool // the last event has been pushed
	done     chan struct{}
	dropped  int
	released bool

	// owner is the budget the stream's bytes count against (nil: none); attached, held and
	// lastUse mirror conn != nil, bufBytes and the last push or attach for its eviction.
	owner    *Owner
	attached atomic.Bool
	held     atomic.Int64
	lastUse  atomic.Int64
}

// New makes a stream whose event ids are id + "_" + sequence number (id "": no ids, nothing
// kept after it is written); budget bounds both the bytes kept for replay and those waiting
// for a connection.
func New(id string, budget int) *Stream {
	if budget <= 0 {
		budget = 1 << 20
	}
	s := &Stream{id: id, budget: budget, next: 1, done: make(chan struct{})}
	s.lastUse.Store(now())
	return s
}

// NewOwned is New with the stream's bytes counted against owner's budget; Release gives them
// back when the stream is dropped.
func NewOwned(id string, budget int, owner *Owner) *Stream {
	s := New(id, budget)
	if owner != nil {
		s.owner = owner
		owner.add(s)
	}
	return s
}

// grow changes the bytes buffered by n; mu is held. It reports whether the budget is over.
func (s *Stream) grow(n int) bool {
	s.bufBytes += n
	s.held.Store(int64(s.bufBytes))
	if s.owner == nil || n == 0 {
		return false
	}
	return s.owner.charge(int64(n))
}

// evict drops the backlog of a stream nobody reads (Budget): its buffered events are gone,
// a resumption before them fails with ErrGone, later events are kept as usual. It reports
// false when a connection is attached (the stream is being read: nothing is evicted).
func (s *Stream) evict() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		return false
	}
	if s.bufBytes > 0 && s.owner != nil {
		s.owner.b.evicted.Add(1)
	}
	clear(s.buf)
	s.buf = nil
	s.grow(-s.bufBytes)
	s.unsent = 0
	s.written = s.next - 1
	if s.final {
		s.finishLocked()
	}
	return true
}

// Release drops the stream's buffered events and gives their bytes back to its budget: the
// stream can no longer be resumed or written. Call it once nobody can reach the stream.
func (s *Stream) Release() {
	s.mu.Lock()
	s.final = true
	s.finishLocked()
	clear(s.buf)
	s.buf = nil
	s.grow(-s.bufBytes)
	s.unsent = 0
	first := !s.released
	s.released = true
	s.mu.Unlock()
	if first && s.owner != nil {
		s.owner.remove(s)
	}
}

// ID is the stream's id.
func (s *Stream) ID() string { return s.id }

// Done is closed once the final event has been written to a connection (or the stream was
// closed).
func (s *Stream) Done() <-chan struct{} { return s.done }

// Dropped is the number of droppable events refused so far.
func (s *Stream) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// ParseEventID splits an event id into its stream id and sequence number.
func ParseEventID(v string) (stream string, seq uint64, ok bool) {
	i := strings.LastIndexByte(v, '_')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(v[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return v[:i], n, true
}

func (s *Stream) encode(seq uint64, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(data) + 32)
	if s.id != "" {
		fmt.Fprintf(&b, "id: %s_%d\n", s.id, seq)
	}
	// A JSON-RPC message is one line; any line break in data still stays inside the event.
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// Push appends an event. A droppable event is refused (ErrDropped) when the bytes waiting for a
// connection already fill the budget; other events always go in, so that every response is
// delivered (their number is bounded by the requests in flight). final marks the last event.
func (s *Stream) Push(data []byte, droppable, final bool) error {
	s.mu.Lock()
	if s.final {
		s.mu.Unlock()
		return ErrClosed
	}
	ev := s.encode(s.next, data)
	if droppable && s.unsent+len(ev) > s.budget && s.unsent > 0 {
		s.dropped++
		s.mu.Unlock()
		return ErrDropped
	}
	s.buf = append(s.buf, event{seq: s.next, data: ev})
	s.next++
	over := s.grow(len(ev))
	s.unsent += len(ev)
	s.final = final
	s.flush()
	over = over && s.owner != nil && s.owner.charge(0)
	s.lastUse.Store(now())
	s.mu.Unlock()
	if over {
		// Past the budget: the backlogs nobody reads go (this one too, if nobody reads it).
		s.owner.reclaim()
	}
	return nil
}

// Prime pushes the event that primes a client to reconnect: an id and empty data (MCP
// 2025-11-25). It is never dropped and never ends the stream.
func (s *Stream) Prime() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id == "" || s.final {
		return
	}
	ev := []byte(fmt.Sprintf("id: %s_%d\ndata: \n\n", s.id, s.next))
	s.buf = append(s.buf, event{seq: s.next, data: ev})
	s.next++
	s.grow(len(ev))
	s.unsent += len(ev)
	s.flush()
}

// flush writes the unwritten events to the connection, if any, then evicts written events over
// the budget; mu is held.
func (s *Stream) flush() {
	if s.conn != nil {
		for i := range s.buf {
			ev := s.buf[i]
			if ev.seq <= s.written {
				continue
			}
			if err := s.conn.write(ev.data); err != nil {
				s.detachLocked()
				break
			}
			s.written = ev.seq
			s.unsent -= len(ev.data)
		}
	}
	if s.final && s.unsent == 0 && s.conn != nil {
		s.finishLocked()
	}
	// Keep written events for replay within the budget (none at all without ids).
	for len(s.buf) > 0 && s.buf[0].seq <= s.written && (s.id == "" || s.bufBytes > s.budget) {
		s.grow(-len(s.buf[0].data))
		s.buf[0] = event{}
		s.buf = s.buf[1:]
	}
}

func (s *Stream) finishLocked() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	if s.conn != nil {
		s.conn.release()
		s.conn = nil
	}
	s.attached.Store(false)
}

func (s *Stream) detachLocked() {
	if s.conn != nil {
		s.conn.release()
		s.conn = nil
	}
	s.attached.Store(false)
}

// Attach makes c the stream's connection (releasing any other) and writes to it every event
// after seq after (0: every event not yet written to a connection). It fails with ErrGone when
// some of those events are no longer buffered.
func (s *Stream) Attach(c *Conn, after uint64, resume bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if resume {
		if after >= s.next {
			return ErrGone // an id this stream never issued
		}
		if len(s.buf) > 0 && s.buf[0].seq > after+1 || len(s.buf) == 0 && after+1 < s.next {
			return ErrGone
		}
		// Replay: everything after `after` counts as unwritten again.
		s.unsent = 0
		for _, ev := range s.buf {
			if ev.seq > after {
				s.unsent += len(ev.data)
			}
		}
		s.written = after
	}
	s.detachLocked()
	s.conn = c
	s.attached.Store(true)
	s.lastUse.Store(now())
	// The headers go out now even when there is nothing to replay, and under mu: a write to
	// the response outside it would race with events pushed from another goroutine (two writers
	// on one bufio.Writer corrupt the chunked framing of the connection).
	if err := c.rc.Flush(); err != nil {
		s.detachLocked()
		return nil
	}
	if s.final && s.unsent == 0 {
		s.finishLocked()
		return nil
	}
	s.flush()
	return nil
}

// Detach lets go of c if it is the stream's connection.
func (s *Stream) Detach(c *Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == c {
		s.detachLocked()
	}
	c.release()
}

// Comment writes an SSE comment (a keep-alive) to the connection, unless the stream is busy
// writing (a keep-alive is then pointless).
func (s *Stream) Comment(text string) {
	if !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	if s.conn != nil {
		if err := s.conn.write([]byte(": " + text + "\n\n")); err != nil {
			s.detachLocked()
		}
	}
}

// Retry writes the retry field (milliseconds a client waits before reconnecting) and lets go
// of the connection without ending the stream: the client resumes with Last-Event-ID.
func (s *Stream) Retry(ms int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		_ = s.conn.write([]byte("retry: " + strconv.Itoa(ms) + "\n\n"))
		s.detachLocked()
	}
}

// Close ends the stream: no more events, the connection is released.
func (s *Stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.final = true
	s.finishLocked()
}

// Finished reports whether the final event was pushed.
func (s *Stream) Finished() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.final
}

// Attached reports whether a connection is attached.
func (s *Stream) Attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// Buffered is the bytes the stream holds (for tests and metrics).
func (s *Stream) Buffered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bufBytes
}
