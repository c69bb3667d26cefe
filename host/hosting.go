package host

// Hosting mode (serve --http, with a tenants file or without): the links it installs in the
// request pipeline (pipeline.go). With a tenants file, each request's scope is its tenant's
// (tenantScope): what it may see and run (roots, commands, wasm modules, limits, visible
// items) and its admission before any work is queued; always, the audit record and metrics of
// every costed request. The scope is resolved afresh for each request, so a reload of the
// tenants file applies to running sessions at their next request.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/audit"
	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/metrics"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/host/internal/worker"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// JSON-RPC errors of hosting mode.
const (
	// codeTenantLimit: a tenant quota refused the call before any work (data: limit,
	// retryAfterMs).
	codeTenantLimit = -32029
	// codeTenantRefused: the tenant is no longer served (the tenants file changed under a
	// session) or its roots are unusable.
	codeTenantRefused = -32028
)

// ErrTenantsWithoutAuth refuses a tenants file without an authentication method: without a
// principal there is no tenant.
var ErrTenantsWithoutAuth = errors.New("a tenants file needs authentication (server.d/auth.json or MCPBASH_AUTH_FILE, or MCPBASH_REMOTE_TOKEN): every request's tenant comes from its credential")

// hosting is the state of serve --http that the session core consults.
type hosting struct {
	// store is the tenants file (nil: no tenants, every session is the server's own).
	store *tenants.Store
	adm   *tenants.Admission
	audit *audit.Logger
	m     *metrics.Metrics
	log   *slog.Logger
	// idle counts the warm workers (metrics).
	idle func() int
	// scratch is a private directory (0700, made for this process) holding one scratch base
	// per tenant, so that a confined worker's read-write scratch rule covers its tenant's
	// calls only.
	scratch string

	// usable caches each resolved Tenant's root check (the store makes a new *Tenant per
	// generation, so a reload is checked again).
	usableMu sync.Mutex
	usable   map[*tenants.Tenant]error
}

// tenantsPath is the tenants file of a project: MCPBASH_TENANTS_FILE, else server.d/tenants.json
// when present ("" for none).
func tenantsPath(set *config.Config, dirs registry.Dirs) string {
	if set.TenantsFile != "" {
		return set.TenantsFile
	}
	def := filepath.Join(dirs.Server, "tenants.json")
	if _, err := os.Stat(def); err == nil {
		return def
	}
	return ""
}

// openHosting opens the tenants file (when there is one), the audit log and the admission
// queue. With tenants, calls run in worker processes: the caller has set
// MCPBASH_ISOLATION=process before the server was opened (requireProcessIsolation).
func openHosting(set *config.Config, path string, m *metrics.Metrics, log *slog.Logger) (*hosting, error) {
	h := &hosting{m: m, log: log, usable: map[*tenants.Tenant]error{}}
	al, err := audit.Open(set.AuditLog)
	if err != nil {
		return nil, fmt.Errorf("MCPBASH_AUDIT_LOG: %w", err)
	}
	h.audit = al
	if path == "" {
		return h, nil
	}
	h.store, err = tenants.Open(path, tenants.StoreOptions{Log: log, OnReload: func(uint64) { m.TenantsReloaded() }})
	if err != nil {
		al.Close()
		return nil, err
	}
	h.adm = tenants.NewAdmission(tenants.AdmissionOptions{Slots: set.CallSlots})
	base := sandbox.ScratchBase(set.TmpRoot)
	if h.scratch, err = os.MkdirTemp(base, "mcpbash-tenants-"); err != nil {
		al.Close()
		return nil, fmt.Errorf("tenant scratch directory in %s: %w", base, err)
	}
	return h, nil
}

func (h *hosting) close() {
	if h == nil {
		return
	}
	if h.adm != nil {
		h.adm.Drain()
	}
	h.audit.Close()
	if h.scratch != "" {
		os.RemoveAll(h.scratch)
	}
}

// requireProcessIsolation puts a tenanted server's calls in worker processes (one set per
// tenant) whatever MCPBASH_ISOLATION says: in-process calls of all tenants would share one
// address space, and no Landlock domain could separate them. docs/HOSTING.md says so.
func requireProcessIsolation(set *config.Config) {
	set.Isolation = "process"
}

