package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/native"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/worker"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

type handlerFunc func(ctx context.Context, s *Session, r *Request) (any, error)

type handler struct {
	fn handlerFunc
	// inline handlers run on the reader goroutine, in order (lifecycle, ping, logging).
	inline bool
}

type notificationFunc func(ctx context.Context, s *Session, params json.RawMessage)

// Server holds what every session shares: configuration and the method tables.
type Server struct {
	cfg           Config
	handlers      map[string]handler
	notifications map[string]notificationFunc
	logMu         sync.Mutex
	// log, when set (serve --http), receives diagnostics as structured records instead of
	// lines on Stderr.
	log *slog.Logger
	reg *registry.Registry
	// engine runs server-side scripts (prompts, completions, resource providers) and, unless
	// MCPBASH_ISOLATION=process puts them in workers, sandboxed tools.
	engine *interp.Engine
	// engines are the engine contract's implementations by tool kind (engineFor).
	engines map[string]engine.Engine
	pool    *worker.Pool // MCPBASH_ISOLATION=process: sandboxed calls run in worker processes
	native  *native.Engine
	// scriptNative runs providers and completion scripts natively (MCPBASH_PROVIDER_ENV_MODE).
	scriptNative *native.Engine
	confiner     *sandbox.Confiner
	wasm         wasmHost
	confineNote  sync.Once
	policyNote   sync.Once
	policyFiles  policyFiles
	rootsVars    rootsVarsCache
	// minimal is MCPBASH_FORCE_MINIMAL: logging only.
	minimal    bool
	schemas    schemaCache
	https, git remoteFetcher
	downloader func(context.Context, engine.DownloadRequest) ([]byte, error)
	// remote verifies MCPBASH_REMOTE_TOKEN on every message (nil when unset).
	remote *auth.RemoteToken
	// host is hosting mode's state (serve --http): tenants, admission, audit, metrics; nil on
	// stdio. Only the links it installs in pipe (withHosting) and the HTTP transport use it.
	host *hosting
	// pipe are the links of the request pipeline (pipeline.go).
	pipe pipeline
	// review is review mode's change store (review.go).
	review reviewState
	// stateKey signs 2026-07-28 requestState tokens; fresh per process.
	stateKey [32]byte
	// statelessInfo is the serverInfo every 2026-07-28 result carries, written once.
	statelessInfo json.RawMessage
	// protected are the project's own directories, cleaned once (see protectedRoots).
	protected []string
	// policyRoots remembers the sandbox roots of the last roots a call ran in (toolPolicy).
	policyRoots atomic.Pointer[policyRootsMemo]
	// rootsLogged remembers the refused roots already logged (vetRoot).
	rootsLogMu  sync.Mutex
	rootsLogged map[string]bool

	// sessions are the sessions being served (stdio serves one), for registry warnings and
	// list_changed notifications.
	sessMu     sync.Mutex
	sessions   map[*Session]struct{}
	refreshing atomic.Bool
	bg         sync.WaitGroup // background registry work
}

// ServerOption configures a Server as NewServer builds it: what a transport adds to the core
// is given at construction, never set on a Server afterwards.
type ServerOption func(*serverOptions)

type serverOptions struct {
	log     *slog.Logger
	hosting *hosting
}

// WithLogger sends the server's diagnostics to log as structured records instead of lines on
// Config.Stderr (serve --http).
func WithLogger(log *slog.Logger) ServerOption {
	return func(o *serverOptions) { o.log = log }
}

// withHosting installs hosting mode (serve --http): tenants, admission, audit and metrics.
func withHosting(h *hosting) ServerOption {
	return func(o *serverOptions) { o.hosting = h }
}

