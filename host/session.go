package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// Lifecycle states of a session.
const (
	stateNew          int32 = iota // before initialize
	stateInitializing              // initialize answered, waiting for notifications/initialized
	stateReady                     // serving
	stateShutdown                  // shutdown received
)

// Session-level JSON-RPC error codes that mcp-bash uses (COMPAT.md 6.3).
const (
	codeNotInitialized      = -32000
	codeShuttingDown        = -32003
	codeShutdownNotExpected = -32005
)

// Session is one client connection: its lifecycle, negotiated revision, log level, in-flight
// requests and the single writer that owns its output stream.
type Session struct {
	srv *Server
	w   *jsonrpc.Writer
	ctx context.Context // ends when the session is torn down

	state     atomic.Int32
	stateless atomic.Bool // a request has declared 2026-07-28 in its _meta
	level     atomic.Int32
	mu        sync.Mutex
	protocol  string
	client    clientInfo
	inflight  map[string]*inflight
	outgoing  map[string]chan *jsonrpc.Message
	nextOutID int64

	rootsMu    sync.Mutex
	roots      []sdk.Root
	rootsReady chan struct{}
	inputDone  chan struct{} // closed when the client's input ends: no answer can come any more
	subs       subscriptions
	// Open subscriptions/listen streams (2026-07-28), by request id.
	listenMu    sync.Mutex
	listeners   map[string]*listener
	listenEnded bool // input ended: streams opened from now on are answered at once

	// The reading role (see read): lineMu is held while a line is handled; own is a job the
	// reader takes on itself; slots bounds concurrently running requests.
	rd       *jsonrpc.Reader
	readDone chan error
	readTurn chan struct{}
	lineMu   sync.Mutex
	stopped  bool
	own      func()
	slots    chan struct{}

	wg      sync.WaitGroup
	exitReq chan struct{}
	exitOne sync.Once
}

// clientInfo is what the client declared in initialize.
type clientInfo struct {
	Capabilities json.RawMessage `json:"capabilities"`
	Info         json.RawMessage `json:"clientInfo"`
	caps         clientCaps
}

// clientCaps are the parts of the client's capabilities the server acts on.
type clientCaps struct {
	Roots       *struct{}                  `json:"roots"`
	Elicitation *elicitCaps                `json:"elicitation"`
	Sampling    *struct{}                  `json:"sampling"`
	Extensions  map[string]json.RawMessage `json:"extensions"`
}

type elicitCaps struct {
	Form *struct{} `json:"form"`
	URL  *struct{} `json:"url"`
}

type inflight struct {
	cancel    context.CancelFunc
	mu        sync.Mutex // orders marking cancelled against sending the response
	cancelled atomic.Bool
}

// markCancelled marks the request cancelled, after its response if that is being sent now.
func (inf *inflight) markCancelled() {
	inf.mu.Lock()
	inf.cancelled.Store(true)
	inf.mu.Unlock()
	inf.cancel()
}

// Serve runs one session over in/out until stdin ends, `exit` is received, or ctx ends. Every
// request read before the end of input is answered before Serve returns.
func (srv *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Session{
		srv:      srv,
		w:        jsonrpc.NewWriter(out, 1024, srv.cfg.MaxQueueBytes),
		ctx:      sctx,
		inflight: make(map[string]*inflight),
		outgoing: make(map[string]chan *jsonrpc.Message),
		slots:    make(chan struct{}, max(srv.cfg.MaxConcurrent, 1)),
		exitReq:  make(chan struct{}),

		rootsReady: make(chan struct{}),
		inputDone:  make(chan struct{}),
	}
	s.level.Store(int32(srv.cfg.LogLevel))
	srv.sessMu.Lock()
	srv.sess = s
	srv.sessMu.Unlock()
	defer func() {
		srv.sessMu.Lock()
		srv.sess = nil
		srv.sessMu.Unlock()
	}()
	err := s.loop(sctx, in)
	close(s.inputDone)
	// Answer everything already received, unless the client asked us to exit.
	select {
	case <-s.exitReq:
		s.cancelAll()
		s.endListeners(false)
	default:
		s.endListeners(true)
	}
	s.wg.Wait()
	cancel()
	srv.bg.Wait()
	if werr := s.w.Close(); err == nil && werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
		err = fmt.Errorf("host: write: %w", werr)
	}
	return err
}