// gate refuses a request whose tenant is not served (403, the same answer for an unknown,
// disabled or malformed tenant id) or whose roots are unusable (503, an operator problem,
// logged). It runs after authentication.
func (h *hosting) gate(srv *Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.store == nil {
			next.ServeHTTP(w, r)
			return
		}
		id := ""
		if p := auth.FromContext(r.Context()); p != nil {
			id = p.Tenant
		}
		t, err := h.store.Lookup(id)
		if err == nil {
			err = srv.tenantUsable(t)
		}
		var rootErr *tenants.RootError
		switch {
		case err == nil:
			next.ServeHTTP(w, r)
		case errors.As(err, &rootErr):
			h.log.Error("tenant roots unusable", "tenant", id, "error", err.Error())
			w.Header().Set("Retry-After", "30")
			writeHTTPError(w, http.StatusServiceUnavailable, nil, jsonrpc.NewError(codeTenantRefused, "Service Unavailable: this tenant's roots are not available; the operator has been told", nil))
		default:
			h.log.Info("tenant refused", "tenant", strconv.Quote(id), "why", err.Error())
			writeHTTPError(w, http.StatusForbidden, nil, jsonrpc.NewError(codeTenantRefused, "Forbidden: this tenant is not served here", nil))
		}
	})
}

// tenantUsable checks a tenant's roots once per configuration: each must pass vetRoot (never
// /, /proc, the scratch base or the wasm cache); none may lie inside the project or the
// resource roots, which every tenant's prompts, completions and resources read; and a
// read-write one may not contain them (a tenant writing there would reach the others).
func (srv *Server) tenantUsable(t *tenants.Tenant) error {
	h := srv.host
	h.usableMu.Lock()
	err, ok := h.usable[t]
	h.usableMu.Unlock()
	if ok {
		return err
	}
	shared := []string{sandbox.Physical(srv.cfg.Dirs.Root)}
	for _, r := range srv.resourceRoots() {
		shared = append(shared, r.Path)
	}
	for _, r := range t.Roots() {
		if _, ok := srv.vetRoot(r.Path, "tenant "+t.ID()); !ok {
			err = &tenants.RootError{Tenant: t.ID(), Path: r.Path, Err: errors.New("refused as a root (see the log)")}
			break
		}
		for _, d := range shared {
			// Inside the project: every tenant's prompts, completions and resource providers
			// read it. Containing it (read-write): the tenant could rewrite what all run.
			if under(r.Path, d) || (!r.ReadOnly && under(d, r.Path)) {
				err = &tenants.RootError{Tenant: t.ID(), Path: r.Path, Err: fmt.Errorf("a tenant root may not lie inside the project or resource root %s, nor a read-write one contain it", d)}
				break
			}
		}
		if err != nil {
			break
		}
	}
	h.usableMu.Lock()
	if len(h.usable) >= 4096 {
		clear(h.usable)
	}
	h.usable[t] = err
	h.usableMu.Unlock()
	return err
}

// tenantRoots are t's roots as sdk roots.
func tenantRoots(t *tenants.Tenant) []engine.Root {
	var out []engine.Root
	for _, r := range t.Roots() {
		out = append(out, engine.Root{URI: sandbox.FileURI(r.Path), Name: r.Name, Path: r.Path, ReadOnly: r.ReadOnly})
	}
	return out
}

// narrowRoots cuts a call's roots (the client's, already vetted) down to what t may see.
func narrowRoots(t *tenants.Tenant, roots []engine.Root) []engine.Root {
	client := make([]tenants.Root, 0, len(roots))
	for _, r := range roots {
		client = append(client, tenants.Root{Path: r.Path, Name: r.Name, ReadOnly: r.ReadOnly})
	}
	var out []engine.Root
	for _, r := range t.NarrowRoots(client) {
		out = append(out, engine.Root{URI: sandbox.FileURI(r.Path), Name: r.Name, Path: r.Path, ReadOnly: r.ReadOnly})
	}
	return out
}

// tenantScratch is t's scratch base (made on first use, 0700).
func (h *hosting) tenantScratch(t *tenants.Tenant) (string, error) {
	dir := filepath.Join(h.scratch, t.ID())
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	// The directory is ours (made in our private 0700 directory): no one else can have
	// planted a symlink there.
	return dir, nil
}

// tenantCommands is the tool's allowed host commands cut down to the tenant's list (no list:
// none).
func tenantCommands(t *tenants.Tenant, allowed []string) []string {
	var out []string
	for _, c := range allowed {
		if slices.Contains(t.Commands(), c) {
			out = append(out, c)
		}
	}
	return out
}

// tenantMayRun reports whether t may run tool at all: a wasm tool's module must be on the
// tenant's wasm list when it has one.
func tenantMayRun(t *tenants.Tenant, tool *registry.Tool) bool {
	if tool.Kind != registry.ToolWasm || t.Wasm() == nil {
		return true
	}
	mod := strings.TrimSuffix(filepath.Base(tool.Abs), ".wasm")
	return slices.Contains(t.Wasm(), tool.Name) || slices.Contains(t.Wasm(), mod)
}