// NewServer builds a server from cfg and opts. It fails when the project cannot be served (for
// example an invalid server.d/register.json), so that the server refuses to start with a clear
// message.
func NewServer(ctx context.Context, cfg Config, opts ...ServerOption) (*Server, error) {
	var so serverOptions
	for _, o := range opts {
		o(&so)
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 16
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.Settings == nil {
		set, err := config.Load(cfg.Getenv)
		if err != nil {
			return nil, err
		}
		cfg.Settings = set
	}
	switch cfg.Exec {
	case "", ExecSandbox, ExecNative:
	default:
		return nil, fmt.Errorf("unknown --exec engine %q (want sandbox or native)", cfg.Exec)
	}
	srv := &Server{cfg: cfg, notifications: map[string]notificationFunc{}, protected: protectedDirs(cfg.Dirs), log: so.log}
	var err error
	if srv.remote, err = newRemoteToken(cfg); err != nil {
		return nil, err
	}
	if err := srv.loadStateKey(); err != nil {
		return nil, err
	}
	if srv.statelessInfo, err = json.Marshal(srv.serverInfo(StatelessVersion)); err != nil {
		return nil, err
	}
	srv.handlers = map[string]handler{
		"initialize":           {fn: srv.initialize, inline: true},
		"ping":                 {fn: func(context.Context, *Session, *Request) (any, error) { return struct{}{}, nil }, inline: true},
		"logging/setLevel":     {fn: srv.setLevel, inline: true},
		"shutdown":             {fn: srv.shutdown, inline: true},
		"exit":                 {fn: srv.exit, inline: true},
		"server/discover":      {fn: srv.discover, inline: true},
		"subscriptions/listen": {fn: srv.subscriptionsListen},
	}
	// The engine comes first: project hooks run in it while the registry opens.
	maxHeap := uint64(cfg.Settings.MaxHeapMiB) << 20
	srv.wasm.meter = sandbox.NewMeter(int64(maxHeap))
	if srv.engine, err = interp.NewEngineWith(interp.EngineOptions{MaxHeapBytes: maxHeap, Meter: srv.wasm.meter, Logf: srv.logf, OwnsProcess: true}); err != nil {
		return nil, err
	}
	reg, err := registry.Open(ctx, registry.Options{Dirs: cfg.Dirs, ServerName: cfg.Meta.Name, Settings: cfg.Settings.Registry,
		TmpRoot: cfg.Settings.TmpRoot, HookEnv: cfg.Getenv, HookEnviron: cfg.Environ, HookSandbox: srv.engine, HookBash: srv.hookBash(),
		HookPassthrough: cfg.Settings.Passthrough, Warn: srv.registryWarning})
	if err != nil {
		return nil, err
	}
	srv.reg = reg
	srv.registerLists()
	self := selfBinary(cfg)
	srv.native = srv.nativeEngine(self)
	srv.scriptNative = srv.scriptNativeEngine(self)
	srv.confiner = &sandbox.Confiner{Self: self, Required: cfg.Settings.RequireConfinement, Unconfined: cfg.Settings.NativeUnconfined}
	if srv.pool, err = newWorkerPool(cfg, self, int(maxHeap>>20), srv.logf); err != nil {
		return nil, err
	}
	srv.engines = srv.newEngines()
	srv.pipe.scopes = func(string, string) (scope, error) { return operatorScope{srv}, nil }
	srv.pipe.audit = noAudit{}
	if h := so.hosting; h != nil {
		h.install(srv)
	}
	srv.handlers["tools/call"] = handler{fn: srv.toolsCall}
	srv.registerResources()
	srv.wireRemote()
	srv.registerPrompts()
	srv.notifications["notifications/roots/list_changed"] = func(ctx context.Context, s *Session, _ json.RawMessage) {
		s.rootsChanged(ctx)
	}
	if cfg.Settings.ForceMinimal {
		srv.minimalMode()
	}
	return srv, nil
}

// minimalMode is MCPBASH_FORCE_MINIMAL: as the original without a JSON tool, only logging is
// advertised and served; the other areas answer -32601 with the original's words.
func (srv *Server) minimalMode() {
	srv.minimal = true
	for method, h := range srv.handlers {
		area, _, _ := strings.Cut(method, "/")
		var name string
		switch area {
		case "tools", "resources", "prompts":
			name = strings.ToUpper(area[:1]) + area[1:]
		case "completion":
			name = "Completion"
		default:
			continue
		}
		msg := name + " capability unavailable in minimal mode"
		h.fn = func(context.Context, *Session, *Request) (any, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, msg, nil)
		}
		srv.handlers[method] = h
	}
}

// minStateKeyBytes is the shortest MCPBASH_STATE_KEY_FILE accepted.
const minStateKeyBytes = 32

