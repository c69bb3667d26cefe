// Package metrics is the hosting server's Prometheus instrumentation in sets of its own (no
// package-level state, so tests and several servers in one process do not collide), the
// /metrics handler, and the /healthz and /readyz probes.
//
// The series are kept by github.com/VictoriaMetrics/metrics, which has no heavy package
// initialisation: client_golang's (its default registry's collectors, procfs's regular
// expressions, protobuf's registries) was 1.3 ms of every start, HTTP or not (docs/DECISIONS.md).
// Each family is one Set so that its HELP and TYPE lines are written here, with the help text.
//
// The package is a leaf: the session core calls its methods; it imports nothing of host.
package metrics

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
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

// durationBuckets are mcpbash_call_duration_seconds's upper bounds (le).
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// family is one metric family: its series live in a Set of their own.
type family struct {
	name, help, typ string
	set             *vm.Set
}

// series is the family's series name with the label pairs (name, value, ...), which callers
// give sorted by label name, as Prometheus's own client exposes them.
func (f *family) series(labels ...string) string {
	var b strings.Builder
	b.WriteString(f.name)
	b.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString(`="`)
		writeLabelValue(&b, labels[i+1])
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// writeLabelValue escapes v as the exposition format wants (backslash, quote, newline).
func writeLabelValue(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
}

func (f *family) counter(labels ...string) *vm.Counter {
	return f.set.GetOrCreateCounter(f.series(labels...))
}

func (f *family) gauge(labels ...string) *vm.Gauge {
	return f.set.GetOrCreateGauge(f.series(labels...), nil)
}

// Metrics holds every family of the server.
type Metrics struct {
	maxTenants int
	runtime    bool

	mu      sync.Mutex
	tenants map[string]bool // label values in use

	families []*family // in exposition order

	calls, duration, refusals, limits, authDecisions     *family
	quotaRunning, quotaWaiting, quotaTokens, sessions    *family
	workersBusy, workersIdle, workersSlots, queueWaiting *vm.Gauge
	tenantsReloads                                       *vm.Counter
}

// Options configure New.
type Options struct {
	// MaxTenants caps distinct tenant labels (default DefaultMaxTenants).
	MaxTenants int
	// Runtime adds the Go runtime and process metrics.
	Runtime bool
}

// New makes every family.
func New(o Options) *Metrics {
	if o.MaxTenants <= 0 {
		o.MaxTenants = DefaultMaxTenants
	}
	m := &Metrics{maxTenants: o.MaxTenants, runtime: o.Runtime, tenants: map[string]bool{}}
	fam := func(name, typ, help string) *family {
		f := &family{name: "mcpbash_" + name, help: help, typ: typ, set: vm.NewSet()}
		m.families = append(m.families, f)
		return f
	}
	m.calls = fam("calls_total", "counter", "Calls answered, by tenant, kind (tool, resource, prompt, completion, listen) and outcome (ok, tool_error, error, refused, cancelled, timeout).")
	m.duration = fam("call_duration_seconds", "histogram", "Call duration from admission to answer, by tenant and kind.")
	m.refusals = fam("refusals_total", "counter", "Operations the sandbox refused (command not allowed, path outside roots, ...), by tenant and reason.")
	m.limits = fam("limits_hit_total", "counter", "Calls stopped or refused by a limit, by tenant and cause (calls_per_minute, queue_full, timeout, output, memory, bytes_written, ...).")
	m.authDecisions = fam("auth_decisions_total", "counter", "Authorization decisions, by method (jwt, api-key, remote-token, none) and result (ok or the failure reason).")
	m.quotaRunning = fam("tenant_calls_running", "gauge", "Calls running now, by tenant.")
	m.quotaWaiting = fam("tenant_calls_waiting", "gauge", "Calls waiting for a worker slot, by tenant.")
	m.quotaTokens = fam("tenant_rate_tokens", "gauge", "Calls left in the tenant's calls-per-minute bucket.")
	single := func(name, help string) *vm.Gauge {
		f := fam(name, "gauge", help)
		return f.set.NewGauge(f.name, nil)
	}
	m.workersBusy = single("workers_busy", "Worker processes running a call.")
	m.workersIdle = single("workers_idle", "Warm worker processes waiting for a call.")
	m.workersSlots = single("worker_slots", "Calls that may run at once across tenants.")
	m.queueWaiting = single("queue_waiting", "Calls waiting for a slot across tenants.")
	m.sessions = fam("sessions", "gauge", "Open sessions, by transport (stdio, http).")
	reloads := fam("tenants_reloads_total", "counter", "Tenants-file configurations that took effect after the first.")
	m.tenantsReloads = reloads.set.NewCounter(reloads.name)
	return m
}

// Handler serves every family in the Prometheus text exposition format (version 0.0.4).
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(m.exposition())
	})
}