// tenantJob applies t to a tool's engine job: its command and wasm lists, its output and
// memory limits, and its own scratch base.
func (srv *Server) tenantJob(job *engine.Job, t *tenants.Tenant) error {
	l := t.Limits()
	job.Policy.Allow = tenantCommands(t, job.Policy.Allow)
	job.Policy.Limits.MaxBytesWritten = l.BytesWritten
	if l.OutputBytes > 0 && (job.Policy.Limits.MaxStdoutBytes <= 0 || l.OutputBytes < job.Policy.Limits.MaxStdoutBytes) {
		job.Policy.Limits.MaxStdoutBytes = l.OutputBytes
	}
	if l.MemoryMiB > 0 && (job.MemoryMiB <= 0 || l.MemoryMiB < job.MemoryMiB) {
		job.MemoryMiB = l.MemoryMiB // a wasm tool's linear memory
	}
	if mem := int64(l.MemoryMiB) << 20; mem > 0 && (job.Policy.Limits.MaxUtilityBytes <= 0 || mem < job.Policy.Limits.MaxUtilityBytes) {
		job.Policy.Limits.MaxUtilityBytes = mem // what a script's in-process utilities hold at once
	}
	if cmds, ok := job.Commands.(*wasm.Commands); ok {
		cmds.Allow = t.Wasm()
		if l.MemoryMiB > 0 && (cmds.MemoryMiB <= 0 || l.MemoryMiB < cmds.MemoryMiB) {
			cmds.MemoryMiB = l.MemoryMiB
		}
	}
	dir, err := srv.host.tenantScratch(t)
	if err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Tenant scratch directory unavailable", err.Error())
	}
	job.ScratchBase = dir
	return nil
}

// install puts hosting mode's links into srv's request pipeline: the audit log and metrics
// of every costed request, and, with a tenants file, each request's tenant scope.
func (h *hosting) install(srv *Server) {
	h.idle = func() int {
		if srv.pool == nil {
			return 0
		}
		return srv.pool.Idle()
	}
	srv.host = h
	srv.pipe.audit = h
	srv.pipe.auditLog = h.audit
	if h.store != nil {
		srv.pipe.scopes = func(id, _ string) (scope, error) { return h.scope(srv, id) }
	}
}

// scope resolves tenant id's scope now, so that a reload of the tenants file applies to
// running sessions at their next request.
func (h *hosting) scope(srv *Server, id string) (scope, error) {
	t, err := h.store.Lookup(id)
	if err == nil {
		err = srv.tenantUsable(t)
	}
	if err != nil {
		h.log.Info("tenant refused", "tenant", strconv.Quote(id), "why", err.Error())
		return nil, &refusal{cause: tenants.CauseNotServed, rpc: jsonrpc.NewError(codeTenantRefused, "This tenant is not served here (any more)", nil)}
	}
	return &tenantScope{srv: srv, h: h, t: t}, nil
}

// tenantScope is what a tenant's request may see and do: the tenants file's entry for it,
// resolved for this request.
type tenantScope struct {
	srv *Server
	h   *hosting
	t   *tenants.Tenant
}

func (ts *tenantScope) tenant() string { return ts.t.ID() }

func (ts *tenantScope) visible(kind tenants.Kind, name string) bool { return ts.t.Visible(kind, name) }

func (ts *tenantScope) seesAll(kind tenants.Kind) bool { return !ts.t.Filters(kind) }

func (ts *tenantScope) toolAllowed(tool *registry.Tool) bool {
	return ts.t.Visible(tenants.KindTool, tool.Name) && tenantMayRun(ts.t, tool)
}

func (ts *tenantScope) engineAllowed(tool *registry.Tool, engine string) error {
	if engine == ExecNative {
		// Real bash runs any binary it finds: no tenant's command list could hold.
		return invalidParams(fmt.Sprintf("Tool '%s' runs in the native engine, which hosting mode does not offer tenants; run it sandboxed", tool.Name))
	}
	return nil
}

func (ts *tenantScope) roots(ctx context.Context, client func(context.Context) []engine.Root, fromClient bool) []engine.Root {
	if client == nil || !fromClient {
		return tenantRoots(ts.t) // as configured now: a reload may move them
	}
	// A client's roots can only narrow the tenant's (the one place every call passes).
	return narrowRoots(ts.t, client(ctx))
}

func (ts *tenantScope) fallbackRoots() []engine.Root { return tenantRoots(ts.t) }

