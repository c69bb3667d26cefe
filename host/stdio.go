package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// The stdio transport: one session over a reader and a writer, one JSON-RPC message per line.

// stdioConn is the reading and writing side of a stdio session.
type stdioConn struct {
	s *Session
	w *jsonrpc.Writer

	// The reading role (see read): lineMu is held while a line is handled; own is a job the
	// reader takes on itself.
	rd       *jsonrpc.Reader
	readDone chan error
	readTurn chan struct{}
	lineMu   sync.Mutex
	stopped  bool
	own      func()
	// held is the job running on the reading goroutine, if any (runReading); the watcher that
	// hands the role on from a long one runs while watching.
	held     atomic.Pointer[readerHold]
	watchMu  sync.Mutex
	watching bool
	// handoffs counts the passes of the reading role to another goroutine.
	handoffs atomic.Int64
}

// send writes every message, whatever it belongs to, on the one output stream.
func (c *stdioConn) send(ctx context.Context, line []byte, _ msgKind) error {
	return c.w.Send(ctx, line)
}

// Serve runs one session over in/out until the input ends, `exit` is received, or ctx ends.
// Every request read before then is answered before Serve returns: the requests still running
// get MCPBASH_SHUTDOWN_TIMEOUT to finish, and those that do not are answered with -32003.
func (srv *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// The session outlives ctx (a signal) by the drain; it is cancelled when Serve returns.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	c := &stdioConn{w: jsonrpc.NewWriter(out, 1024, srv.cfg.MaxQueueBytes)}
	s := srv.newSession(sctx, c, "stdio")
	s.eagerRoots = true
	s.schedule = c.submit
	s.awaitClient = c.awaitClient
	c.s = s
	srv.addSession(s)
	defer srv.removeSession(s)
	err := c.loop(ctx, sctx, in)
	s.endInput()
	s.endListeners(true)
	s.drain(srv.cfg.ShutdownTimeout)
	s.endSubscriptions()
	cancel()
	srv.bg.Wait()
	if werr := c.w.Close(); err == nil && werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
		err = fmt.Errorf("host: write: %w", werr)
	}
	return err
}

// loop waits for the end of the session while the reading goroutine serves the input: the
// goroutine that reads a line also handles it, and when the line is a request that needs a
// worker it runs that request itself after passing the reading role to an idle goroutine (a
// leader/followers scheme). So a request's critical path involves no goroutine hand-off:
// on a 2-core machine each hand-off to a parked goroutine costs a thread wake-up, which is
// most of a small request's cost. Reading stays on its own goroutine, so `exit`, a signal and
// the shutdown watchdog can end the session while a read is blocked.
func (c *stdioConn) loop(ctx, sctx context.Context, in io.Reader) error {
	s := c.s
	c.rd = jsonrpc.NewReader(in, s.srv.cfg.MaxLineBytes)
	c.readDone = make(chan error, 1)
	c.readTurn = make(chan struct{})
	go c.read(sctx)
	var tick <-chan time.Time
	if s.srv.cfg.IdleTick > 0 {
		t := time.NewTicker(s.srv.cfg.IdleTick)
		defer t.Stop()
		tick = t.C
	}
	// Whatever ends the loop, no line is handled after it: the reader holds lineMu while it
	// handles one, and checks stopped before the next.
	defer func() {
		c.lineMu.Lock()
		c.stopped = true
		c.lineMu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exitReq:
			return nil
		case <-tick:
			s.srv.backgroundRefresh(sctx)
		case err := <-c.readDone:
			return err
		}
	}
}

// read is the reading role: it reads and handles lines until the input ends, or until it
// takes a request to run itself, having passed the role on.
func (c *stdioConn) read(ctx context.Context) {
	s := c.s
	for {
		line, err := c.rd.ReadLine()
		var cp []byte
		if line != nil {
			// Requests outlive the reader's buffer: a worker may still hold their params.
			cp = append([]byte(nil), line...)
		}
		c.lineMu.Lock()
		if c.stopped {
			c.lineMu.Unlock()
			return
		}
		// `exit` wins over input that was already buffered behind it.
		select {
		case <-s.exitReq:
			c.lineMu.Unlock()
			return
		default:
		}
		var tl *jsonrpc.LineTooLongError
		switch {
		case errors.As(err, &tl):
			s.sendError(nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request",
				fmt.Sprintf("Message exceeds the %d-byte line limit (MCPBASH_MAX_LINE_BYTES)", tl.Limit)))
			c.lineMu.Unlock()
			continue
		case errors.Is(err, io.EOF):
			c.readDone <- nil
			c.lineMu.Unlock()
			return
		case err != nil:
			c.readDone <- fmt.Errorf("host: read: %w", err)
			c.lineMu.Unlock()
			return
		}
		c.handleLine(ctx, cp)
		job := c.own
		c.own = nil
		c.lineMu.Unlock()
		if job == nil {
			continue
		}
		if c.runReading(ctx, job) {
			continue // the job ended while this goroutine still held the reading role
		}
		// Now idle: wait until the role comes back (or the session ends).
		select {
		case <-c.readTurn:
		case <-s.ctx.Done():
			return
		}
	}
}

