package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// The session core: one client's lifecycle, negotiated revision, capabilities, in-flight
// requests, cancellation, requests to the client, notifications and subscriptions, whatever
// carries the messages. A transport (stdio.go, http.go) decodes messages and hands them to
// dispatch; it gives the session an outbox for what the server sends and a way to run jobs.

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

// msgKind is what an outgoing message is, for the transport: a notification may be dropped when
// its reader is too slow, a request or response never is, and a response ends its request's
// exchange.
type msgKind uint8

const (
	kindNotification msgKind = iota
	kindRequest
	kindResponse
)

// outbox delivers a session's outgoing messages: a request's own exchange (an HTTP response
// stream) or the session's channel (stdio's output, the HTTP GET stream).
type outbox interface {
	send(ctx context.Context, line []byte, kind msgKind) error
}

type outboxKey struct{}

// withOutbox routes the messages of the request ctx belongs to (its response, its progress and
// logs, its questions to the client) to ob.
func withOutbox(ctx context.Context, ob outbox) context.Context {
	return context.WithValue(ctx, outboxKey{}, ob)
}

// outFor is where the messages belonging to ctx's request go: the request's exchange, else the
// session's channel.
func (s *Session) outFor(ctx context.Context) outbox {
	if ob, ok := ctx.Value(outboxKey{}).(outbox); ok {
		return ob
	}
	return s.out
}

// errShuttingDown is the cause of a request context cancelled because the server stopped
// waiting for it (MCPBASH_SHUTDOWN_TIMEOUT): the request is answered with -32003.
var errShuttingDown = errors.New("server shutting down")

// Session is one client: its lifecycle, negotiated revision, log level, in-flight requests and
// where its messages go.
type Session struct {
	srv *Server
	out outbox          // the session's channel
	ctx context.Context // ends when the session is torn down
	// schedule runs a request's job under the concurrency limit (the transport decides on which
	// goroutine); the job itself takes care of its response.
	schedule func(job func())
	// awaitClient, when set, is called before a request waits on a message of the client (an
	// answer, roots): the transport makes sure someone reads the input meanwhile.
	awaitClient func()
	// eagerRoots: ask for roots/list right after initialized (stdio, as the original does);
	// otherwise the first call that needs roots asks, on its own exchange (HTTP, where nothing
	// may be listening on the session's channel).
	eagerRoots bool
	// transport names it in metrics and logs ("stdio", "http").
	transport string
	// tenant is the hosting tenant the session belongs to ("" outside hosting mode).
	tenant, subject, id string

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
	roots      []engine.Root
	rootsReady chan struct{}
	rootsFetch chan struct{} // lazy roots: the fetch in progress (nil: none)
	rootsStale bool          // lazy roots: the client's roots must be (re)asked for
	inputDone  chan struct{} // closed when the client's input ends: no answer can come any more
	inputOnce  sync.Once
	subs       subscriptions
	// Open subscriptions/listen streams (2026-07-28), by request id.
	listenMu    sync.Mutex
	listeners   map[string]*listener
	listenEnded bool // input ended: streams opened from now on are answered at once

	slots chan struct{}
	wg    sync.WaitGroup

	// reviewKey identifies a session without an id of its own (stdio) to review mode.
	reviewOnce sync.Once
	reviewKey  string
	// clientNameOf is the clientInfo clientName was worked out from, clientNameIs the answer
	// (guarded by mu): every tools/call asks for it.
	clientNameOf json.RawMessage
	clientNameIs string
	// draining: drain has begun waiting on wg; no request starts after it (guarded by mu).
	draining bool
	exitReq  chan struct{}
	exitOne  sync.Once
}

// newSession makes a session of srv whose own messages go to out.
func (srv *Server) newSession(ctx context.Context, out outbox, transport string) *Session {
	s := &Session{
		srv:        srv,
		out:        out,
		ctx:        ctx,
		transport:  transport,
		inflight:   make(map[string]*inflight),
		outgoing:   make(map[string]chan *jsonrpc.Message),
		slots:      make(chan struct{}, max(srv.cfg.MaxConcurrent, 1)),
		exitReq:    make(chan struct{}),
		rootsReady: make(chan struct{}),
		inputDone:  make(chan struct{}),
	}
	s.level.Store(int32(srv.cfg.LogLevel))
	return s
}

