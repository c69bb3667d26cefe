package host

// The request pipeline. Every request, whatever its method, transport, batch or revision,
// passes one chain, once:
//
//  1. parse: the transport decodes the message (jsonrpc.Decode) and parseRequest reads the
//     params that decide what runs (the tool of tools/call), once;
//  2. authorize: the principal's scopes against that same parse (HTTP: authorizePOST, before
//     any message of the POST is dispatched; stdio: the remote token);
//  3. scope: who asks and what they may see and do, resolved once for the request (scopeFor):
//     the operator's defaults, or a tenant's when hosting installs tenancy;
//  4. admit: the scope's quotas, before anything is queued (scope.admit);
//  5. account: the audit record and the metrics of costed requests (auditor);
//  6. invoke: the method's handler, with the scope in its context.
//
// The core (handlers, CallTool, lists, resources, prompts) asks the scope, never whether there
// is a tenant: hosting.go installs the tenant links (withHosting), and the operator scope below
// is what stdio and an HTTP server without a tenants file get.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/audit"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Request is one incoming message as the pipeline parsed it: what authorization checks is
// what the handler runs.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage

	msg *jsonrpc.Message
	// scope is who asks and what they may see and do, resolved once by the pipeline.
	scope scope
	// call is tools/call's params, decoded once (nil for other methods, or when callErr).
	call    *callParams
	callErr error
}

// parseRequest is the pipeline's parse of one decoded message: the params that authorization
// depends on are decoded here, and only here.
func parseRequest(m *jsonrpc.Message) *Request {
	r := &Request{ID: m.ID, Method: m.Method, Params: m.Params, msg: m}
	if m.Method == "tools/call" && m.Kind() == jsonrpc.KindRequest {
		var p callParams
		if p.scan(m.Params) {
			r.call = &p
		} else if err := decodeParams(m.Params, &p); err != nil {
			r.callErr = err
		} else {
			r.call = &p
		}
	}
	return r
}

// tool is the tool a tools/call names ("" for other methods and for params that do not
// decode, which the handler refuses without running anything).
func (r *Request) tool() string {
	if r.call == nil || r.call.Name == nil {
		return ""
	}
	return *r.call.Name
}

// scope is who makes a request and what it may see and do: resolved once per request by the
// pipeline, asked by the core.
type scope interface {
	// tenant is whose request it is ("": the operator's own).
	tenant() string
	// visible reports whether the scope sees a tool, resource or prompt: a hidden one is
	// answered exactly as a missing one.
	visible(kind tenants.Kind, name string) bool
	// seesAll reports that visible is true for every name of kind (nothing to filter).
	seesAll(kind tenants.Kind) bool
	// toolAllowed reports whether the scope sees tool and may run it in engine (a tenant's
	// wasm list; native is refused for tenants with its own error).
	toolAllowed(tool *registry.Tool) bool
	engineAllowed(tool *registry.Tool, engine string) error
	// roots are a call's roots from the caller's (client nil: none; fromClient: a client
	// named them, else they are a session's fallback or run-tool's): a client's are cut
	// down to the scope's.
	roots(ctx context.Context, client func(context.Context) []engine.Root, fromClient bool) []engine.Root
	// fallbackRoots are a session's roots until its client names its own.
	fallbackRoots() []engine.Root
	// timeout caps a call's timeout.
	timeout(d time.Duration) time.Duration
	// prepare applies the scope to a call's engine job (commands, limits, scratch) and
	// returns it with the context the engine runs in (the scope's workers). The job goes by
	// value: a pointer through this interface would put every call's job on the heap.
	prepare(ctx context.Context, job engine.Job) (engine.Job, context.Context, error)
	// page cuts one list page, and its total, down to what the scope sees.
	page(ctx context.Context, k registry.Kind, items []json.RawMessage, total int) ([]json.RawMessage, int, error)
	// private reports whether cacheable 2026-07-28 results are private to this caller.
	private() bool
	// admit passes a costed request through the scope's quotas before anything is queued: a
	// ticket to wait on (nil: none applies), or a *refusal.
	admit(kind string) (ticket, error)
	// seats are the scope's shares of the server's pools.
	seats() seatLimits
	// review reports whether the scope asks for review mode (docs/REVIEW.md); pending names
	// the change sets a call's count against the pending cap: those of tenant, and of
	// session too when it is not "" (a scope without a tenant caps per session).
	review() bool
	pending(session string) (tenant, sameSession string)
}

// ticket is an admitted request's place in its scope's queue: Ready is closed when it may run;
// Release is called once when it ends.
type ticket interface {
	Ready() <-chan struct{}
	Release()
}

// seatLimits are a scope's shares of the pools every request draws on.
type seatLimits struct {
	// listens: subscriptions/listen streams open at once; subscriptions: resources watched
	// at once (across the scope's listens and sessions).
	listens, subscriptions int
	// bufferedBytes: bytes of SSE events held for the scope's streams that no client reads.
	bufferedBytes int64
}

// sessionScope is the session's scope resolved now, for work outside any request (pollers,
// roots): never wider than the session's principal.
func (s *Session) sessionScope() (scope, error) { return s.srv.pipe.scopes(s.tenant, s.subject) }

// pipeline are the links of the chain a transport or hosting installs (withHosting); the
// defaults are the operator's.
type pipeline struct {
	// scopes resolves a principal (tenant, subject) to its scope.
	scopes func(tenant, subject string) (scope, error)
	// audit accounts costed requests.
	audit auditor
	// seats counts the listens and subscriptions each scope holds.
	seats seatTable
	// auditLog is hosting mode's audit log (nil elsewhere), for what is logged outside a
	// request (review mode's decisions).
	auditLog *audit.Logger
}

