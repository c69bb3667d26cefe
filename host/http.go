package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/fairq"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/sse"
)

// The Streamable HTTP transport (MCP 2025-03-26, 2025-06-18, 2025-11-25 with sessions, and
// 2026-07-28 without): one endpoint, a POST per client message, answered as application/json or
// as an SSE stream; a GET stream per session for messages that belong to no request; DELETE to
// end a session. Sessions run on the same session core as stdio (session.go).

// HTTP header names.
const (
	hdrSessionID   = "Mcp-Session-Id"
	hdrProtocol    = "Mcp-Protocol-Version"
	hdrLastEventID = "Last-Event-Id"
	hdrMethod      = "Mcp-Method"
	hdrName        = "Mcp-Name"
)

// codeHeaderMismatch is 2026-07-28's HeaderMismatchError (HTTP only).
const codeHeaderMismatch = -32020

// finishedStreamsKept is how many ended POST streams a session keeps for Last-Event-ID.
const finishedStreamsKept = 16

// httpTransport serves one Server over Streamable HTTP.
type httpTransport struct {
	srv *Server
	log *slog.Logger
	// loopback: the listener is on a loopback address, so Host must be a loopback name too
	// (DNS rebinding).
	loopback bool
	origins  []string
	anyOrig  bool

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]*httpSession // by sessionKey
	// perTenant counts the sessions each tenant holds (hosting mode's per-tenant cap).
	perTenant map[string]int
	live      map[*exchange]struct{} // exchanges open now (keep-alives)

	// statelessSlots bound the concurrent 2026-07-28 requests, as a session's slots do,
	// handed out fairly across tenants (each holding at most half of them).
	statelessSlots *fairq.Scheduler[string]
	// buffers bounds the bytes SSE streams hold for readers that are not attached, globally
	// and per tenant.
	buffers   *sse.Budget
	stateless sync.WaitGroup // 2026-07-28 requests in flight

	base     context.Context // cancelled (errShuttingDown) when the drain gives up waiting
	cancel   context.CancelCauseFunc
	draining atomic.Bool
	drainCh  chan struct{} // closed when draining starts: open streams end
	hooks    httpHooks
}

// httpHooks are the hosting mode's additions to the transport (auth.go, tenants in hosting.go).
type httpHooks struct {
	// principal names who makes a request: tenant and subject ("" without authentication).
	principal func(r *http.Request) (tenant, subject string)
	// authorize checks the principal's scopes for one call of a POST (method, and the tool of
	// a tools/call), answering the refusal itself (false).
	authorize func(w http.ResponseWriter, r *http.Request, method, tool string) bool
	// sessionOpened/Closed count sessions.
	sessionOpened, sessionClosed func()
	// maxSessions is a tenant's cap on open sessions (0: none), and sessionRefused is told when
	// it refuses one.
	maxSessions    func(tenant string) int
	sessionRefused func(tenant string)
}

// httpSession is one session of a 2025-xx client.
type httpSession struct {
	key    [sha256.Size]byte
	id     string
	s      *Session
	cancel context.CancelCauseFunc
	t      *httpTransport

	standalone *sse.Stream // the GET stream: messages that belong to no request

	mu       sync.Mutex
	streams  map[string]*sse.Stream // POST streams, live and recently ended, by id
	finished []string
	nextID   int
	closed   bool

	// tenant is who the session is counted for in perTenant ("": not counted).
	tenant string
	// owner is the share of the transport's buffer budget the session's streams count against.
	owner *sse.Owner

	active   atomic.Int32 // HTTP requests being served for this session
	lastSeen atomic.Int64 // unix nanoseconds of the last request
}

func newHTTPTransport(srv *Server, log *slog.Logger, loopback bool) *httpTransport {
	base, cancel := context.WithCancelCause(context.Background())
	t := &httpTransport{srv: srv, log: log, loopback: loopback, sessions: map[[sha256.Size]byte]*httpSession{}, perTenant: map[string]int{},
		live: map[*exchange]struct{}{}, statelessSlots: fairq.New[string](fairq.Options{Slots: max(srv.cfg.MaxConcurrent, 1)}),
		buffers: sse.NewBudget(srv.cfg.Settings.HTTP.MaxBufferedBytes), base: base, cancel: cancel, drainCh: make(chan struct{})}
	for _, o := range srv.cfg.Settings.HTTP.AllowedOrigins {
		if o == "*" {
			t.anyOrig = true
		}
		t.origins = append(t.origins, strings.TrimSuffix(strings.ToLower(o), "/"))
	}
	return t
}