func (ts *tenantScope) timeout(d time.Duration) time.Duration { return min(d, ts.t.Limits().Timeout) }

func (ts *tenantScope) prepare(ctx context.Context, job engine.Job) (engine.Job, context.Context, error) {
	if err := ts.srv.tenantJob(&job, ts.t); err != nil {
		return job, nil, err
	}
	return job, ts.srv.withTenantWorkers(ctx, ts.t), nil
}

func (ts *tenantScope) page(ctx context.Context, k registry.Kind, items []json.RawMessage, _ int) ([]json.RawMessage, int, error) {
	// Hidden items are neither listed nor counted: a tenant learns nothing of them.
	return ts.srv.tenantPage(ctx, ts.t, k, items)
}

// private: each tenant sees its own lists, so a shared cache must not hand one to another.
func (ts *tenantScope) private() bool { return true }

func (ts *tenantScope) admit(string) (ticket, error) {
	tk, err := ts.h.adm.Enqueue(ts.t)
	var le *tenants.LimitError
	if errors.As(err, &le) {
		return nil, limitRefusal(le.Cause, le.RetryAfter, "")
	}
	if err != nil {
		return nil, err
	}
	ts.h.quota(ts.t.ID())
	return tk, nil
}

func (ts *tenantScope) review() bool { return ts.t.Review() }

// pending: a tenant's change sets share one cap, whatever their sessions.
func (ts *tenantScope) pending(string) (string, string) { return ts.t.ID(), "" }

func (ts *tenantScope) seats() seatLimits {
	l := ts.t.Limits()
	return seatLimits{listens: l.Listens, subscriptions: l.Subscriptions, bufferedBytes: l.BufferedBytes}
}

// quota publishes a tenant's quota use and the global occupancy.
func (h *hosting) quota(id string) {
	u := h.adm.Usage(id)
	h.m.Quota(id, u.Running, u.Waiting, u.Tokens)
	st := h.adm.Stats()
	h.m.Workers(st.Busy, h.idle(), st.Slots, st.Waiting)
}

// begin starts the audit record of a costed request: its name and arguments, from the
// pipeline's parse.
func (h *hosting) begin(r *Request, kind string) *callRecord {
	rec := &callRecord{kind: kind}
	rec.name, rec.args = workName(r)
	return rec
}

// account writes the audit record and the metrics of one costed request: its outcome, and
// for a refusal the limit that refused it.
func (h *hosting) account(ctx context.Context, s *Session, _ *Request, rec *callRecord, res any, err error, d time.Duration) {
	tenant := s.tenant
	outcome, cause := metrics.OutcomeOK, ""
	switch {
	case errors.Is(err, errHeld):
		// opened (a listen stream): the request succeeded, its answer comes later
	case causeOf(err) != "":
		outcome, cause = metrics.OutcomeRefused, causeOf(err)
		h.m.LimitHit(tenant, cause)
	case errors.Is(err, errSuppressed) || (err != nil && ctx.Err() != nil && !errors.Is(context.Cause(ctx), errShuttingDown)):
		outcome = metrics.OutcomeCancelled
	case err != nil:
		outcome = metrics.OutcomeError
	case rec.outcome != nil && rec.outcome.TimedOut:
		outcome, cause = metrics.OutcomeTimeout, "timeout"
	case isErrorResult(res):
		outcome = metrics.OutcomeToolError
		if rec.outcome != nil && rec.outcome.Limit != engine.LimitNone {
			cause = rec.outcome.LimitHit
			h.m.LimitHit(tenant, string(rec.outcome.Limit))
		}
	}
	h.m.Call(tenant, rec.kind, outcome, d)
	var acc []sandbox.Access
	readsLeftOut := 0
	if rec.outcome != nil && len(rec.outcome.Access) > 0 && string(rec.outcome.Access) != engine.NoAccess {
		var doc struct {
			Entries   []sandbox.Access `json:"entries"`
			Truncated int              `json:"truncated"`
		}
		if json.Unmarshal(rec.outcome.Access, &doc) == nil {
			acc, readsLeftOut = doc.Entries, doc.Truncated
		}
		for _, a := range acc {
			if !a.Allowed {
				h.m.Refusals(tenant, metrics.RefusalReason(a.Op, a.Reason), max(a.Count, 1))
			}
		}
	}
	if h.audit.Enabled() {
		// The arguments' hash decodes and re-encodes them: only for a log that is written.
		hash, _ := audit.ArgumentsHash(rec.args)
		h.audit.Log(ctx, audit.Record{Tenant: tenant, Subject: s.subject, Session: s.id, Kind: rec.kind, Name: rec.name,
			ArgsSHA256: hash, Duration: d, Outcome: outcome, Cause: cause, Access: acc, ReadsNotRecorded: readsLeftOut})
	}
	if h.adm != nil {
		h.quota(tenant)
	}
}