// auditor writes the audit record and the metrics of a costed request.
type auditor interface {
	// begin returns the record a costed request's handler fills in (nil: not audited).
	begin(r *Request, kind string) *callRecord
	account(ctx context.Context, s *Session, r *Request, rec *callRecord, res any, err error, d time.Duration)
}

type noAudit struct{}

func (noAudit) begin(*Request, string) *callRecord { return nil }
func (noAudit) account(context.Context, *Session, *Request, *callRecord, any, error, time.Duration) {
}

// costed are the requests that run project code or read resources: they pass admission and
// are audited, by the kind they are counted as.
var costed = map[string]string{
	"tools/call":           "tool",
	"resources/read":       "resource",
	"resources/subscribe":  "resource",
	"prompts/get":          "prompt",
	"completion/complete":  "completion",
	"subscriptions/listen": "listen",
}

// callRecord collects what the audit log and the metrics need from a call's handler.
type callRecord struct {
	kind, name string
	args       json.RawMessage
	outcome    *engine.Outcome
}

type callRecordKey struct{}

func recordOf(ctx context.Context) *callRecord {
	rec, _ := ctx.Value(callRecordKey{}).(*callRecord)
	return rec
}

// refusal is a request the pipeline refused before it ran (a quota, a tenant no longer
// served): answered with rpc, audited and counted as refused with cause.
type refusal struct {
	cause string
	rpc   *jsonrpc.Error
}

func (e *refusal) Error() string { return e.rpc.Error() }
func (e *refusal) Unwrap() error { return e.rpc }

// limitRefusal is the answer to a request over one of its scope's limits.
func limitRefusal(cause string, retryAfter time.Duration, detail string) *refusal {
	data := map[string]any{"limit": cause}
	msg := "Tenant limit reached: " + cause
	if detail != "" {
		msg += " (" + detail + ")"
	}
	if retryAfter > 0 {
		data["retryAfterMs"] = retryAfter.Milliseconds()
		msg += fmt.Sprintf("; retry in %s", retryAfter.Round(time.Millisecond))
	}
	return &refusal{cause: cause, rpc: jsonrpc.NewError(codeTenantLimit, msg, data)}
}

// causeOf is the refusal cause behind err ("" when err is not a refusal).
func causeOf(err error) string {
	var rf *refusal
	if errors.As(err, &rf) {
		return rf.cause
	}
	return ""
}

// seatTable counts, per scope (tenant id, "" for the operator), the listens and resource
// subscriptions open now, so that one scope cannot hold every stream and poller.
type seatTable struct {
	mu   sync.Mutex
	held map[string]*seatCount
}

type seatCount struct{ listens, subscriptions int }

// take reserves a listen (listen) and n subscriptions for sc, or refuses with the limit; the
// release func gives them back (once).
func (t *seatTable) take(sc scope, listen bool, n int) (func(), error) {
	lim := sc.seats()
	key := sc.tenant()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == nil {
		t.held = map[string]*seatCount{}
	}
	c := t.held[key]
	if c == nil {
		c = &seatCount{}
		t.held[key] = c
	}
	if listen && lim.listens > 0 && c.listens >= lim.listens {
		return nil, limitRefusal(tenants.CauseListens, 0, fmt.Sprintf("%d subscriptions/listen streams open; close one first", lim.listens))
	}
	if lim.subscriptions > 0 && c.subscriptions+n > lim.subscriptions {
		return nil, limitRefusal(tenants.CauseSubscriptions, 0, fmt.Sprintf("at most %d resources watched at once, %d already", lim.subscriptions, c.subscriptions))
	}
	if listen {
		c.listens++
	}
	c.subscriptions += n
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if listen {
				c.listens--
			}
			c.subscriptions -= n
			if c.listens <= 0 && c.subscriptions <= 0 && t.held[key] == c {
				delete(t.held, key)
			}
		})
	}, nil
}

// operatorScope is the scope of a request without a tenant: stdio, run-tool, and HTTP
// without a tenants file. It sees everything the server serves, its calls run in the
// server's roots and engines.
type operatorScope struct{ srv *Server }

func (operatorScope) tenant() string                    { return "" }
func (operatorScope) visible(tenants.Kind, string) bool { return true }
func (operatorScope) seesAll(tenants.Kind) bool         { return true }
func (operatorScope) toolAllowed(*registry.Tool) bool   { return true }
func (operatorScope) engineAllowed(*registry.Tool, string) error {
	return nil
}
func (o operatorScope) roots(ctx context.Context, client func(context.Context) []engine.Root, _ bool) []engine.Root {
	if client != nil {
		return client(ctx)
	}
	return o.srv.fallbackRoots()
}
func (o operatorScope) fallbackRoots() []engine.Root        { return o.srv.fallbackRoots() }
func (operatorScope) timeout(d time.Duration) time.Duration { return d }
func (operatorScope) prepare(ctx context.Context, job engine.Job) (engine.Job, context.Context, error) {
	return job, ctx, nil
}
func (operatorScope) page(_ context.Context, _ registry.Kind, items []json.RawMessage, total int) ([]json.RawMessage, int, error) {
	return items, total, nil
}
func (operatorScope) private() bool                { return false }
func (operatorScope) admit(string) (ticket, error) { return nil, nil }
func (operatorScope) review() bool                 { return false }
func (operatorScope) pending(session string) (string, string) {
	return "", session
}
func (o operatorScope) seats() seatLimits {
	set := o.srv.cfg.Settings
	return seatLimits{listens: set.MaxListens, subscriptions: set.MaxSubscriptions, bufferedBytes: set.HTTP.MaxBufferedBytes}
}