// send delivers a message that belongs to no request on the session's GET stream (kept for
// the next GET while none is open).
func (hs *httpSession) send(_ context.Context, line []byte, kind msgKind) error {
	err := hs.standalone.Push(line, kind == kindNotification, false)
	if errors.Is(err, sse.ErrDropped) {
		hs.t.log.Debug("notification dropped: the GET stream is not read", "session", hs.short())
		return nil
	}
	if errors.Is(err, sse.ErrClosed) {
		return errOutboxClosed
	}
	return err
}

func (hs *httpSession) short() string { return hs.id[:min(8, len(hs.id))] }

// newStream makes a POST stream of the session, findable by Last-Event-ID.
func (hs *httpSession) newStream() *sse.Stream {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.nextID++
	st := sse.NewOwned(strconv.Itoa(hs.nextID), hs.s.srv.cfg.Settings.HTTP.StreamBuffer, hs.owner)
	if hs.streams == nil {
		hs.streams = map[string]*sse.Stream{}
	}
	hs.streams[st.ID()] = st
	return st
}

// streamEnded marks a POST stream ended: it stays findable until finishedStreamsKept newer
// ones have ended (or its backlog is evicted: sse.Budget), and is released with its session.
func (hs *httpSession) streamEnded(st *sse.Stream) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closed {
		delete(hs.streams, st.ID())
		st.Release() // nobody can resume a stream of a closed session
		return
	}
	hs.finished = append(hs.finished, st.ID())
	for len(hs.finished) > finishedStreamsKept {
		old := hs.finished[0]
		hs.finished = hs.finished[1:]
		if s := hs.streams[old]; s != nil {
			s.Release()
		}
		delete(hs.streams, old)
	}
}

// bufferOwner is the share of the buffer budget of a principal's streams: its tenant's,
// capped at its scope's bufferedBytes.
func (t *httpTransport) bufferOwner(tenant, subject string) *sse.Owner {
	max := t.srv.cfg.Settings.HTTP.MaxBufferedBytes
	if sc, err := t.srv.pipe.scopes(tenant, subject); err == nil {
		if b := sc.seats().bufferedBytes; b > 0 && b < max {
			max = b
		}
	}
	return t.buffers.Owner(tenant, max)
}