// loop waits for the end of the session while the reading goroutine serves the input: the
// goroutine that reads a line also handles it, and when the line is a request that needs a
// worker it runs that request itself after passing the reading role to an idle goroutine (a
// leader/followers scheme). So a request's critical path involves no goroutine hand-off:
// on a 2-core machine each hand-off to a parked goroutine costs a thread wake-up, which is
// most of a small request's cost. Reading stays on its own goroutine, so `exit` and the
// shutdown watchdog can end the session while a read is blocked.
func (s *Session) loop(ctx context.Context, in io.Reader) error {
	s.rd = jsonrpc.NewReader(in, s.srv.cfg.MaxLineBytes)
	s.readDone = make(chan error, 1)
	s.readTurn = make(chan struct{})
	go s.read(ctx)
	var tick <-chan time.Time
	if s.srv.cfg.IdleTick > 0 {
		t := time.NewTicker(s.srv.cfg.IdleTick)
		defer t.Stop()
		tick = t.C
	}
	// Whatever ends the loop, no line is handled after it: the reader holds lineMu while it
	// handles one, and checks stopped before the next.
	defer func() {
		s.lineMu.Lock()
		s.stopped = true
		s.lineMu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exitReq:
			return nil
		case <-tick:
			s.srv.idle(ctx, s)
		case err := <-s.readDone:
			return err
		}
	}
}

// read is the reading role: it reads and handles lines until the input ends, or until it
// takes a request to run itself, having passed the role on.
func (s *Session) read(ctx context.Context) {
	for {
		line, err := s.rd.ReadLine()
		var cp []byte
		if line != nil {
			// Requests outlive the reader's buffer: a worker may still hold their params.
			cp = append([]byte(nil), line...)
		}
		s.lineMu.Lock()
		if s.stopped {
			s.lineMu.Unlock()
			return
		}
		// `exit` wins over input that was already buffered behind it.
		select {
		case <-s.exitReq:
			s.lineMu.Unlock()
			return
		default:
		}
		var tl *jsonrpc.LineTooLongError
		switch {
		case errors.As(err, &tl):
			s.sendError(nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request",
				fmt.Sprintf("Message exceeds the %d-byte line limit (MCPBASH_MAX_LINE_BYTES)", tl.Limit)))
			s.lineMu.Unlock()
			continue
		case errors.Is(err, io.EOF):
			s.readDone <- nil
			s.lineMu.Unlock()
			return
		case err != nil:
			s.readDone <- fmt.Errorf("host: read: %w", err)
			s.lineMu.Unlock()
			return
		}
		s.handleLine(ctx, cp)
		job := s.own
		s.own = nil
		s.lineMu.Unlock()
		if job == nil {
			continue
		}
		s.passReading(ctx)
		job()
		// Now idle: wait until the role comes back (or the session ends).
		select {
		case <-s.readTurn:
		case <-s.ctx.Done():
			return
		}
	}
}

// passReading hands the reading role to an idle goroutine, or to a new one.
func (s *Session) passReading(ctx context.Context) {
	select {
	case s.readTurn <- struct{}{}:
	default:
		go s.read(ctx)
	}
}

func (s *Session) handleLine(ctx context.Context, line []byte) {
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
		s.dispatch(ctx, it.Msg)
	}
	s.srv.afterLine(ctx, s)
}

func (s *Session) batchesAllowed() bool {
	if s.srv.cfg.CompatBatches {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol == "2025-03-26"
}

func (s *Session) protocolOrDefault() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.protocol == "" {
		return LatestVersion
	}
	return s.protocol
}

// Protocol returns the negotiated revision ("" before initialize).
func (s *Session) Protocol() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol
}