// reviewID identifies the session to review mode: its id, else a random one of its own.
func (s *Session) reviewID() string {
	if s.id != "" {
		return s.id
	}
	s.reviewOnce.Do(func() {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.reviewKey = s.transport + "-" + hex.EncodeToString(b[:])
	})
	return s.reviewKey
}

// clientName says who answers the session's elicitations, for review mode's audit log: the
// client's declared name and version, the session and, in hosting mode, the principal.
func (s *Session) clientName() string {
	var ci struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	s.mu.Lock()
	info := s.client.Info
	if s.clientNameIs != "" && bytes.Equal(s.clientNameOf, info) {
		name := s.clientNameIs
		s.mu.Unlock()
		return name
	}
	s.mu.Unlock()
	_ = json.Unmarshal(info, &ci)
	name := strings.TrimSpace(ci.Name + " " + ci.Version)
	if name == "" {
		name = "a client"
	}
	name += " (session " + s.reviewID()
	if s.tenant != "" {
		name += ", tenant " + s.tenant + ", subject " + s.subject
	}
	name += ")"
	s.mu.Lock()
	s.clientNameOf, s.clientNameIs = info, name
	s.mu.Unlock()
	return name
}

// clientInfo is what the client declared in initialize.
type clientInfo struct {
	Capabilities json.RawMessage `json:"capabilities"`
	Info         json.RawMessage `json:"clientInfo"`
	caps         clientCaps
	// anonymous: initialize named no clientInfo, which every MCP SDK sends (it is required).
	// Such a client (the original's own tests, a hand-written shell client) gets the
	// original's answers where they differ (docs/DECISIONS.md).
	anonymous bool
}

// anonymous reports whether the session's initialize named no clientInfo.
func (s *Session) anonymous() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.anonymous
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
	cancel    context.CancelCauseFunc
	mu        sync.Mutex // orders marking cancelled against sending the response
	cancelled atomic.Bool
}

// markCancelled marks the request cancelled, after its response if that is being sent now.
func (inf *inflight) markCancelled() {
	inf.mu.Lock()
	inf.cancelled.Store(true)
	inf.mu.Unlock()
	inf.cancel(context.Canceled)
}

// endInput records that no more client messages can come: requests to the client fail at once.
func (s *Session) endInput() { s.inputOnce.Do(func() { close(s.inputDone) }) }

// drain waits for the requests in flight to be answered, at most timeout (0: no limit, as
// MCPBASH_SHUTDOWN_TIMEOUT=0 means for shutdown); the ones still running then are cancelled and
// answered with -32003, and drain waits for that too (bounded again, so a handler that ignores
// its context cannot hold the process).
func (s *Session) drain(timeout time.Duration) {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	if timeout <= 0 {
		s.wg.Wait()
		return
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	s.mu.Lock()
	for _, inf := range s.inflight {
		inf.cancel(errShuttingDown)
	}
	s.mu.Unlock()
	t.Reset(max(timeout, 5*time.Second))
	select {
	case <-done:
	case <-t.C:
		s.srv.logf("%d requests did not end after cancellation; leaving them", s.pending())
	}
}

// pending is the number of requests in flight.
func (s *Session) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inflight)
}

// dispatch handles one decoded client message; ctx may carry the request's outbox. It is the
// pipeline's parse for transports that authorize nothing themselves (stdio).
func (s *Session) dispatch(ctx context.Context, m *jsonrpc.Message) {
	s.dispatchRequest(ctx, parseRequest(m))
}

// dispatchRequest handles one message as the pipeline parsed it.
func (s *Session) dispatchRequest(ctx context.Context, r *Request) {
	switch r.msg.Kind() {
	case jsonrpc.KindResponse:
		s.handleResponse(r.msg)
	case jsonrpc.KindNotification:
		s.handleNotification(ctx, r.msg)
	case jsonrpc.KindRequest:
		s.handleRequest(ctx, r)
	}
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

// gate answers whether a request may run in the session's state, or the error to answer. ri is
// the request's own revision data (2026-07-28 outside an initialized session), nil otherwise.
func (s *Session) gate(m *jsonrpc.Message, known bool, ri *reqInfo) *jsonrpc.Error {
	st := s.state.Load()
	switch {
	case m.Method == "initialize" || m.Method == "shutdown" || m.Method == "exit":
	case st == stateShutdown:
		// After mcp-bash's own `shutdown` (not an MCP method) the original's rule holds: only
		// exit passes (COMPAT 6.1), ping included.
		return jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil)
	case m.Method == "ping":
		// MCP lets either side ping at any time, before initialize too.
	case !known, ri != nil && removedInStateless[m.Method], ri == nil && statelessOnly[m.Method] && st != stateNew:
		return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil)
	case ri != nil, m.Method == "server/discover":
		// Stateless requests need no handshake; discover is answered in any state.
	case st != stateReady:
		return jsonrpc.NewError(codeNotInitialized, "Server not initialized", nil)
	}
	return nil
}

