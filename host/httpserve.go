package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/metrics"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
)

// HTTP server timeouts. There is no write timeout for the server as a whole (SSE streams are
// long); each write to a stream has its own deadline (sse.WriteTimeout).
const (
	httpReadHeaderTimeout = 10 * time.Second
	httpReadTimeout       = 60 * time.Second // a request's headers and body; lifted once the body is read
	httpIdleTimeout       = 120 * time.Second
	httpMaxHeaderBytes    = 64 << 10
	// MCPEndpoint is the path of the MCP endpoint.
	MCPEndpoint = "/mcp"
)

// HTTPOptions are ServeHTTP's: the project and environment, where to listen and how.
type HTTPOptions struct {
	Options
	// Addr is host:port to listen on; a missing host means 127.0.0.1 (":8080" binds loopback).
	// A non-loopback address needs an authentication method (docs/HOSTING.md).
	Addr string
	// TLSCert and TLSKey are PEM files: HTTPS, with HTTP/2.
	TLSCert, TLSKey string
	// Log receives the server's structured logs (nil: JSON lines on Stderr at info).
	Log *slog.Logger
	// Listening is told the bound address once the server accepts connections.
	Listening func(net.Addr)
}

// ErrUnauthenticatedBind refuses a non-loopback address without an authentication method.
var ErrUnauthenticatedBind = errors.New("refusing to listen on a non-loopback address without authentication: configure server.d/auth.json (MCPBASH_AUTH_FILE) or MCPBASH_REMOTE_TOKEN, or bind 127.0.0.1")