func (hs *httpSession) stream(id string) *sse.Stream {
	if id == hs.standalone.ID() {
		return hs.standalone
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.streams[id]
}

// sessionKey is the table key of a session id for a principal: another tenant's or subject's
// request for the same id misses the table exactly as an unknown id does.
// The digest itself is the key: no hex string is made for every request's lookup.
func sessionKey(tenant, subject, id string) [sha256.Size]byte {
	h := sha256.New()
	for _, p := range []string{tenant, subject, id} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// ServeHTTP is the MCP endpoint.
func (t *httpTransport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !t.originAllowed(r) {
		writeHTTPError(w, http.StatusForbidden, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: Origin or Host not allowed (DNS rebinding protection; see MCPBASH_HTTP_ALLOWED_ORIGINS)", nil))
		return
	}
	if v := r.Header.Get(hdrProtocol); v != "" && v != StatelessVersion && !slices.Contains(supportedVersions, v) && (r.Method != http.MethodPost || v < StatelessVersion) {
		// A revision older than the stateless one that this server does not speak. (A newer
		// one is answered per request, with the request's id: servePOST.)
		writeHTTPError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(v),
			map[string]any{"requested": v, "supported": allVersions()}))
		return
	}
	switch r.Method {
	case http.MethodPost:
		t.servePOST(w, r)
	case http.MethodGet:
		t.serveGET(w, r)
	case http.MethodDelete:
		t.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Method Not Allowed", nil))
	}
}

// originAllowed is the DNS rebinding defence: a browser's Origin must be a loopback origin or
// one the operator allowed; on a loopback listener the Host must name a loopback address too.
func (t *httpTransport) originAllowed(r *http.Request) bool {
	if t.loopback && !loopbackHost(r.Host) {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true // not a browser
	}
	if t.anyOrig || slices.Contains(t.origins, strings.TrimSuffix(strings.ToLower(o), "/")) {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Host)
}

// loopbackHost reports whether a host[:port] names the loopback interface.
func loopbackHost(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// accepts reads the Accept header: whether a JSON body and an SSE stream are acceptable (no
// header: both).
func accepts(r *http.Request) (jsonOK, sseOK bool) {
	vals := r.Header.Values("Accept")
	if len(vals) == 0 {
		return true, true
	}
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			mt := part
			// A bare media type needs no parsing (none of the types below is mistaken
			// for another by case or by an invalid form); one with parameters does, for q.
			if strings.IndexByte(part, ';') >= 0 {
				var params map[string]string
				var err error
				if mt, params, err = mime.ParseMediaType(part); err != nil || params["q"] == "0" {
					continue
				}
			} else {
				mt = asciiLower(mt)
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

// asciiLower is s in lower case (ASCII), s itself when it has no upper-case letter.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// writeHTTPError answers with an HTTP status and a JSON-RPC error body.
func writeHTTPError(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.ErrorResponse(id, e))
}

func badRequest(w http.ResponseWriter, id json.RawMessage, msg string) {
	writeHTTPError(w, http.StatusBadRequest, id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Bad Request: "+msg, nil))
}

// lookup finds the session a request names, answering 400 (no id) or 404 (unknown, ended, or
// another principal's) itself when it cannot.
func (t *httpTransport) lookup(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get(hdrSessionID)
	if id == "" {
		badRequest(w, nil, "Mcp-Session-Id header is required (send initialize first)")
		return nil
	}
	tenant, subject := t.principal(r)
	t.mu.Lock()
	hs := t.sessions[sessionKey(tenant, subject, id)]
	t.mu.Unlock()
	if hs == nil {
		writeHTTPError(w, http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Session not found: it ended or never existed; initialize a new one", nil))
		return nil
	}
	return hs
}

func (t *httpTransport) principal(r *http.Request) (string, string) {
	if t.hooks.principal == nil {
		return "", ""
	}
	return t.hooks.principal(r)
}

// readBody reads a POST body within the line cap, answering 413/400 itself when it cannot.
func (t *httpTransport) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.EqualFold(ct, "application/json") {
		mt, params, err := mime.ParseMediaType(ct)
		if cs, ok := params["charset"]; err != nil || mt != "application/json" || ok && !strings.EqualFold(cs, "utf-8") {
			// JSON is UTF-8 (RFC 8259): a body declared in another charset is refused, not
			// guessed at.
			writeHTTPError(w, http.StatusUnsupportedMediaType, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Content-Type must be application/json (in UTF-8)", nil))
			return nil, false
		}
	}
	limit := t.srv.cfg.MaxLineBytes
	if limit <= 0 {
		limit = jsonrpc.DefaultMaxLineBytes
	}
	var body []byte
	var err error
	if n := r.ContentLength; n >= 0 && n <= int64(limit) {
		// The usual request says its length: one buffer of that size, no growing.
		body = make([]byte, n)
		if _, err = io.ReadFull(r.Body, body); errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the body ended before its Content-Length: %w", err)
		}
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeHTTPError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request",
			fmt.Sprintf("Message exceeds the %d-byte limit (MCPBASH_MAX_LINE_BYTES)", limit)))
		return nil, false
	case err != nil:
		badRequest(w, nil, "cannot read the body: "+err.Error())
		return nil, false
	}
	// The body is read: a long SSE answer must not be cut by the server's read timeout.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	return body, true
}

// servePOST handles one client message (or a batch where the revision allows it).
func (t *httpTransport) servePOST(w http.ResponseWriter, r *http.Request) {
	jsonOK, sseOK := accepts(r)
	if !jsonOK && !sseOK {
		writeHTTPError(w, http.StatusNotAcceptable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Accept must allow application/json or text/event-stream", nil))
		return
	}
	if r.Header.Get(hdrLastEventID) != "" {
		badRequest(w, nil, "Last-Event-ID is for GET: resume a stream with GET")
		return
	}
	body, ok := t.readBody(w, r)
	if !ok {
		return
	}
	body = jsonrpc.Normalize(body)
	if len(body) == 0 {
		badRequest(w, nil, "empty body")
		return
	}
	items, batch := jsonrpc.Decode(body)
	if len(items) == 1 && items[0].Err != nil && items[0].Err.Code == jsonrpc.CodeParseError {
		writeHTTPError(w, http.StatusBadRequest, nil, items[0].Err)
		return
	}
	// The pipeline's parse, once: what authorization checks here is what is dispatched below.
	reqs := make([]*Request, len(items))
	for i, it := range items {
		if it.Msg != nil {
			reqs[i] = parseRequest(it.Msg)
		}
	}
	if !t.authorizePOST(w, r, reqs) {
		return
	}
	first := reqs[0]
	hv := r.Header.Get(hdrProtocol)
	if hv != "" && hv != StatelessVersion && !slices.Contains(supportedVersions, hv) {
		// A later revision than any this server speaks (ServeHTTP refused earlier ones).
		writeHTTPError(w, http.StatusBadRequest, items[0].ID, unsupportedVersion(hv, hv+" is not supported"))
		return
	}
	// A 2026-07-28 request is served on its own, whatever session it names (that revision has
	// none; MCP 2026-07-28 transports: ignore Mcp-Session-Id).
	if !batch && first != nil && (hv == StatelessVersion || metaVersion(first.msg) != "") {
		t.serveStateless(w, r, first, jsonOK, sseOK)
		return
	}
	if r.Header.Get(hdrSessionID) == "" {
		if !batch && first != nil && first.Method == "initialize" && first.msg.Kind() == jsonrpc.KindRequest {
			t.initialize(w, r, first, jsonOK, sseOK)
			return
		}
		if !batch && first != nil && first.Method == "server/discover" && first.msg.Kind() == jsonrpc.KindRequest {
			t.serveStateless(w, r, first, jsonOK, sseOK)
			return
		}
		badRequest(w, items[0].ID, "Mcp-Session-Id header is required (send initialize first)")
		return
	}
	hs := t.lookup(w, r)
	if hs == nil {
		return
	}
	hs.touch(+1)
	defer hs.touch(-1)
	s := hs.s
	if batch && !s.batchesAllowed() {
		writeHTTPError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request",
			"Batch arrays are not allowed for protocol "+s.protocolOrDefault()))
		return
	}
	requests := 0
	for _, it := range items {
		if it.Err != nil || it.Msg.Kind() == jsonrpc.KindRequest {
			requests++
		}
	}
	if requests == 0 {
		// Notifications and responses: accepted (202), handled before the answer so that a
		// client that sends notifications/cancelled and then a request sees them in order.
		for _, q := range reqs {
			s.dispatchRequest(s.ctx, q)
		}
		w.WriteHeader(http.StatusAccepted)
		t.srv.backgroundRefresh(t.base)
		return
	}
	if t.draining.Load() {
		w.Header().Set("Retry-After", "5")
		writeHTTPError(w, http.StatusServiceUnavailable, items[0].ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil))
		return
	}
	ex := t.newExchange(w, hs, jsonOK, sseOK, requests, batch)
	ex.prime = s.Protocol() == "2025-11-25"
	t.runExchange(ex, r, func(ctx context.Context) {
		var wg sync.WaitGroup
		for i, it := range items {
			switch q := reqs[i]; {
			case it.Err != nil:
				s.sendTo(ex, jsonrpc.ErrorResponse(it.ID, it.Err), kindResponse)
			case batch && it.Msg.Kind() == jsonrpc.KindRequest:
				// A batch's requests run side by side, as lines on stdio do.
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.dispatchRequest(ctx, q)
				}()
			default:
				s.dispatchRequest(ctx, q)
			}
		}
		wg.Wait()
	}, s.ctx)
	t.srv.backgroundRefresh(t.base)
}