func (s *Session) dispatch(ctx context.Context, m *jsonrpc.Message) {
	if !s.srv.admit(s, m) {
		return
	}
	switch m.Kind() {
	case jsonrpc.KindResponse:
		s.handleResponse(m)
	case jsonrpc.KindNotification:
		s.handleNotification(ctx, m)
	case jsonrpc.KindRequest:
		s.handleRequest(ctx, m)
	}
}

func (s *Session) handleRequest(ctx context.Context, m *jsonrpc.Message) {
	h, known := s.srv.handlers[m.Method]
	st := s.state.Load()
	// Outside an initialized session a request may carry its own protocol version (2026-07-28).
	var ri *reqInfo
	if st == stateNew && m.Method != "initialize" {
		var perr *jsonrpc.Error
		if ri, perr = parseRequestMeta(m.Method, m.Params); perr != nil {
			s.sendError(m.ID, perr)
			return
		}
	}
	switch {
	case m.Method == "initialize" || m.Method == "shutdown" || m.Method == "exit":
	case st == stateShutdown:
		s.sendError(m.ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil))
		return
	case !known, ri != nil && removedInStateless[m.Method], ri == nil && statelessOnly[m.Method] && st != stateNew:
		s.sendError(m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil))
		return
	case ri != nil, m.Method == "server/discover", m.Method == "ping" && s.stateless.Load():
		// Stateless requests need no handshake; discover is answered in any state, and so is
		// ping once the client has spoken 2026-07-28 (its clients send ping without _meta).
		// Before that, ping stays gated as in the original (COMPAT 6.1).
	case st != stateReady:
		s.sendError(m.ID, jsonrpc.NewError(codeNotInitialized, "Server not initialized", nil))
		return
	}
	if ri != nil {
		s.stateless.Store(true)
		ctx = withReqInfo(ctx, ri)
	}
	if h.inline {
		res, err := s.invoke(ctx, h, m)
		s.reply(m.ID, res, err)
		return
	}
	key := jsonrpc.IDKey(m.ID)
	rctx, cancel := context.WithCancel(ctx)
	inf := &inflight{cancel: cancel}
	s.mu.Lock()
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		cancel()
		s.sendError(m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Duplicate request id "+key+" is still in flight"))
		return
	}
	s.inflight[key] = inf
	s.mu.Unlock()
	s.wg.Add(1)
	s.submit(func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		if rctx.Err() != nil {
			if !inf.cancelled.Load() {
				s.sendError(m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "Request aborted: session ending", nil))
			}
			return
		}
		res, err := s.invoke(rctx, h, m)
		line := s.replyLine(m.ID, res, err)
		// A cancelled request gets no response, not even one racing the cancellation: the
		// check and the send are one step against the reader marking it cancelled, so
		// whatever the client sent after notifications/cancelled is answered after this.
		inf.mu.Lock()
		if line != nil && !inf.cancelled.Load() {
			s.send(line)
		}
		inf.mu.Unlock()
	})
}

// submit schedules a request's job. The reading goroutine runs the first one itself when a
// concurrency slot is free (see read); otherwise the job waits on its own goroutine for one of
// the MaxConcurrent slots (never dropped) while reading goes on.
func (s *Session) submit(job func()) {
	if s.own == nil {
		select {
		case s.slots <- struct{}{}:
			s.own = func() {
				defer func() { <-s.slots }()
				job()
			}
			return
		default:
		}
	}
	go func() {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-s.ctx.Done():
			// runs its own abort path: the request context is done
		}
		job()
	}()
}

// invoke runs a handler, turning a panic into an internal error so one bad request cannot
// take the server down.
func (s *Session) invoke(ctx context.Context, h handler, m *jsonrpc.Message) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.srv.logf("panic in %s: %v\n%s", m.Method, p, debug.Stack())
			res, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", fmt.Sprintf("handler for %s failed unexpectedly", m.Method))
		}
	}()
	res, err = h.fn(ctx, s, &Request{ID: m.ID, Method: m.Method, Params: m.Params})
	if err == nil && statelessInfo(ctx) != nil {
		res, err = s.srv.finishStateless(m.Method, res)
	}
	return res, err
}