// A request's job runs on the goroutine that read it, which keeps the reading role meanwhile:
// a sequential client sends its next request only after the answer, so passing the role on
// first would wake a parked goroutine (a futex wake and a context switch on a small machine, as
// much as a small call costs) only for it to wait on the input. The role passes on when more
// input is already buffered (a burst: the next request runs beside this one), when the job
// waits on the client (its answer must be read: awaitClient), or when the job has run for
// handoffAfter, found by a watcher that ticks only while jobs hold the role (a timer per job
// would itself wake a thread to arm it).
const (
	handoffAfter = 5 * time.Millisecond
	// handoffIdleTicks: the watcher ends after this many ticks without a job holding the role.
	handoffIdleTicks = 200
)

// readerHold is a job running on the goroutine that holds the reading role.
type readerHold struct {
	state atomic.Int32 // holdRunning, then holdKept (the job ended first) or holdPassed
	since time.Time
}

const (
	holdRunning int32 = iota
	holdKept
	holdPassed
)

// runReading runs a request's job on the reading goroutine and reports whether this goroutine
// still holds the reading role when it ends.
func (c *stdioConn) runReading(ctx context.Context, job func()) bool {
	if c.rd.Buffered() > 0 {
		c.passReading(ctx)
		job()
		return false
	}
	h := &readerHold{since: time.Now()}
	c.held.Store(h)
	c.watchMu.Lock()
	if !c.watching {
		c.watching = true
		go c.watchHolds(ctx)
	}
	c.watchMu.Unlock()
	job()
	c.held.CompareAndSwap(h, nil)
	return h.state.CompareAndSwap(holdRunning, holdKept)
}

// handOff passes the reading role on if a running job holds it (after, when set, only once
// the job has run that long).
func (c *stdioConn) handOff(ctx context.Context, after time.Duration) {
	h := c.held.Load()
	if h == nil || (after > 0 && time.Since(h.since) < after) {
		return
	}
	if h.state.CompareAndSwap(holdRunning, holdPassed) {
		c.held.CompareAndSwap(h, nil)
		c.passReading(ctx)
	}
}

// awaitClient makes sure the client's messages are read while a job waits for one of them
// (an answer to a request of the server, roots).
func (c *stdioConn) awaitClient() { c.handOff(c.s.ctx, 0) }

// watchHolds passes the reading role on from a job that has held it for handoffAfter; it ends
// after handoffIdleTicks ticks with no job holding the role.
func (c *stdioConn) watchHolds(ctx context.Context) {
	t := time.NewTicker(handoffAfter)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-t.C:
		case <-c.s.ctx.Done():
			c.watchMu.Lock()
			c.watching = false
			c.watchMu.Unlock()
			return
		}
		if c.held.Load() != nil {
			idle = 0
			c.handOff(ctx, handoffAfter)
			continue
		}
		if idle++; idle >= handoffIdleTicks {
			c.watchMu.Lock()
			if c.held.Load() == nil {
				c.watching = false
				c.watchMu.Unlock()
				return
			}
			c.watchMu.Unlock()
			idle = 0
		}
	}
}

// passReading hands the reading role to an idle goroutine, or to a new one.
func (c *stdioConn) passReading(ctx context.Context) {
	c.handoffs.Add(1)
	select {
	case c.readTurn <- struct{}{}:
	default:
		go c.read(ctx)
	}
}

func (c *stdioConn) handleLine(ctx context.Context, line []byte) {
	s := c.s
	line = jsonrpc.Normalize(line)
	if len(line) == 0 {
		return
	}
	items, batch := jsonrpc.Decode(line)
	if batch && !s.batchesAllowed() {
		s.sendError(nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request",
			"Batch arrays are not allowed for protocol "+s.protocolOrDefault()))
		return
	}
	for _, it := range items {
		if it.Err != nil {
			s.sendError(it.ID, it.Err)
			continue
		}
		// The original's remote token is a stdio check (on HTTP it is a bearer token).
		if !s.srv.admit(s, it.Msg) {
			continue
		}
		s.dispatch(ctx, it.Msg)
	}
	s.srv.backgroundRefresh(ctx)
}

// submit schedules a request's job. The reading goroutine runs the first one itself when a
// concurrency slot is free (see read); otherwise the job waits on its own goroutine for one of
// the MaxConcurrent slots (never dropped) while reading goes on.
func (c *stdioConn) submit(job func()) {
	s := c.s
	if c.own == nil {
		select {
		case s.slots <- struct{}{}:
			c.own = func() {
				defer func() { <-s.slots }()
				job()
			}
			return
		default:
		}
	}
	go s.runLimited(job)
}