// authorizePOST is the pipeline's authorization of one POST: the scopes of every request and
// notification in it, read from the very parse that is dispatched. One that falls short
// refuses the whole POST (403 with the scopes to ask for) before any of it runs.
func (t *httpTransport) authorizePOST(w http.ResponseWriter, r *http.Request, reqs []*Request) bool {
	if t.hooks.authorize == nil {
		return true
	}
	for _, q := range reqs {
		if q == nil || q.msg.Kind() == jsonrpc.KindResponse {
			continue // an invalid item runs nothing; a response answers the server's own request
		}
		if !t.hooks.authorize(w, r, q.Method, q.tool()) {
			return false
		}
	}
	return true
}

// runExchange runs the dispatch of a POST's messages with ex as their outbox, keeps a held
// exchange (subscriptions/listen) open until it ends, and closes the exchange. sctx is what the
// requests' contexts derive from: the session's (a disconnect is no cancellation in 2025-xx).
func (t *httpTransport) runExchange(ex *exchange, r *http.Request, dispatch func(ctx context.Context), sctx context.Context) {
	// Not shared yet: keepAlive finds the exchange once it is tracked, the requests once they
	// are dispatched.
	ex.rctx = r.Context()
	if ex.stateless {
		ex.watchLocked()
	}
	t.track(ex, true)
	defer t.track(ex, false)
	defer ex.unwatch()
	dispatch(withOutbox(sctx, ex))
	if ex.isHeld() {
		select {
		case <-ex.done:
		case <-r.Context().Done():
		case <-t.drainCh:
		case <-sctx.Done():
		}
	}
	ex.end()
}