// isErrorResult reports whether a tools/call result is an isError result.
func isErrorResult(res any) bool {
	r, ok := res.(*CallToolResult)
	return ok && r != nil && r.IsError
}

// workName is the name a costed request's audit record carries (tool or prompt name,
// resource URI, completion ref) and its arguments: a tool's from the pipeline's one parse.
func workName(r *Request) (string, json.RawMessage) {
	if r.Method == "tools/call" {
		if r.call == nil {
			return "", nil
		}
		return r.tool(), r.call.Arguments
	}
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Ref       struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument json.RawMessage `json:"argument"`
	}
	_ = json.Unmarshal(r.Params, &p)
	switch r.Method {
	case "resources/read", "resources/subscribe":
		return p.URI, nil
	case "completion/complete":
		return strings.TrimSpace(p.Ref.Name + p.Ref.URI), p.Argument
	case "subscriptions/listen":
		return "", nil
	}
	return p.Name, p.Arguments
}

// withTenantWorkers marks ctx's engine runs as t's: its own workers, confined to its roots,
// their heap limited to its memoryMiB (never above the server's MCPBASH_MAX_HEAP_MB).
func (srv *Server) withTenantWorkers(ctx context.Context, t *tenants.Tenant) context.Context {
	heapMiB := t.Limits().MemoryMiB
	if max := srv.cfg.Settings.MaxHeapMiB; max > 0 && (heapMiB <= 0 || heapMiB > max) {
		heapMiB = max
	}
	var roots []sandbox.Root
	for _, r := range t.Roots() {
		mode := sandbox.ReadWrite
		if r.ReadOnly {
			mode = sandbox.ReadOnly
		}
		roots = append(roots, sandbox.Root{Path: r.Path, Name: r.Name, Mode: mode})
	}
	return worker.WithTenant(ctx, worker.Tenant{ID: t.ID(), Roots: roots, HeapMiB: heapMiB})
}

// visibilityKind is the tenants-file section that filters a registry kind.
func visibilityKind(k registry.Kind) tenants.Kind {
	switch k {
	case registry.KindTools:
		return tenants.KindTool
	case registry.KindPrompts:
		return tenants.KindPrompt
	}
	return tenants.KindResource
}

// tenantPage filters one list page to what t sees and counts every item t sees: items hidden
// by the tenants file, and wasm tools whose module the tenant may not run.
func (srv *Server) tenantPage(ctx context.Context, t *tenants.Tenant, k registry.Kind, items []json.RawMessage) ([]json.RawMessage, int, error) {
	kind := visibilityKind(k)
	keep := func(it json.RawMessage) bool {
		var x struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(it, &x) != nil || !t.Visible(kind, x.Name) {
			return false
		}
		if k == registry.KindTools {
			if tool, err := srv.reg.Tool(ctx, x.Name); err == nil && !tenantMayRun(t, tool) {
				return false
			}
		}
		return true
	}
	total, cursor := 0, ""
	for {
		page, err := srv.reg.List(ctx, k, cursor, registry.MaxPageSize)
		if err != nil {
			return nil, 0, err
		}
		for _, it := range page.Items {
			if keep(it) {
				total++
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out, total, nil
}

// resourceVisible reports whether sc sees a resource: a registered one by its name, a URI of a
// template by the template's name, any other URI by the URI itself.
func (srv *Server) resourceVisible(ctx context.Context, sc scope, res *registry.Resource, uri string) bool {
	if sc.seesAll(tenants.KindResource) {
		return true
	}
	name := uri
	switch {
	case res != nil:
		name = res.Name
	default:
		if tpl := srv.matchTemplate(ctx, uri); tpl != nil {
			name = tpl.Name
		}
		// A registered file resource named by another spelling of its path is still that
		// resource (file://./notes.txt and file:///project/notes.txt).
		if p, err := srv.fileURIPath(uri); err == nil && providerFor(uri) == "file" {
			p = sandbox.Physical(p)
			if all, err := srv.reg.Resources(ctx); err == nil {
				for _, x := range all {
					if xp, err := srv.fileURIPath(x.URI); err == nil && providerFor(x.URI) == "file" && sandbox.Physical(xp) == p {
						if !sc.visible(tenants.KindResource, x.Name) {
							return false
						}
					}
				}
			}
		}
	}
	return sc.visible(tenants.KindResource, name)
}