// loadStateKey sets the key that signs 2026-07-28 requestState: from MCPBASH_STATE_KEY_FILE,
// so that replicas accept each other's, else random for this process.
func (srv *Server) loadStateKey() error {
	path := srv.cfg.Settings.StateKeyFile
	if path == "" {
		if _, err := rand.Read(srv.stateKey[:]); err != nil {
			return fmt.Errorf("host: random key: %w", err)
		}
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("MCPBASH_STATE_KEY_FILE: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < minStateKeyBytes {
		return fmt.Errorf("MCPBASH_STATE_KEY_FILE %s: the key has %d bytes, want at least %d (e.g. openssl rand -hex 32)", path, len(b), minStateKeyBytes)
	}
	srv.stateKey = sha256.Sum256(b)
	return nil
}

// Registry exposes the project model (for CLI verbs that share the server's view).
func (srv *Server) Registry() *registry.Registry { return srv.reg }

// registryWarning reports a non-fatal scan problem on stderr and, once the session is ready, as
// a logging notification.
func (srv *Server) registryWarning(w registry.Warning) {
	if w.Path != "" {
		srv.logf("warning: registry %s: %s: %s", w.Kind, w.Path, w.Message)
	} else {
		srv.logf("warning: registry %s: %s", w.Kind, w.Message)
	}
	for _, s := range srv.liveSessions() {
		if s.state.Load() == stateReady {
			s.Log(LevelWarning, "mcp.registry", w)
		}
	}
}

// addSession and removeSession keep the table of live sessions.
func (srv *Server) addSession(s *Session) {
	srv.sessMu.Lock()
	defer srv.sessMu.Unlock()
	if srv.sessions == nil {
		srv.sessions = map[*Session]struct{}{}
	}
	srv.sessions[s] = struct{}{}
}

func (srv *Server) removeSession(s *Session) {
	srv.sessMu.Lock()
	defer srv.sessMu.Unlock()
	delete(srv.sessions, s)
}

// liveSessions is a snapshot of the live sessions.
func (srv *Server) liveSessions() []*Session {
	srv.sessMu.Lock()
	defer srv.sessMu.Unlock()
	out := make([]*Session, 0, len(srv.sessions))
	for s := range srv.sessions {
		out = append(out, s)
	}
	return out
}

// logf writes one diagnostic line to stderr; stdout is reserved for protocol.
func (srv *Server) logf(format string, args ...any) {
	if srv.log != nil {
		srv.log.Info(fmt.Sprintf(format, args...))
		return
	}
	srv.logMu.Lock()
	defer srv.logMu.Unlock()
	fmt.Fprintf(srv.cfg.Stderr, "mcp-bash: "+format+"\n", args...)
}

func invalidParams(msg string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg, nil)
}

// decodeParams unmarshals params (absent means {}) or answers -32602.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params", err.Error())
	}
	return nil
}

func (srv *Server) initialize(ctx context.Context, s *Session, r *Request) (any, error) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if !s.state.CompareAndSwap(stateNew, stateInitializing) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Server already initialized", nil)
	}
	version := p.ProtocolVersion
	if !slices.Contains(supportedVersions, version) {
		// The spec: answer with a version we support; the client decides whether to go on.
		version = LatestVersion
	}
	s.mu.Lock()
	s.protocol = version
	s.client.Capabilities = p.Capabilities
	s.client.Info = p.ClientInfo
	s.client.anonymous = len(p.ClientInfo) == 0 || string(p.ClientInfo) == "null"
	if len(p.Capabilities) > 0 {
		_ = json.Unmarshal(p.Capabilities, &s.client.caps)
	}
	s.mu.Unlock()

	caps := srv.capabilities(version)
	// MCP Apps: echo the UI extension when the client offers it, as the original does.
	var offered struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(p.Capabilities, &offered) == nil {
		if ui, ok := offered.Extensions["io.modelcontextprotocol/ui"]; ok && revisionHasExtensions(version) {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/ui": ui}
		}
	}
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"serverInfo":      srv.serverInfo(version),
	}
	if srv.cfg.Meta.Instructions != "" && version != "2024-11-05" {
		res["instructions"] = srv.cfg.Meta.Instructions
	}
	return res, nil
}

// capabilities advertises exactly what this server implements for the negotiated revision.
func (srv *Server) capabilities(version string) map[string]any {
	caps := map[string]any{"logging": map[string]any{}}
	modern := version != "2025-03-26" && version != "2024-11-05"
	for _, f := range srv.features() {
		if f.name == "completions" && version == "2024-11-05" {
			continue // that revision has no completions capability
		}
		c := map[string]any{}
		if modern && f.listChanged {
			c["listChanged"] = true
		}
		if f.subscribe {
			c["subscribe"] = true
		}
		caps[f.name] = c
	}
	return caps
}

type feature struct {
	name                   string
	listChanged, subscribe bool
}