// handleRequest runs the pipeline's steps after parse and authorization: the request's
// scope, its admission, its accounting and its handler (pipeline.go), the same for every
// method, transport and revision.
func (s *Session) handleRequest(ctx context.Context, r *Request) {
	m := r.msg
	ob := s.outFor(ctx)
	h, known := s.srv.handlers[m.Method]
	// Outside an initialized session a request may carry its own protocol version (2026-07-28).
	var ri *reqInfo
	if s.state.Load() == stateNew && m.Method != "initialize" {
		var perr *jsonrpc.Error
		if ri, perr = parseRequestMeta(m.Method, m.Params); perr != nil {
			s.sendTo(ob, jsonrpc.ErrorResponse(m.ID, perr), kindResponse)
			return
		}
	}
	if e := s.gate(m, known, ri); e != nil {
		s.sendTo(ob, jsonrpc.ErrorResponse(m.ID, e), kindResponse)
		return
	}
	if ri != nil {
		s.stateless.Store(true)
		ctx = withReqInfo(ctx, ri)
	}
	// Who asks, and what they may see and do: resolved once, for every method.
	kind, isCosted := costed[m.Method]
	var rec *callRecord
	if isCosted {
		rec = s.srv.pipe.audit.begin(r, kind)
	}
	sc, serr := s.srv.pipe.scopes(s.tenant, s.subject)
	if serr != nil {
		if rec != nil {
			s.srv.pipe.audit.account(ctx, s, r, rec, nil, serr, 0)
		}
		s.sendTo(ob, s.replyLine(m.ID, nil, serr), kindResponse)
		return
	}
	r.scope = sc
	if h.inline {
		res, err := s.invoke(ctx, h, r)
		if line := s.replyLine(m.ID, res, err); line != nil {
			s.sendTo(ob, line, kindResponse)
		}
		return
	}
	key := jsonrpc.IDKey(m.ID)
	rctx, cancel := context.WithCancelCause(ctx)
	inf := &inflight{cancel: cancel}
	s.mu.Lock()
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		cancel(nil)
		s.sendTo(ob, jsonrpc.ErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Duplicate request id "+key+" is still in flight")), kindResponse)
		return
	}
	if s.draining {
		// drain is waiting on wg: a request that slipped past the transport's own check is
		// answered, not started (an Add racing that Wait is a WaitGroup misuse).
		s.mu.Unlock()
		cancel(nil)
		s.sendTo(ob, jsonrpc.ErrorResponse(m.ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil)), kindResponse)
		return
	}
	s.inflight[key] = inf
	s.wg.Add(1) // under mu, so that it happens before or after drain's Wait, never beside it
	s.mu.Unlock()
	if rec != nil {
		rctx = context.WithValue(rctx, callRecordKey{}, rec)
	}
	// Admission: the scope's quotas decide before anything is queued.
	var ticket ticket
	if isCosted {
		tk, aerr := sc.admit(kind)
		if aerr != nil {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			s.wg.Done()
			if rec != nil {
				s.srv.pipe.audit.account(rctx, s, r, rec, nil, aerr, 0)
			}
			cancel(nil)
			s.sendTo(ob, s.replyLine(m.ID, nil, aerr), kindResponse)
			return
		}
		ticket = tk
	}
	if ticket != nil {
		// Wait for the scope's turn before taking any of the session's or the server's
		// slots, so that a tenant's queue holds nothing the others need. (Admission applies
		// over HTTP only, where dispatch runs on the request's own goroutine.)
		select {
		case <-ticket.Ready():
		case <-rctx.Done():
		}
	}
	// release frees the id before the response is sent: a client that reads the answer and
	// sends its next request with the same id must not find it still in flight. A later
	// request may hold the id by the time the deferred release runs; it is left alone.
	release := func() {
		s.mu.Lock()
		if s.inflight[key] == inf {
			delete(s.inflight, key)
		}
		s.mu.Unlock()
	}
	s.schedule(func() {
		defer s.wg.Done()
		defer func() {
			release()
			cancel(nil)
		}()
		if ticket != nil {
			defer ticket.Release()
		}
		var line []byte
		if rctx.Err() != nil && rec != nil {
			s.srv.pipe.audit.account(rctx, s, r, rec, nil, context.Cause(rctx), 0) // cancelled while queued
		}
		if rctx.Err() == nil {
			start := time.Now()
			res, err := s.invoke(rctx, h, r)
			if rec != nil {
				s.srv.pipe.audit.account(rctx, s, r, rec, res, err, time.Since(start))
			}
			line = s.replyLine(m.ID, res, err)
		}
		// A request the server gave up on (shutdown) is answered; one the client cancelled is
		// not, not even by a response racing the cancellation: the check and the send are one
		// step against the reader marking it cancelled, so whatever the client sent after
		// notifications/cancelled is answered after this.
		inf.mu.Lock()
		defer inf.mu.Unlock()
		if inf.cancelled.Load() {
			return
		}
		if line == nil && (errors.Is(context.Cause(rctx), errShuttingDown) || s.ctx.Err() != nil) {
			line = jsonrpc.ErrorResponse(m.ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down",
				"the request did not finish before the server stopped (MCPBASH_SHUTDOWN_TIMEOUT)"))
		}
		release()
		if line != nil {
			s.sendTo(ob, line, kindResponse)
		}
	})
}

