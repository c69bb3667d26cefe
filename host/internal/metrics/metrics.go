// Package metrics is the hosting server's Prometheus instrumentation on a private registry
// (no package-level state, so tests and several servers in one process do not collide), the
// /metrics handler, and the /healthz and /readyz probes.
//
// The package is a leaf: the session core calls its methods; it imports nothing of host.
package metrics

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// OtherTenant is the label value for tenants past the cardinality cap.
const OtherTenant = "_other"

// DefaultMaxTenants caps distinct tenant label values: a default template admits any tenant
// id, and an unbounded label would let callers grow the server's memory and the scraper's.
const DefaultMaxTenants = 1000

// Outcomes of a call.
const (
	OutcomeOK        = "ok"         // a result
	OutcomeToolError = "tool_error" // an isError result
	OutcomeError     = "error"      // a JSON-RPC error
	OutcomeRefused   = "refused"    // refused before running (policy, quota, auth)
	OutcomeCancelled = "cancelled"
	OutcomeTimeout   = "timeout"
)

// Metrics holds every collector of the server.
type Metrics struct {
	reg        *prometheus.Registry
	maxTenants int

	mu      sync.Mutex
	tenants map[string]bool // label values in use

	calls          *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	refusals       *prometheus.CounterVec
	limits         *prometheus.CounterVec
	authDecisions  *prometheus.CounterVec
	quotaRunning   *prometheus.GaugeVec
	quotaWaiting   *prometheus.GaugeVec
	quotaTokens    *prometheus.GaugeVec
	workersBusy    prometheus.Gauge
	workersIdle    prometheus.Gauge
	workersSlots   prometheus.Gauge
	queueWaiting   prometheus.Gauge
	sessions       *prometheus.GaugeVec
	tenantsReloads prometheus.Counter
}

// Options configure New.
type Options struct {
	// MaxTenants caps distinct tenant labels (default DefaultMaxTenants).
	MaxTenants int
	// Runtime adds the Go runtime and process collectors.
	Runtime bool
}

// New registers every metric on a fresh registry.
func New(o Options) *Metrics {
	if o.MaxTenants <= 0 {
		o.MaxTenants = DefaultMaxTenants
	}
	m := &Metrics{reg: prometheus.NewRegistry(), maxTenants: o.MaxTenants, tenants: map[string]bool{}}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "mcpbash", Name: "calls_total", Help: "Calls answered, by tenant, kind (tool, resource, prompt, completion, listen) and outcome (ok, tool_error, error, refused, cancelled, timeout).",
	}, []string{"tenant", "kind", "outcome"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "mcpbash", Name: "call_duration_seconds", Help: "Call duration from admission to answer, by tenant and kind.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
	}, []string{"tenant", "kind"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "mcpbash", Name: "refusals_total", Help: "Operations the sandbox refused (command not allowed, path outside roots, ...), by tenant and reason.",
	}, []string{"tenant", "reason"})
	m.limits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "mcpbash", Name: "limits_hit_total", Help: "Calls stopped or refused by a limit, by tenant and cause (calls_per_minute, queue_full, timeout, output, memory, bytes_written, ...).",
	}, []string{"tenant", "cause"})
	m.authDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "mcpbash", Name: "auth_decisions_total", Help: "Authorization decisions, by method (jwt, api-key, remote-token, none) and result (ok or the failure reason).",
	}, []string{"method", "result"})
	m.quotaRunning = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "mcpbash", Name: "tenant_calls_running", Help: "Calls running now, by tenant.",
	}, []string{"tenant"})
	m.quotaWaiting = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "mcpbash", Name: "tenant_calls_waiting", Help: "Calls waiting for a worker slot, by tenant.",
	}, []string{"tenant"})
	m.quotaTokens = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "mcpbash", Name: "tenant_rate_tokens", Help: "Calls left in the tenant's calls-per-minute bucket.",
	}, []string{"tenant"})
	m.workersBusy = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "mcpbash", Name: "workers_busy", Help: "Worker processes running a call."})
	m.workersIdle = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "mcpbash", Name: "workers_idle", Help: "Warm worker processes waiting for a call."})
	m.workersSlots = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "mcpbash", Name: "worker_slots", Help: "Calls that may run at once across tenants."})
	m.queueWaiting = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "mcpbash", Name: "queue_waiting", Help: "Calls waiting for a slot across tenants."})
	m.sessions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "mcpbash", Name: "sessions", Help: "Open sessions, by transport (stdio, http).",
	}, []string{"transport"})
	m.tenantsReloads = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "mcpbash", Name: "tenants_reloads_total", Help: "Tenants-file configurations that took effect after the first."})
	for _, c := range []prometheus.Collector{m.calls, m.duration, m.refusals, m.limits, m.authDecisions, m.quotaRunning,
		m.quotaWaiting, m.quotaTokens, m.workersBusy, m.workersIdle, m.workersSlots, m.queueWaiting, m.sessions, m.tenantsReloads} {
		f(c)
	}
	if o.Runtime {
		f(collectors.NewGoCollector())
		f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry exposes the private registry (tests, extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true})
}