// ServeHTTP serves the project of o over MCP Streamable HTTP at /mcp until ctx ends, then
// drains: new requests are refused, requests in flight get MCPBASH_SHUTDOWN_TIMEOUT to finish
// and streams close.
func ServeHTTP(ctx context.Context, o HTTPOptions) error {
	set, p, boot, cleanup, err := projectOrBootstrap(o.Options)
	if err != nil {
		return err
	}
	defer cleanup()
	tpath := tenantsPath(set, p.dirs)
	if tpath != "" {
		requireProcessIsolation(set)
	}
	log := o.Log
	if log == nil {
		w := o.Stderr
		if w == nil {
			w = io.Discard
		}
		log = slog.New(slog.NewJSONHandler(w, nil))
	}
	m := metrics.New(metrics.Options{Runtime: true})
	a, err := loadAuth(set, p.dirs, log, m)
	if err != nil {
		return err
	}
	h, err := openHosting(set, tpath, m, log)
	if err != nil {
		return err
	}
	defer h.close()
	if h.store != nil && a == nil {
		return ErrTenantsWithoutAuth
	}
	srv, err := open(ctx, o.Options, set, p, boot, true, WithLogger(log), withHosting(h))
	if err != nil {
		return err
	}
	defer srv.Close()
	addr := o.Addr
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := listenTCP(ctx, addr)
	if err != nil {
		return err
	}
	loopback := isLoopbackAddr(ln.Addr())
	if !loopback && a == nil {
		ln.Close()
		return ErrUnauthenticatedBind
	}
	ops, err := openOperatorSurfaces(set, m, log, a != nil)
	if err != nil {
		ln.Close()
		return err
	}
	defer ops.close()
	health := ops.health
	t := newHTTPTransport(srv, log, loopback)
	t.hooks.sessionOpened = func() { m.SessionOpened("http") }
	t.hooks.sessionClosed = func() { m.SessionClosed("http") }
	m.Buffers(func() float64 { return float64(t.buffers.Used()) }, func() float64 { return float64(t.buffers.Evicted()) })
	mux := http.NewServeMux()
	var endpoint http.Handler = t
	if a != nil {
		endpoint = a.Middleware(h.gate(srv, t))
		t.hooks.principal = func(r *http.Request) (string, string) {
			if p := auth.FromContext(r.Context()); p != nil {
				return p.Tenant, p.Subject
			}
			return "", ""
		}
		t.hooks.authorize = func(w http.ResponseWriter, r *http.Request, method, tool string) bool {
			p := auth.FromContext(r.Context())
			err := a.Authorize(p, method, tool)
			if err == nil {
				return true
			}
			e := auth.AsError(err)
			m.AuthDecision(string(p.Method), string(e.Reason))
			a.Deny(w, r, e)
			return false
		}
		for _, path := range a.MetadataPaths() {
			mux.Handle(path, a.MetadataHandler())
		}
		health.AddCheck("auth", "keys_unavailable", a.Ready)
	}
	mux.Handle(MCPEndpoint, endpoint)
	ops.mount(mux, false)
	if ch := srv.changesHandler(); ch != nil {
		mux.Handle(ChangesEndpoint, ch)
		mux.Handle(ChangesEndpoint+"/", ch)
	}
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ReadTimeout:       httpReadTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, hs.TLSConfig)
	}
	hctx, stopHousekeeping := context.WithCancel(context.Background())
	defer stopHousekeeping()
	go t.housekeeping(hctx)
	if h.store != nil {
		t.hooks.maxSessions = func(tenant string) int {
			if tn, err := h.store.Lookup(tenant); err == nil {
				return tn.Limits().Sessions
			}
			return 0 // the gate has refused an unknown tenant already
		}
		t.hooks.sessionRefused = func(tenant string) { m.LimitHit(tenant, tenants.CauseSessions) }
		go h.store.Watch(hctx, 2*time.Second)
		health.AddCheck("workers", "saturated", func() error {
			if st := h.adm.Stats(); st.Busy >= st.Slots && st.Waiting > st.Slots {
				return fmt.Errorf("all %d call slots busy and %d calls waiting", st.Slots, st.Waiting)
			}
			return nil
		})
	}
	// Read before Serve starts: Serve fills in TLSConfig for HTTP/2 (it is never nil after).
	scheme := "http"
	if hs.TLSConfig != nil {
		scheme = "https"
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	ops.serve()
	log.Info("listening", "addr", ln.Addr().String(), "url", scheme+"://"+ln.Addr().String()+MCPEndpoint, "auth", a != nil, "tenants", tpath)
	if o.Listening != nil {
		o.Listening(ln.Addr())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("draining", "timeout", srv.cfg.ShutdownTimeout.String())
	health.Drain()
	if h.adm != nil {
		h.adm.Drain() // calls not yet admitted are refused; admitted ones finish
	}
	shut := make(chan error, 1)
	// Shutdown closes the listener now and waits for the handlers the drain lets finish.
	go func() { shut <- hs.Shutdown(context.Background()) }()
	t.drain(srv.cfg.ShutdownTimeout)
	select {
	case err = <-shut:
	case <-time.After(5 * time.Second):
		err = hs.Close()
	}
	srv.bg.Wait()
	log.Info("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// listenTCP listens on a TCP address with plain TCP. Go listens with Multipath TCP by default
// where the kernel has it, which costs every start a probe of the kernel (about 0.15 ms of a
// 15 ms cold start, with a probe of IPv6 too) for nothing an MCP endpoint uses: a client that
// does not speak MPTCP, as MCP clients do not, gets a plain TCP connection either way.
func listenTCP(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(ctx, "tcp", addr)
}

func isLoopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// loadAuth builds the authenticator from the auth file (MCPBASH_AUTH_FILE, else
// server.d/auth.json when present) and MCPBASH_REMOTE_TOKEN; nil when neither is configured.
func loadAuth(set *config.Config, dirs registry.Dirs, log *slog.Logger, m *metrics.Metrics) (*auth.Authenticator, error) {
	path := set.AuthFile
	if path == "" {
		def := filepath.Join(dirs.Server, "auth.json")
		if _, err := os.Stat(def); err == nil {
			path = def
		}
	}
	var cfg auth.Config
	if path != "" {
		c, err := auth.LoadConfig(path)
		if err != nil {
			return nil, err
		}
		cfg = *c
	}
	var rt *auth.RemoteToken
	if set.RemoteToken != "" {
		var err error
		if rt, err = auth.NewRemoteToken(set.RemoteToken, set.RemoteTokenKey, set.RemoteTokenFallbackKey, set.RemoteTokenMaxFailures); err != nil {
			return nil, fmt.Errorf("MCPBASH_REMOTE_TOKEN: %w", err)
		}
	}
	if path == "" && rt == nil {
		return nil, nil
	}
	return auth.New(cfg, auth.Options{Log: log, RemoteToken: rt,
		OnDecision: func(p *auth.Principal, e *auth.Error) {
			switch {
			case p != nil:
				m.AuthDecision(string(p.Method), "ok")
			case e != nil:
				m.AuthDecision("none", string(e.Reason))
			}
		}})
}