func (s *Session) reply(id json.RawMessage, res any, err error) {
	if line := s.replyLine(id, res, err); line != nil {
		s.send(line)
	}
}

// replyLine is the response line for a handler's result or error (nil: no response).
func (s *Session) replyLine(id json.RawMessage, res any, err error) []byte {
	if errors.Is(err, errSuppressed) {
		return nil
	}
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			s.srv.logf("%v", err)
			je = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", err.Error())
		}
		return jsonrpc.ErrorResponse(id, je)
	}
	line, merr := jsonrpc.Response(id, res)
	if merr != nil {
		return jsonrpc.ErrorResponse(id, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", merr.Error()))
	}
	return line
}

func (s *Session) sendError(id json.RawMessage, e *jsonrpc.Error) {
	s.send(jsonrpc.ErrorResponse(id, e))
}

func (s *Session) send(line []byte) {
	if err := s.w.Send(s.ctx, line); err != nil && !errors.Is(err, context.Canceled) {
		s.srv.logf("write: %v", err)
	}
}

// Notify sends a notification to the client.
func (s *Session) Notify(method string, params any) {
	line, err := jsonrpc.Notification(method, params)
	if err != nil {
		s.srv.logf("notify %s: %v", method, err)
		return
	}
	s.send(line)
}

func (s *Session) handleNotification(ctx context.Context, m *jsonrpc.Message) {
	st := s.state.Load()
	switch m.Method {
	case "notifications/initialized":
		if s.state.CompareAndSwap(stateInitializing, stateReady) {
			s.srv.onInitialized(ctx, s)
		}
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
			return
		}
		s.mu.Lock()
		inf := s.inflight[jsonrpc.IDKey(p.RequestID)]
		s.mu.Unlock()
		if inf != nil {
			inf.markCancelled()
		}
		s.dropListener(jsonrpc.IDKey(p.RequestID))
	default:
		if st != stateReady {
			return // dropped before initialization, as the original does
		}
		if h, ok := s.srv.notifications[m.Method]; ok {
			h(ctx, s, m.Params)
		}
		// Unknown notifications are ignored, as JSON-RPC requires.
	}
}

func (s *Session) handleResponse(m *jsonrpc.Message) {
	key := jsonrpc.IDKey(m.ID)
	s.mu.Lock()
	ch := s.outgoing[key]
	delete(s.outgoing, key)
	s.mu.Unlock()
	if ch == nil {
		s.srv.logf("ignoring response to unknown request id %s", key)
		return
	}
	ch <- m
}

// Request sends a server-to-client request and waits for its answer, until ctx ends.
func (s *Session) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	s.nextOutID++
	id := json.RawMessage(strconv.FormatInt(s.nextOutID, 10))
	ch := make(chan *jsonrpc.Message, 1)
	s.outgoing[string(id)] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.outgoing, string(id))
		s.mu.Unlock()
	}()
	line, err := jsonrpc.Request(id, method, params)
	if err != nil {
		return nil, err
	}
	s.send(line)
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.inputDone:
		return nil, errors.New("client input closed before it answered " + method)
	}
}

func (s *Session) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, inf := range s.inflight {
		inf.markCancelled()
	}
}

func (s *Session) requestExit() {
	s.exitOne.Do(func() { close(s.exitReq) })
}

// Log sends a notifications/message when level is at or above the session's level.
func (s *Session) Log(level Level, logger string, data any) {
	if level < Level(s.level.Load()) || s.state.Load() == stateNew {
		return
	}
	s.Notify("notifications/message", map[string]any{"level": level.String(), "logger": logger, "data": data})
}

// Level returns the session's current log level.
func (s *Session) Level() Level { return Level(s.level.Load()) }

// ui reports whether the client declared the MCP Apps extension.
func (c *clientCaps) ui() bool {
	_, ok := c.Extensions["io.modelcontextprotocol/ui"]
	return ok
}