func (t *httpTransport) track(ex *exchange, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if on {
		t.live[ex] = struct{}{}
	} else {
		delete(t.live, ex)
	}
}

func (hs *httpSession) touch(d int32) {
	hs.active.Add(d)
	hs.lastSeen.Store(time.Now().UnixNano())
}

// metaVersion is the _meta protocol version a request declares ("" when none).
func metaVersion(m *jsonrpc.Message) string {
	if m.Kind() != jsonrpc.KindRequest || len(m.Params) == 0 || !bytes.Contains(m.Params, []byte(metaProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta[metaProtocolVersion], &v)
	return v
}

// initialize opens a session: the answer to initialize carries its id.
func (t *httpTransport) initialize(w http.ResponseWriter, r *http.Request, req *Request, jsonOK, sseOK bool) {
	m := req.msg
	if t.draining.Load() {
		w.Header().Set("Retry-After", "5")
		writeHTTPError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil))
		return
	}
	tenant, subject := t.principal(r)
	id := rand.Text()
	hs := &httpSession{id: id, key: sessionKey(tenant, subject, id), t: t}
	sctx, cancel := context.WithCancelCause(t.base)
	hs.cancel = cancel
	hs.owner = t.bufferOwner(tenant, subject)
	hs.standalone = sse.NewOwned("0", t.srv.cfg.Settings.HTTP.StreamBuffer, hs.owner)
	s := t.srv.newSession(sctx, hs, "http")
	s.schedule = s.runLimited
	s.tenant, s.subject, s.id = tenant, subject, id
	hs.s = s
	t.mu.Lock()
	full := len(t.sessions) >= t.srv.cfg.Settings.HTTP.MaxSessions
	capped := false
	if !full && t.hooks.maxSessions != nil {
		// The tenant's seat is taken now, so that a burst of initializes cannot pass the cap.
		if max := t.hooks.maxSessions(tenant); max > 0 {
			if t.perTenant[tenant] >= max {
				capped = true
			} else {
				t.perTenant[tenant]++
				hs.tenant = tenant
			}
		}
	}
	t.mu.Unlock()
	if full || capped {
		hs.standalone.Release()
	}
	if full {
		cancel(nil)
		w.Header().Set("Retry-After", "30")
		writeHTTPError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError,
			"Too many sessions (MCPBASH_HTTP_MAX_SESSIONS); retry later", nil))
		return
	}
	if capped {
		cancel(nil)
		if t.hooks.sessionRefused != nil {
			t.hooks.sessionRefused(tenant)
		}
		w.Header().Set("Retry-After", "30")
		writeHTTPError(w, http.StatusTooManyRequests, m.ID, jsonrpc.NewError(codeTenantLimit,
			"Tenant limit reached: sessions (close a session first: DELETE it)", map[string]any{"limit": "sessions"}))
		return
	}
	hs.touch(+1)
	defer hs.touch(-1)
	ex := t.newExchange(w, hs, jsonOK, sseOK, 1, false)
	ex.sessionID = func() string {
		if s.state.Load() == stateNew {
			return "" // initialize failed: no session
		}
		t.mu.Lock()
		t.sessions[hs.key] = hs
		t.mu.Unlock()
		t.srv.addSession(s)
		if t.hooks.sessionOpened != nil {
			t.hooks.sessionOpened()
		}
		t.log.Info("session opened", "session", hs.short(), "tenant", tenant)
		return id
	}
	ex.prime = initializeVersion(m) == "2025-11-25"
	t.runExchange(ex, r, func(ctx context.Context) { s.dispatchRequest(ctx, req) }, sctx)
	if s.state.Load() == stateNew {
		cancel(nil)
		t.releaseSeat(hs)
		hs.standalone.Release()
	}
}

