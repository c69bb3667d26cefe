package metrics

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
)

// Health answers the probes. Liveness says only that the process serves HTTP; readiness says
// whether this replica should get traffic: every registered check passes and it is not draining.
// The probes need no credentials, so they report states only: a check's error (which may name
// a URL or a dial error) goes to the log, never into the answer.
type Health struct {
	draining atomic.Bool
	log      *slog.Logger
	mu       sync.Mutex
	checks   []check
	logged   map[string]string // the last error logged per check (logged again when it changes)
}

type check struct {
	name, state string
	fn          func() error
}

// NewHealth returns probes with no checks; failing checks' errors are logged to log (nil: not
// logged).
func NewHealth(log *slog.Logger) *Health {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Health{log: log, logged: map[string]string{}}
}

// AddCheck registers a readiness check (for example "auth": the issuer's keys are loaded;
// "workers": a worker slot can be had). A failing check is answered as name: state (a fixed
// word such as "keys_unavailable"); its error is logged.
func (h *Health) AddCheck(name, state string, fn func() error) {
	h.mu.Lock()
	h.checks = append(h.checks, check{name, state, fn})
	h.mu.Unlock()
}

// Drain marks the replica as going away: readiness fails from now on, so the load balancer
// stops sending new work while in-flight calls finish.
func (h *Health) Drain() { h.draining.Store(true) }

// Draining reports whether Drain was called.
func (h *Health) Draining() bool { return h.draining.Load() }

// Healthz is the liveness probe: 200 while the process can answer.
func (h *Health) Healthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Readyz is the readiness probe: 200 with {"status":"ready"} or 503 with the failing checks'
// states (never their errors: those are logged).
func (h *Health) Readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		failing := map[string]string{}
		if h.draining.Load() {
			failing["draining"] = "draining"
		}
		h.mu.Lock()
		checks := append([]check(nil), h.checks...)
		h.mu.Unlock()
		for _, c := range checks {
			err := c.fn()
			h.note(r, c.name, err)
			if err != nil {
				failing[c.name] = c.state
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if len(failing) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "not ready", "failing": failing})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ready"})
	})
}

// note logs a check's error when it differs from the last one logged for that check, so a
// probe every few seconds does not repeat it.
func (h *Health) note(r *http.Request, name string, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	h.mu.Lock()
	changed := h.logged[name] != msg
	h.logged[name] = msg
	h.mu.Unlock()
	switch {
	case changed && err != nil:
		h.log.WarnContext(r.Context(), "readiness check failing", "check", name, "error", msg)
	case changed:
		h.log.InfoContext(r.Context(), "readiness check passing again", "check", name)
	}
}
