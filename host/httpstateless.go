package host

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/fairq"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// 2026-07-28 over HTTP: every request stands alone. It is served by a session made for it
// alone (no state survives the request), so any replica can answer any request; closing the
// response stream cancels it (MCP 2026-07-28, Streamable HTTP, Cancellation).

// serveStateless answers one 2026-07-28 request (or a server/discover probe).
func (t *httpTransport) serveStateless(w http.ResponseWriter, r *http.Request, req *Request, jsonOK, sseOK bool) {
	m := req.msg
	if m.Kind() != jsonrpc.KindRequest {
		// That revision defines no client notification over HTTP; accepted and ignored.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e, status := checkRequestHeaders(r, m); e != nil {
		writeHTTPError(w, status, m.ID, e)
		return
	}
	if t.draining.Load() {
		w.Header().Set("Retry-After", "5")
		writeHTTPError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.NewError(codeShuttingDown, "Server shutting down", nil))
		return
	}
	t.stateless.Add(1)
	defer t.stateless.Done()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	stop := context.AfterFunc(t.base, func() { cancel(context.Cause(t.base)) })
	defer stop()
	ex := t.newExchange(w, nil, jsonOK, sseOK, 1, false)
	ex.stateless = true
	ex.cancelReq = func() { cancel(context.Canceled) }
	s := t.srv.newSession(ctx, ex, "http")
	s.tenant, s.subject = t.principal(r)
	ex.owner = t.bufferOwner(s.tenant, s.subject)
	s.schedule = t.fairSlot(s)
	if m.Method == "subscriptions/listen" {
		// An open listen stream is told about changes like any session.
		t.srv.addSession(s)
		defer t.srv.removeSession(s)
	}
	t.runExchange(ex, r, func(ctx context.Context) { s.dispatchRequest(ctx, req) }, ctx)
	t.srv.backgroundRefresh(t.base)
	if m.Method == "subscriptions/listen" {
		s.dropListener(jsonrpc.IDKey(m.ID)) // the client went away or the stream ended
	}
}

// fairSlot runs a 2026-07-28 request's job once one of the transport's slots is free for its
// tenant: slots go round-robin across the tenants that wait, and no tenant holds more than half
// of them, so one tenant's flood of requests waits behind its own (fairq).
func (t *httpTransport) fairSlot(s *Session) func(job func()) {
	share := max(1, t.statelessSlots.Stats().Slots/2)
	return func(job func()) {
		release, err := t.statelessSlots.Acquire(s.ctx, s.tenant, fairq.Limit{Running: share})
		if err != nil {
			job() // the request ended while it waited: the job runs its own abort path
			return
		}
		defer release()
		job()
	}
}

// checkRequestHeaders validates the headers a 2026-07-28 request mirrors from its body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name): missing or different → 400 HeaderMismatch.
func checkRequestHeaders(r *http.Request, m *jsonrpc.Message) (*jsonrpc.Error, int) {
	hv, mv := r.Header.Get(hdrProtocol), metaVersion(m)
	if hv == "" && mv == "" {
		return nil, 0 // a discover probe of a client that speaks no revision yet
	}
	mismatch := func(msg string) (*jsonrpc.Error, int) {
		return jsonrpc.NewError(codeHeaderMismatch, "Header mismatch: "+msg, nil), http.StatusBadRequest
	}
	switch {
	case hv == "":
		return mismatch("the MCP-Protocol-Version header is required")
	case mv == "" && m.Method != "server/discover":
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: _meta "+metaProtocolVersion+" is required for protocol "+hv, nil), http.StatusBadRequest
	case mv != "" && hv != mv:
		return mismatch("MCP-Protocol-Version header value '" + hv + "' does not match body value '" + mv + "'")
	}
	mh := r.Header.Get(hdrMethod)
	switch {
	case mh == "":
		return mismatch("the Mcp-Method header is required")
	case mh != m.Method:
		return mismatch("Mcp-Method header value '" + mh + "' does not match body value '" + m.Method + "'")
	}
	var member string
	switch m.Method {
	case "tools/call", "prompts/get":
		member = "name"
	case "resources/read":
		member = "uri"
	default:
		return nil, 0
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &p)
	var body string
	_ = json.Unmarshal(p[member], &body)
	raw := r.Header.Get(hdrName)
	if raw == "" {
		return mismatch("the Mcp-Name header is required for " + m.Method)
	}
	name, ok := decodeHeaderValue(raw)
	if !ok {
		return mismatch("the Mcp-Name header is not valid base64 in its =?base64?...?= form")
	}
	if name != body {
		return mismatch("Mcp-Name header value '" + name + "' does not match body value '" + body + "'")
	}
	return nil, 0
}

// decodeHeaderValue undoes the =?base64?...?= form of a mirrored header value.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}