// tenant maps a tenant id to its label value, folding tenants past the cap into OtherTenant.
func (m *Metrics) tenant(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tenants[id] {
		return id
	}
	if len(m.tenants) >= m.maxTenants {
		return OtherTenant
	}
	m.tenants[id] = true
	return id
}

// Call records one answered call.
func (m *Metrics) Call(tenant, kind, outcome string, d time.Duration) {
	t := m.tenant(tenant)
	m.calls.WithLabelValues(t, kind, outcome).Inc()
	m.duration.WithLabelValues(t, kind).Observe(d.Seconds())
}

// Refusal records an operation the sandbox refused.
func (m *Metrics) Refusal(tenant, reason string) { m.Refusals(tenant, reason, 1) }

// Refusals records n refusals of one kind (an access record counts a repeated refusal once,
// with its count).
func (m *Metrics) Refusals(tenant, reason string, n int) {
	m.refusals.WithLabelValues(m.tenant(tenant), reason).Add(float64(n))
}

// RefusalReason is the reason label of an access record's refusal: the reason's words in
// snake case, without the details after a colon or parenthesis (which name paths, options or
// errors and would make the label unbounded), "other" past 40 characters.
func RefusalReason(op, reason string) string {
	if op == "exec" && reason == "not allowed" {
		return "command_not_allowed"
	}
	if i := strings.IndexAny(reason, ":("); i >= 0 {
		reason = reason[:i]
	}
	if strings.HasPrefix(reason, "option ") {
		reason = "option"
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(reason), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if w == "the" || w == "a" || w == "an" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(w)
	}
	switch {
	case b.Len() == 0:
		return "unspecified"
	case b.Len() > 40:
		return "other"
	}
	return b.String()
}

// LimitHit records a limit that stopped or refused a call.
func (m *Metrics) LimitHit(tenant, cause string) {
	m.limits.WithLabelValues(m.tenant(tenant), cause).Inc()
}

// AuthDecision records an authorization decision (result "ok" or the failure reason).
func (m *Metrics) AuthDecision(method, result string) {
	if method == "" {
		method = "none"
	}
	m.authDecisions.WithLabelValues(method, result).Inc()
}

// Quota sets a tenant's quota use.
func (m *Metrics) Quota(tenant string, running, waiting int, tokens float64) {
	t := m.tenant(tenant)
	m.quotaRunning.WithLabelValues(t).Set(float64(running))
	m.quotaWaiting.WithLabelValues(t).Set(float64(waiting))
	m.quotaTokens.WithLabelValues(t).Set(tokens)
}

// Workers sets the worker pool gauges.
func (m *Metrics) Workers(busy, idle, slots, waiting int) {
	m.workersBusy.Set(float64(busy))
	m.workersIdle.Set(float64(idle))
	m.workersSlots.Set(float64(slots))
	m.queueWaiting.Set(float64(waiting))
}

// SessionOpened and SessionClosed count open sessions by transport.
func (m *Metrics) SessionOpened(transport string) { m.sessions.WithLabelValues(transport).Inc() }

// SessionClosed is SessionOpened's counterpart.
func (m *Metrics) SessionClosed(transport string) { m.sessions.WithLabelValues(transport).Dec() }

// Buffers publishes, read at each scrape, the bytes SSE streams hold for readers that are not
// attached (used) and how many such backlogs were evicted over the budget (evicted).
func (m *Metrics) Buffers(used, evicted func() float64) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "mcpbash", Name: "sse_buffered_bytes",
			Help: "Bytes of SSE events held for replay or for a reader that is not attached (MCPBASH_HTTP_MAX_BUFFERED_BYTES bounds it)."}, used),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "mcpbash", Name: "sse_evictions_total",
			Help: "Backlogs of SSE streams nobody read, evicted to keep the buffer budget."}, evicted))
}

// TenantsReloaded counts a tenants-file reload.
func (m *Metrics) TenantsReloaded() { m.tenantsReloads.Inc() }
