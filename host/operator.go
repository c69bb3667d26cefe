package host

// The operator's surfaces of serve --http: the probes (/healthz, /readyz), which need no
// credentials and so report states only, and /metrics, which lists every tenant's ids, calls
// and limits hit and so is never served with less protection than /mcp: on a listener of its
// own (MCPBASH_METRICS_ADDR), behind a bearer token of its own (MCPBASH_METRICS_TOKEN_FILE), or
// on the MCP listener of a server without any authentication (a loopback development server).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/metrics"
)

// minMetricsTokenBytes is the shortest MCPBASH_METRICS_TOKEN_FILE accepted.
const minMetricsTokenBytes = 32

// operatorSurfaces are the probes and the metrics endpoint of one server.
type operatorSurfaces struct {
	health  *metrics.Health
	metrics http.Handler // /metrics with its credentials applied
	// onMCP says whether /metrics is served on the MCP listener (else 403 there, with how to
	// reach it).
	onMCP bool
	// own is MCPBASH_METRICS_ADDR's server (nil: none).
	own   *http.Server
	ownLn net.Listener
	log   *slog.Logger
}

// openOperatorSurfaces reads the metrics settings: the token file must hold at least 32 bytes,
// and MCPBASH_METRICS_ADDR is listened on now (a busy port refuses to start). authenticated
// says whether /mcp needs credentials.
func openOperatorSurfaces(set *config.Config, m *metrics.Metrics, log *slog.Logger, authenticated bool) (*operatorSurfaces, error) {
	o := &operatorSurfaces{health: metrics.NewHealth(log), metrics: m.Handler(), log: log}
	var token []byte
	if set.MetricsTokenFile != "" {
		b, err := os.ReadFile(set.MetricsTokenFile)
		if err != nil {
			return nil, fmt.Errorf("MCPBASH_METRICS_TOKEN_FILE: %w", err)
		}
		b = bytes.TrimSpace(b)
		if len(b) < minMetricsTokenBytes {
			return nil, fmt.Errorf("MCPBASH_METRICS_TOKEN_FILE %s: the token has %d bytes, want at least %d (e.g. openssl rand -hex 32)", set.MetricsTokenFile, len(b), minMetricsTokenBytes)
		}
		token = b
		o.metrics = bearerOnly(o.metrics, token)
	}
	if set.MetricsAddr == "" {
		o.onMCP = token != nil || !authenticated
		return o, nil
	}
	addr := set.MetricsAddr
	if h, port, err := net.SplitHostPort(addr); err == nil && h == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := listenTCP(context.Background(), addr)
	if err != nil {
		return nil, fmt.Errorf("MCPBASH_METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	o.mount(mux, true)
	o.own = &http.Server{Handler: mux, ReadHeaderTimeout: httpReadHeaderTimeout, ReadTimeout: httpReadTimeout,
		WriteTimeout: httpReadTimeout, IdleTimeout: httpIdleTimeout, MaxHeaderBytes: httpMaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	o.ownLn = ln
	return o, nil
}

// mount serves the probes and /metrics on mux (own: the metrics listener).
func (o *operatorSurfaces) mount(mux *http.ServeMux, own bool) {
	mux.Handle("/healthz", o.health.Healthz())
	mux.Handle("/readyz", o.health.Readyz())
	switch {
	case own || o.onMCP:
		mux.Handle("/metrics", o.metrics)
	case o.own != nil:
		mux.Handle("/metrics", refuseMetrics("/metrics is served on MCPBASH_METRICS_ADDR, not here"))
	default:
		mux.Handle("/metrics", refuseMetrics("/metrics needs MCPBASH_METRICS_TOKEN_FILE or a listener of its own (MCPBASH_METRICS_ADDR) on a server with authentication (docs/HOSTING.md)"))
	}
}

// serve runs the metrics listener, if any, until shutdown.
func (o *operatorSurfaces) serve() {
	if o.own == nil {
		return
	}
	o.log.Info("metrics listening", "addr", o.ownLn.Addr().String(), "url", "http://"+o.ownLn.Addr().String()+"/metrics")
	go func() {
		if err := o.own.Serve(o.ownLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.log.Error("metrics listener stopped", "error", err.Error())
		}
	}()
}

func (o *operatorSurfaces) close() {
	if o.own != nil {
		_ = o.own.Shutdown(context.Background())
	}
}

// refuseMetrics answers 403 with why, in words: the data is not shown, the way to it is.
func refuseMetrics(why string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(why + "\n"))
	})
}

// bearerOnly lets through requests presenting token as a bearer token (compared in constant
// time), and answers 401 to the rest.
func bearerOnly(next http.Handler, token []byte) http.Handler {
	want := sha256.Sum256(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "metrics need the bearer token of MCPBASH_METRICS_TOKEN_FILE", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