// releaseSeat gives a session's seat back to its tenant's count (once).
func (t *httpTransport) releaseSeat(hs *httpSession) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if hs.tenant == "" {
		return
	}
	if t.perTenant[hs.tenant]--; t.perTenant[hs.tenant] <= 0 {
		delete(t.perTenant, hs.tenant)
	}
	hs.tenant = ""
}

// initializeVersion is the revision an initialize will negotiate.
func initializeVersion(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if slices.Contains(supportedVersions, p.ProtocolVersion) {
		return p.ProtocolVersion
	}
	return LatestVersion
}

// serveGET opens the session's stream for messages that belong to no request, or resumes a
// stream after Last-Event-ID.
func (t *httpTransport) serveGET(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(hdrProtocol) == StatelessVersion {
		w.Header().Set("Allow", "POST")
		writeHTTPError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Method Not Allowed: 2026-07-28 has no GET stream (use subscriptions/listen)", nil))
		return
	}
	if _, sseOK := accepts(r); !sseOK {
		writeHTTPError(w, http.StatusNotAcceptable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Accept must allow text/event-stream", nil))
		return
	}
	hs := t.lookup(w, r)
	if hs == nil {
		return
	}
	hs.touch(+1)
	defer hs.touch(-1)
	st, after, resume := hs.standalone, uint64(0), false
	if last := r.Header.Get(hdrLastEventID); last != "" {
		sid, seq, ok := sse.ParseEventID(last)
		if ok {
			st = hs.stream(sid)
		}
		if !ok || st == nil {
			badRequest(w, nil, "cannot resume: no stream of this session has event "+strconv.Quote(last))
			return
		}
		after, resume = seq, true
	}
	if t.draining.Load() {
		w.Header().Set("Retry-After", "5")
		writeHTTPError(w, http.StatusServiceUnavailable, nil, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil))
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	sseHeaders(w)
	w.WriteHeader(http.StatusOK)
	conn := sse.NewConn(w)
	if err := st.Attach(conn, after, resume); err != nil {
		// Headers are out: say so in the stream, then end it.
		_, _ = fmt.Fprintf(w, ": cannot resume: %v\n\n", err)
		return
	}
	// Attach flushed the headers; from here on only the stream writes to w, under its lock.
	select {
	case <-conn.Gone():
	case <-st.Done():
	case <-r.Context().Done():
	case <-t.drainCh:
	case <-hs.s.ctx.Done():
	}
	st.Detach(conn)
}

func sseHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}

// serveDELETE ends a session.
func (t *httpTransport) serveDELETE(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(hdrProtocol) == StatelessVersion {
		w.Header().Set("Allow", "POST")
		writeHTTPError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Method Not Allowed: 2026-07-28 has no sessions", nil))
		return
	}
	hs := t.lookup(w, r)
	if hs == nil {
		return
	}
	t.closeSession(hs, "deleted by the client")
	w.WriteHeader(http.StatusNoContent)
}

