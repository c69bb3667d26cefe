package metrics

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
)

// Health answers the probes. Liveness says only that the process serves HTTP; readiness says
// whether this replica should get traffic: every registered check passes and it is not draining.
type Health struct {
	draining atomic.Bool
	mu       sync.Mutex
	checks   []check
}

type check struct {
	name string
	fn   func() error
}

// NewHealth returns probes with no checks.
func NewHealth() *Health { return &Health{} }

// AddCheck registers a readiness check (for example "registry": the project was loaded;
// "workers": a worker slot can be had; "auth": the issuer's keys are loaded).
func (h *Health) AddCheck(name string, fn func() error) {
	h.mu.Lock()
	h.checks = append(h.checks, check{name, fn})
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

// Readyz is the readiness probe: 200 with {"status":"ready"} or 503 with the failing checks
// (names and messages, never secrets: checks report states, not configuration).
func (h *Health) Readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		failing := map[string]string{}
		if h.draining.Load() {
			failing["draining"] = "the server is shutting down"
		}
		h.mu.Lock()
		checks := append([]check(nil), h.checks...)
		h.mu.Unlock()
		for _, c := range checks {
			if err := c.fn(); err != nil {
				failing[c.name] = err.Error()
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
