package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
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
		c.passReading(ctx)
		job()
		// Now idle: wait until the role comes back (or the session ends).
		select {
		case <-c.readTurn:
		case <-s.ctx.Done():
			return
		}
	}
}

// passReading hands the reading role to an idle goroutine, or to a new one.
func (c *stdioConn) passReading(ctx context.Context) {
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