// runLimited runs job on the calling goroutine once one of the MaxConcurrent slots is free (or
// the session ends: the job then runs its own abort path, its context being done).
func (s *Session) runLimited(job func()) {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-s.ctx.Done():
	}
	job()
}

// invoke runs a handler, turning a panic into an internal error so one bad request cannot
// take the server down.
func (s *Session) invoke(ctx context.Context, h handler, r *Request) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.srv.logf("panic in %s: %v\n%s", r.Method, p, debug.Stack())
			res, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", fmt.Sprintf("handler for %s failed unexpectedly", r.Method))
		}
	}()
	res, err = h.fn(ctx, s, r)
	if err == nil && statelessInfo(ctx) != nil {
		res, err = s.srv.finishStateless(r.Method, res, r.scope.private())
	}
	return res, err
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

// sendError answers on the session's channel (errors that belong to no request's exchange).
func (s *Session) sendError(id json.RawMessage, e *jsonrpc.Error) {
	s.sendTo(s.out, jsonrpc.ErrorResponse(id, e), kindResponse)
}

func (s *Session) sendTo(ob outbox, line []byte, kind msgKind) {
	if err := ob.send(s.ctx, line, kind); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, jsonrpc.ErrWriterClosed) && !errors.Is(err, errOutboxClosed) {
		s.srv.logf("write: %v", err)
	}
}

// errOutboxClosed: the exchange or stream a message was meant for has ended.
var errOutboxClosed = errors.New("outbox closed")

// Notify sends a notification on the session's channel.
func (s *Session) Notify(method string, params any) { s.notifyOn(s.out, method, params) }

// notifyFor sends a notification that belongs to ctx's request (progress, logs of a call).
func (s *Session) notifyFor(ctx context.Context, method string, params any) {
	s.notifyOn(s.outFor(ctx), method, params)
}

func (s *Session) notifyOn(ob outbox, method string, params any) {
	line, err := jsonrpc.Notification(method, params)
	if err != nil {
		s.srv.logf("notify %s: %v", method, err)
		return
	}
	s.sendTo(ob, line, kindNotification)
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
			// ID is the pre-2024-11-05 spelling the original still accepts.
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if p.RequestID == nil {
			p.RequestID = p.ID
		}
		if p.RequestID == nil {
			return
		}
		s.cancelRequest(jsonrpc.IDKey(p.RequestID))
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

// cancelRequest cancels a request in flight (its response is suppressed) or closes an open
// subscriptions/listen stream.
func (s *Session) cancelRequest(key string) {
	s.mu.Lock()
	inf := s.inflight[key]
	s.mu.Unlock()
	if inf != nil {
		inf.markCancelled()
	}
	s.dropListener(key)
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

// Request sends a server-to-client request (on ctx's request exchange when it has one) and
// waits for its answer, until ctx ends.
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
	if err := s.outFor(ctx).send(ctx, line, kindRequest); err != nil {
		return nil, fmt.Errorf("cannot ask the client %s: %w", method, err)
	}
	if s.awaitClient != nil {
		s.awaitClient()
	}
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