// features lists the capability groups wired into this server.
func (srv *Server) features() []feature {
	if srv.minimal {
		return nil
	}
	var fs []feature
	_, canSubscribe := srv.handlers["resources/subscribe"]
	for _, f := range []feature{
		{name: "tools", listChanged: true},
		{name: "resources", listChanged: true, subscribe: canSubscribe},
		{name: "prompts", listChanged: true},
	} {
		if _, ok := srv.handlers[f.name+"/list"]; ok {
			fs = append(fs, f)
		}
	}
	if _, ok := srv.handlers["completion/complete"]; ok {
		fs = append(fs, feature{name: "completions"})
	}
	return fs
}

func (srv *Server) serverInfo(version string) map[string]any {
	m := srv.cfg.Meta
	info := map[string]any{"name": m.Name, "version": m.Version}
	if m.Version == "" || srv.cfg.Bootstrap && srv.cfg.Version != "" {
		// The built-in getting-started project is mcp-bash itself: it reports the binary's version.
		info["version"] = srv.cfg.Version
	}
	if version == "2024-11-05" || version == "2025-03-26" {
		return info
	}
	if m.Title != "" {
		info["title"] = m.Title
	}
	if version == "2025-06-18" {
		return info
	}
	if m.Description != "" {
		info["description"] = m.Description
	}
	if m.WebsiteURL != "" {
		info["websiteUrl"] = m.WebsiteURL
	}
	if len(m.Icons) > 0 {
		info["icons"] = m.Icons
	}
	return info
}

func (srv *Server) setLevel(_ context.Context, s *Session, r *Request) (any, error) {
	var p struct {
		Level *string `json:"level"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	lvl := LevelInfo
	if p.Level != nil {
		l, ok := ParseLevel(*p.Level)
		if !ok {
			return nil, invalidParams("Invalid log level")
		}
		lvl = l
	}
	s.level.Store(int32(lvl))
	return struct{}{}, nil
}

func (srv *Server) shutdown(ctx context.Context, s *Session, _ *Request) (any, error) {
	if s.state.Swap(stateShutdown) != stateShutdown && srv.cfg.ShutdownTimeout > 0 {
		// The client should follow with `exit`; if it does not, leave anyway.
		go func() {
			t := time.After(srv.cfg.ShutdownTimeout)
			select {
			case <-t:
				s.requestExit()
			case <-ctx.Done():
			}
		}()
	}
	return struct{}{}, nil
}

func (srv *Server) exit(_ context.Context, s *Session, _ *Request) (any, error) {
	if s.state.Load() != stateShutdown {
		return nil, jsonrpc.NewError(codeShutdownNotExpected, "Shutdown not requested", nil)
	}
	s.requestExit()
	return struct{}{}, nil
}

// onInitialized runs when the client confirms initialization: the client is told once that
// each list may have changed (as the original does, COMPAT 6.4: clients that cached lists from
// an earlier connection refresh them), roots are asked for, and the registries are loaded in the
// background so that initialize itself never waits for a scan.
func (srv *Server) onInitialized(ctx context.Context, s *Session) {
	s.startRoots(ctx)
	if advertisesListChanged(s.Protocol()) {
		for _, f := range srv.features() {
			if f.listChanged {
				s.Notify("notifications/"+f.name+"/list_changed", map[string]any{})
			}
		}
	}
	// Not tracked by the session's wait group: answering requests at EOF must not wait for a
	// scan. Serve waits for it only after cancelling ctx, which stops it between kinds.
	srv.bg.Add(1)
	go func() {
		defer srv.bg.Done()
		// Wasm modules compile on first use, not here: a session must not make the server
		// compile every module of the project (docs/WASM.md).
		srv.reg.Warm(ctx)
	}()
}

// advertisesListChanged: the revisions before 2025-06-18 advertise no listChanged (COMPAT 6.1).
func advertisesListChanged(rev string) bool { return rev != "2025-03-26" && rev != "2024-11-05" }

// backgroundRefresh re-checks the registries (TTL-gated, so usually free) off the caller's
// goroutine, one check at a time, after each inbound message and on the idle ticker, when some
// session may be told about a change.
func (srv *Server) backgroundRefresh(ctx context.Context) {
	if !srv.reg.RefreshDue() || !srv.anyListening() || !srv.refreshing.CompareAndSwap(false, true) {
		return
	}
	srv.bg.Add(1)
	go func() {
		defer srv.bg.Done()
		defer srv.refreshing.Store(false)
		srv.notifyChanges(ctx)
	}()
}

// anyListening reports whether a session would be told about a change.
func (srv *Server) anyListening() bool {
	for _, s := range srv.liveSessions() {
		if s.state.Load() == stateReady || s.hasListeners() {
			return true
		}
	}
	return false
}