// exposition is the text of a scrape: each family that has series, under its HELP and TYPE
// lines, then the Go runtime's and the process's metrics when Options.Runtime is set.
func (m *Metrics) exposition() []byte {
	var out, tmp bytes.Buffer
	m.mu.Lock()
	fams := m.families
	m.mu.Unlock()
	for _, f := range fams {
		tmp.Reset()
		f.set.WritePrometheus(&tmp)
		if tmp.Len() == 0 {
			continue // as Prometheus's client: a family with no series is not shown
		}
		out.WriteString("# HELP " + f.name + " " + strings.ReplaceAll(strings.ReplaceAll(f.help, `\`, `\\`), "\n", `\n`) + "\n")
		out.WriteString("# TYPE " + f.name + " " + f.typ + "\n")
		out.Write(tmp.Bytes())
	}
	if m.runtime {
		vm.WriteProcessMetrics(&out)
	}
	return out.Bytes()
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
	m.calls.counter("kind", kind, "outcome", outcome, "tenant", t).Inc()
	m.duration.set.GetOrCreatePrometheusHistogramExt(m.duration.series("kind", kind, "tenant", t), durationBuckets).Update(d.Seconds())
}

// Refusal records an operation the sandbox refused.
func (m *Metrics) Refusal(tenant, reason string) { m.Refusals(tenant, reason, 1) }

// Refusals records n refusals of one kind (an access record counts a repeated refusal once,
// with its count).
func (m *Metrics) Refusals(tenant, reason string, n int) {
	m.refusals.counter("reason", reason, "tenant", m.tenant(tenant)).Add(n)
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
	m.limits.counter("cause", cause, "tenant", m.tenant(tenant)).Inc()
}

// AuthDecision records an authorization decision (result "ok" or the failure reason).
func (m *Metrics) AuthDecision(method, result string) {
	if method == "" {
		method = "none"
	}
	m.authDecisions.counter("method", method, "result", result).Inc()
}

// Quota sets a tenant's quota use.
func (m *Metrics) Quota(tenant string, running, waiting int, tokens float64) {
	t := m.tenant(tenant)
	m.quotaRunning.gauge("tenant", t).Set(float64(running))
	m.quotaWaiting.gauge("tenant", t).Set(float64(waiting))
	m.quotaTokens.gauge("tenant", t).Set(tokens)
}

// Workers sets the worker pool gauges.
func (m *Metrics) Workers(busy, idle, slots, waiting int) {
	m.workersBusy.Set(float64(busy))
	m.workersIdle.Set(float64(idle))
	m.workersSlots.Set(float64(slots))
	m.queueWaiting.Set(float64(waiting))
}

// SessionOpened and SessionClosed count open sessions by transport.
func (m *Metrics) SessionOpened(transport string) { m.sessions.gauge("transport", transport).Inc() }

// SessionClosed is SessionOpened's counterpart.
func (m *Metrics) SessionClosed(transport string) { m.sessions.gauge("transport", transport).Dec() }

// Buffers publishes, read at each scrape, the bytes SSE streams hold for readers that are not
// attached (used) and how many such backlogs were evicted over the budget (evicted).
func (m *Metrics) Buffers(used, evicted func() float64) {
	add := func(name, typ, help string, f func() float64) {
		fam := &family{name: "mcpbash_" + name, help: help, typ: typ, set: vm.NewSet()}
		fam.set.NewGauge(fam.name, f)
		m.mu.Lock()
		m.families = append(m.families, fam)
		m.mu.Unlock()
	}
	add("sse_buffered_bytes", "gauge", "Bytes of SSE events held for replay or for a reader that is not attached (MCPBASH_HTTP_MAX_BUFFERED_BYTES bounds it).", used)
	add("sse_evictions_total", "counter", "Backlogs of SSE streams nobody read, evicted to keep the buffer budget.", evicted)
}

// TenantsReloaded counts a tenants-file reload.
func (m *Metrics) TenantsReloaded() { m.tenantsReloads.Inc() }