// closeSession ends a session: its id answers 404 from now on, its streams end, and requests
// still running are cancelled (answered with -32003 on their streams).
func (t *httpTransport) closeSession(hs *httpSession, why string) {
	t.mu.Lock()
	if t.sessions[hs.key] == hs {
		delete(t.sessions, hs.key)
	} else if hs.closedNow() {
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	if !hs.markClosed() {
		return
	}
	t.releaseSeat(hs)
	s := hs.s
	t.srv.removeSession(s)
	s.endInput()
	s.endSubscriptions()
	hs.cancel(errShuttingDown)
	hs.standalone.Release()
	hs.mu.Lock()
	for id, st := range hs.streams {
		if !st.Finished() {
			continue // the request's own answer (-32003) ends it, and streamEnded releases it
		}
		st.Release()
		delete(hs.streams, id)
	}
	hs.mu.Unlock()
	if t.hooks.sessionClosed != nil {
		t.hooks.sessionClosed()
	}
	t.log.Info("session closed", "session", hs.short(), "why", why)
}

func (hs *httpSession) markClosed() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closed {
		return false
	}
	hs.closed = true
	return true
}

func (hs *httpSession) closedNow() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.closed
}

// expire ends the sessions idle for longer than MCPBASH_HTTP_SESSION_IDLE_SECS: nothing in
// flight, no stream open, no request.
func (t *httpTransport) expire(now time.Time) {
	idle := t.srv.cfg.Settings.HTTP.SessionIdle
	t.mu.Lock()
	var old []*httpSession
	for _, hs := range t.sessions {
		if hs.active.Load() == 0 && hs.s.pending() == 0 && !hs.standalone.Attached() && now.Sub(time.Unix(0, hs.lastSeen.Load())) > idle {
			old = append(old, hs)
		}
	}
	t.mu.Unlock()
	for _, hs := range old {
		t.closeSession(hs, "idle")
	}
}

// keepAlive writes an SSE comment on every open stream, and turns a POST whose answer is late
// into a stream so that it can carry them.
func (t *httpTransport) keepAlive(now time.Time) {
	t.mu.Lock()
	exs := make([]*exchange, 0, len(t.live))
	for ex := range t.live {
		exs = append(exs, ex)
	}
	var standalone []*sse.Stream
	for _, hs := range t.sessions {
		standalone = append(standalone, hs.standalone)
	}
	t.mu.Unlock()
	for _, ex := range exs {
		ex.keepAlive(now, t.srv.cfg.Settings.HTTP.KeepAlive)
	}
	for _, st := range standalone {
		st.Comment("keep-alive")
	}
}

// housekeeping runs the keep-alives and the idle expiry until ctx ends.
func (t *httpTransport) housekeeping(ctx context.Context) {
	ka := t.srv.cfg.Settings.HTTP.KeepAlive
	tick := time.NewTicker(ka)
	defer tick.Stop()
	lastExpire := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			t.keepAlive(now)
			if now.Sub(lastExpire) > min(t.srv.cfg.Settings.HTTP.SessionIdle/4, time.Minute) {
				t.expire(now)
				lastExpire = now
			}
			t.srv.backgroundRefresh(t.base)
		}
	}
}

// drain stops the transport for a shutdown: new requests get 503, open streams end (listen
// streams with their result), requests in flight get the shutdown timeout to finish and are
// then answered with -32003; sessions are closed.
func (t *httpTransport) drain(timeout time.Duration) {
	if !t.draining.CompareAndSwap(false, true) {
		return
	}
	close(t.drainCh)
	t.mu.Lock()
	var all []*httpSession
	for _, hs := range t.sessions {
		all = append(all, hs)
	}
	t.mu.Unlock()
	for _, s := range t.srv.liveSessions() {
		s.endListeners(true) // 2026-07-28 listen streams end with their result
	}
	var wg sync.WaitGroup
	for _, hs := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs.s.drain(timeout)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		done := make(chan struct{})
		go func() {
			t.stateless.Wait()
			close(done)
		}()
		if timeout > 0 {
			select {
			case <-done:
				return
			case <-time.After(timeout):
			}
		}
		t.cancel(errShuttingDown)
		<-done
	}()
	wg.Wait()
	for _, hs := range all {
		t.closeSession(hs, "server shutting down")
	}
	t.cancel(errShuttingDown)
}
